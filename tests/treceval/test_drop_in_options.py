"""trec_eval's command line, option by option: the drop-in's stdout and exit code equal the binary's.

The oracle is trec_eval 10 built from NIST's source (``trec_eval`` fixture). Where trec_eval crashes or does
something the drop-in refuses on purpose, the test says so and checks the drop-in's clear error instead.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
QRELS = str(DATA / "qrels.test")
RUN = str(DATA / "results.test")

SAME_AS_TREC_EVAL = [
    "",
    "-q",
    "-n",
    "-q -n",
    "-M0",
    "-M1",
    "-M 7 -q",
    "-l0",
    "-l-1",
    "-l5",
    "-l 2 -q -m all_trec",
    "-J -q -m all_trec",
    "-J -c -m all_trec",
    "-N100 -m utility",
    "-m utility.1,-1,0,1 -N 100000",
    "-m P.0",
    "-m P.",
    "-m foo",
    "-m foo.5",
    "-m prefs_simp",
    "-m qrels_jg",
    "-m map_avgjg",
    "-x",
    "-m",
    "--meas=P.5",
    "--measure P.7",
    "--measure",
    "--nosummary -q -m map",
    "--complete -m map",
    "--help=x",
    "-mP.3,3",
    "-mP.2,1,3",
    "-m P.5x,abc",
    "-m P.3000000000,5",
    "-m all_trec.5 -mP.3 -mP.4",
    "-m official -m set",
    "-m ndcg.1=3,=4",
    "-m ndcg.a=3",
    "-m ndcg.1=3,2",
    "-m ndcg.0=5,1=0.5 -q",
    "-m ndcg_rel.1=2,0=1 -m Rndcg.1=0.5 -m G.1=3",
    "-m rbp.p=0.5",
    "-m rbp.p=0.5,2=4",
    "-m rbp.1=0.5 -q",
    "-m rbp.1=-1 -q",
    "-m rbp_resid.p=0.95",
    "-m iprec_at_recall.1234.5678,-3",
    "-m iprec_at_recall.0.15,0.5,0.999",
    "-m 11pt_avg.0.5,0.1,0.9 -q",
    "-m Rprec_mult.0.05,3.3",
    "-m relstring.-5 -q",
    "-m relstring.3 -q",
    "-m relstring -c -q",
    "-m set_F.0.25 -m set_F.4",
    "-m yaap -m dcg -m ideal_dcg -q",
    "-m dcg.1=3",
    "-m map_cut.1,2 -m ndcg_cut.1,3 -m relative_P.2 -m success.3 -m recall.7 -m unj.1,2",
    "-o -m num_q",
    "-T foo",
    "-R foo",
    "-D 0.302 -q",
    "-D 0.999 -c",
    "-- -q",
]


def drop_in(args: list[str], stdin: bytes | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["trec_eval", *args], input=stdin)


@pytest.mark.parametrize("options", SAME_AS_TREC_EVAL)
def test_same_stdout_and_exit_code_as_trec_eval(trec_eval, options: str) -> None:  # type: ignore[no-untyped-def]
    args = [*shlex.split(options), QRELS, RUN]
    expected = trec_eval(*args)
    got = drop_in(args)
    assert (got.exit_code, got.stdout_bytes) == (expected.returncode, expected.stdout), got.stderr
    if expected.returncode:
        assert got.stderr.startswith("Error: ") and got.stderr.count("\n") == 1, got.stderr


def test_files_before_options_and_missing_topics(trec_eval) -> None:  # type: ignore[no-untyped-def]
    trunc = str(DATA / "results.trunc")
    for args in ([QRELS, trunc, "-q"], [QRELS, trunc, "-q", "-c"], [QRELS, trunc, "-qc", "-mP.5"]):
        expected = trec_eval(*args)
        got = drop_in(args)
        assert (got.exit_code, got.stdout_bytes) == (expected.returncode, expected.stdout)
    # without -c trec_eval stops at topic 302 (exit 4) after printing 301's lines; its message is backwards
    got = drop_in([QRELS, trunc, "-q"])
    assert got.exit_code == 4
    assert "result qid '302' not found in qrels" in got.stderr and "add -c" in got.stderr


def test_version_and_help() -> None:
    got = drop_in(["-v", "-x"])  # trec_eval acts on -v before it sees the bad option
    assert got.exit_code == 0 and got.stdout == ""
    assert got.stderr.startswith("trec_eval version 10.0-rc3 (trec-toolkit ")
    for flag in ("-h", "--help"):
        got = drop_in([flag])
        assert got.exit_code == 0 and "Drop-in trec_eval 10" in got.stdout


@pytest.mark.parametrize(
    ("options", "code", "message"),
    [
        ("-M -1", 2, "-M -1: a negative number of docs per topic crashes trec_eval 10"),
        ("-m ndcg.1=3 -m dcg", 2, "dcg and ndcg share one parameter record in trec_eval 10"),
        ("-R qrels_jg", 2, "-R qrels_jg: the drop-in reads qrels judgments only"),
        ("-Z z.txt", 2, "-Z z.txt: z-scores are not supported by the drop-in"),
        ("-l 2147483648", 2, "-l 2147483648: a relevance level beyond a C int"),
        ("-l-9999999999", 2, "-l -9999999999: a relevance level beyond a C int"),
        ("-D 1", 2, "-D 1: debug output is not supported"),
    ],
)
def test_where_trec_eval_crashes_or_is_not_reproduced(options: str, code: int, message: str) -> None:
    got = drop_in([*shlex.split(options), QRELS, RUN])
    assert got.exit_code == code
    assert got.stdout == ""
    assert got.stderr.startswith(f"Error: {message}"), got.stderr
