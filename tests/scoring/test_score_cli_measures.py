"""``trec-toolkit score --measures`` takes trec_eval's measure names as trec_eval takes them, and bad ones in one line.

Run as a user would: the installed console script in a subprocess, its exit code checked every time, its
``--format trec`` lines compared with trec_eval 10 built from source on the same files (trec_eval's own test
files, where every qrels topic is in the run, so ``-c`` changes nothing).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "trec_eval"
SCRIPT = ROOT / ".venv" / "bin" / "trec-toolkit"


def toolkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=600, env=os.environ | {"COLUMNS": "200"}
    )


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("runid")]


def score_trec(measures: str) -> list[str]:
    done = toolkit(
        "score", str(DATA / "results.test"), "--qrels", str(DATA / "qrels.test"), "--measures", measures,
        "--format", "trec", "--per-query",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return lines(done.stdout)


def test_gm_map_and_11pt_avg_equal_trec_eval(trec_eval) -> None:  # type: ignore[no-untyped-def]
    want = trec_eval("-q", "-m", "gm_map", "-m", "11pt_avg", DATA / "qrels.test", DATA / "results.test")
    assert want.returncode == 0
    assert score_trec("gm_map,11pt_avg") == lines(want.stdout.decode())


def test_trec_eval_parameter_lists_are_not_split_on_their_commas(trec_eval) -> None:  # type: ignore[no-untyped-def]
    want = trec_eval(
        "-q", "-m", "P.5,10", "-m", "utility.2,-1,0.5,0", "-m", "ndcg.1=3,2=9", "-m", "iprec_at_recall.0.1,0.5",
        DATA / "qrels.test", DATA / "results.test",
    )  # fmt: skip
    assert want.returncode == 0
    got = score_trec("P.5,10,utility.2,-1,0.5,0 ndcg.1=3,2=9,iprec_at_recall.0.1,0.5")
    assert got == lines(want.stdout.decode())


def test_every_trec_eval_name_score_computes_equals_trec_eval(trec_eval) -> None:  # type: ignore[no-untyped-def]
    from toolkit.scoring.table import scoreable
    from toolkit.treceval.measures import TABLE

    names = [row.name for row in TABLE if scoreable(row) is None and not row.name.startswith("rbp")]
    assert {
        "gm_map",
        "11pt_avg",
        "gm_bpref",
        "utility",
        "Rprec_mult",
        "G",
        "binG",
        "Rndcg",
        "ndcg_rel",
    } <= set(names)
    assert {"unj", "relative_P", "num_nonrel_judged_ret"} <= set(names)
    want = trec_eval("-q", *(x for n in names for x in ("-m", n)), DATA / "qrels.test", DATA / "results.test")
    assert want.returncode == 0
    assert score_trec(",".join(names)) == lines(want.stdout.decode())


@pytest.mark.parametrize(
    "argv",
    [
        ["score", str(DATA / "results.test"), "--qrels", str(DATA / "qrels.test"), "--measures", "P@0"],
        [
            "compare",
            str(DATA / "results.test"),
            str(DATA / "results.trunc"),
            "--qrels",
            str(DATA / "qrels.test"),
        ]
        + ["--primary", "P@0"],
    ],
    ids=["score", "compare"],
)
def test_a_cutoff_of_zero_is_a_usage_error(argv: list[str]) -> None:
    done = toolkit(*argv)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "Error: P@0: a cutoff counts docs from the top of the ranking and must be a whole number ≥ 1 (e.g. P@10)"
    )
