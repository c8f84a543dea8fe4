"""``trec-toolkit trec_eval`` reproduces trec_eval's own expected outputs byte for byte (docs/design.md §5).

The expected bytes are the ``out.*`` files trec_eval 10 printed (tests/data/trec_eval/README.md lists the
invocations); nothing here was produced by the toolkit.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

MEAS_PARAMS = (
    "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 "
    "-mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20"
)

#: expected output file → trec_eval arguments (tests/data/trec_eval/README.md)
INVOCATIONS = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", [*MEAS_PARAMS.split(), "qrels.test", "results.test"]),
]


def run_drop_in(args: list[str], stdin: bytes | None = None) -> tuple[int, bytes]:
    result = CliRunner().invoke(main, ["trec_eval", *args], input=stdin)
    return result.exit_code, result.stdout_bytes


@pytest.mark.parametrize(("expected", "args"), INVOCATIONS, ids=[" ".join(a) for _, a in INVOCATIONS])
def test_reproduces_trec_eval_expected_output(expected: str, args: list[str]) -> None:
    files = [str(DATA / a) if (DATA / a).is_file() else a for a in args]
    code, out = run_drop_in(files)
    assert code == 0
    assert out == (DATA / expected).read_bytes()


def test_every_expected_output_file_is_covered() -> None:
    assert {p.name for p in DATA.glob("out.*")} == {e for e, _ in INVOCATIONS}


def test_stdin_and_gzip_give_the_same_bytes(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.test.gz"
    qrels.write_bytes(gzip.compress((DATA / "qrels.test").read_bytes()))
    run = (DATA / "results.test").read_bytes()
    code, out = run_drop_in(["-q", "-m", "all_trec", str(qrels), "-"], stdin=gzip.compress(run))
    assert code == 0
    assert out == (DATA / "out.test.aq").read_bytes()
    code, out = run_drop_in([str(DATA / "qrels.test"), "-"], stdin=run)
    assert (code, out) == (0, (DATA / "out.test").read_bytes())


def test_options_after_the_files_and_clustered(tmp_path: Path) -> None:
    code, out = run_drop_in(
        [str(DATA / "qrels.test"), str(DATA / "results.trunc"), "-qc", "-mall_trec", "--Max_retrieved=100"]
    )
    assert (code, out) == (0, (DATA / "out.test.aqcM").read_bytes())
