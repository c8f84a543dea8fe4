"""``score`` agrees with trec_eval 10 where it used to crash or miscount (docs/design.md §5, Reading like trec_eval).

Expected values come from the trec_eval binary built from NIST's source (``trec_eval`` fixture) or from the
``out.*`` files trec_eval printed; scoring runs in a subprocess, so that a crash inside pytrec_eval fails one
test instead of killing the test session.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

#: ir_measures name → (the name trec_eval prints, its -m argument), for the measures pytrec_eval computes.
MEASURES = {
    "AP": ("map", "map"),
    "Bpref": ("bpref", "bpref"),
    "P@5": ("P_5", "P.5"),
    "RR": ("recip_rank", "recip_rank"),
    "nDCG": ("ndcg", "ndcg"),
    "nDCG@10": ("ndcg_cut_10", "ndcg_cut.10"),
    "Rprec": ("Rprec", "Rprec"),
    "R@10": ("recall_10", "recall.10"),
    "Success@1": ("success_1", "success.1"),
    "SetP": ("set_P", "set_P"),
    "infAP": ("infAP", "infAP"),
    "IPrec@0.5": ("iprec_at_recall_0.50", "iprec_at_recall.0.5"),
    "NumRet(rel=1)": ("num_rel_ret", "num_rel_ret"),
    "NumRel": ("num_rel", "num_rel"),
    "NumRet": ("num_ret", "num_ret"),
}

NORMAL = ["a1 0 x 1", "a1 0 y 0"]
NEGATIVE = ["b2 0 z -1", "b2 0 w -2"]  # no grade >= 0: what `export --unjudged -1` writes for unjudged docs
RUN = "a1 Q0 x 1 2 t\na1 Q0 q 2 1 t\nb2 Q0 z 1 3 t\nb2 Q0 w 2 2 t\nb2 Q0 v 3 1 t\n"


def score_json(tmp_path: Path, qrels_lines: list[str], measures: str) -> dict[str, dict[str, float]]:
    qrels = tmp_path / "q.qrels"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run = tmp_path / "r.run"
    run.write_text(RUN)
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "score", str(run), "--qrels", str(qrels), "--measures", measures]
        + ["--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr}"
    return json.loads(done.stdout)["runs"][0]["per_query"]  # type: ignore[no-any-return]


def oracle_values(trec_eval, tmp_path: Path) -> dict[tuple[str, str], str]:  # type: ignore[no-untyped-def]
    """trec_eval -q -c with the normal topic sorted first (with the other topic first it stops: exit 4)."""
    qrels = tmp_path / "oracle.qrels"
    qrels.write_text("\n".join(NORMAL + NEGATIVE) + "\n")
    run = tmp_path / "oracle.run"
    run.write_text(RUN)
    args = [a for _, arg in MEASURES.values() for a in ("-m", arg)]
    done = trec_eval("-q", "-c", *args, qrels, run)
    assert done.returncode == 0, done.stderr
    out = {}
    for line in done.stdout.decode().splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        out[(name, qid)] = value
    return out


def printed(value: float, like: str) -> str:
    return str(int(value)) if "." not in like else f"{value:.4f}"


@pytest.mark.parametrize(
    "qrels_lines",
    [NEGATIVE, NEGATIVE + NORMAL, NORMAL + NEGATIVE],
    ids=["negative-only", "negative-first", "negative-last"],
)
@pytest.mark.parametrize("measures", ["map bpref", " ".join(MEASURES)], ids=["map+bpref", "all"])
def test_topic_without_grade_at_or_above_zero_scores_like_trec_eval(
    trec_eval, tmp_path: Path, qrels_lines: list[str], measures: str
) -> None:  # type: ignore[no-untyped-def]
    want = oracle_values(trec_eval, tmp_path)
    per_query = score_json(tmp_path, qrels_lines, measures)
    names = measures.replace("map", "AP").replace("bpref", "Bpref").split()
    for measure in names:
        trec_name = MEASURES[measure][0]
        for qid in per_query:
            expected = want[(trec_name, qid)]
            assert printed(per_query[qid][measure], expected) == expected, (measure, qid)


def test_numq_counts_every_topic_like_trec_eval_c(tmp_path: Path) -> None:
    # results.trunc has no results for topic 302; trec_eval -c counts it (out.test.aqc: num_q all 3)
    expected = next(
        line.split("\t")[2]
        for line in (DATA / "out.test.aqc").read_text().splitlines()
        if line.startswith("num_q ")
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit",
            "score",
            str(DATA / "results.trunc"),
            "--qrels",
            str(DATA / "qrels.test"),
        ]
        + ["--measures", "NumQ", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert str(int(json.loads(done.stdout)["runs"][0]["aggregate"]["NumQ"])) == expected == "3"


def test_a_grade_pytrec_eval_cannot_take_is_refused_clearly(tmp_path: Path) -> None:
    # pytrec_eval's trec_eval code walks every grade level: 10^6 hangs it, 2^31 crashes it (exit 139)
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q 0 a 1\nq 0 b 2147483648\n")
    run = tmp_path / "r.run"
    run.write_text("q Q0 a 1 2 t\nq Q0 b 2 1 t\n")
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "score", str(run), "--qrels", str(qrels), "--measures", "AP nDCG"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr == (
        f"Error: {qrels}: topic 'q' doc 'b': grade 2147483648 is above 1000, the largest grade `score` accepts "
        "(trec_eval's measures walk every grade level up to the largest); rescale the grades, or use "
        "`trec-toolkit trec_eval`, which reads them as trec_eval does\n"
    )


SCORE_MEASURES = (
    "P@5 P@100 AP AP@10 RR nDCG nDCG@10 Rprec Bpref R@100 Success@1 SetP SetR SetF SetAP infAP IPrec@0.5 "
    "NumRel NumRet NumRet(rel=1) NumQ"
)


def test_score_format_trec_prints_trec_eval_lines() -> None:
    # results.trunc lacks topic 302 and carries text after column 6: score reads it like trec_eval -c
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit",
            "score",
            str(DATA / "results.trunc"),
            "--qrels",
            str(DATA / "qrels.test"),
        ]
        + ["--measures", SCORE_MEASURES, "--format", "trec", "--per-query"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    ours = done.stdout.splitlines()
    assert "runid                 \tall\tresults.trunc" in ours
    theirs = (DATA / "out.test.aqc").read_text().splitlines()  # trec_eval -m all_trec -q -c
    printed_lines = [line for line in ours if not line.startswith("runid ")]
    assert len(printed_lines) == 21 * 4 - 3  # every measure for 3 topics + all; num_q only for all
    positions = [theirs.index(line) for line in printed_lines]  # each line is one trec_eval printed …
    assert positions == sorted(positions)  # … in trec_eval's order


def test_score_ignores_text_after_column_6_with_one_warning_or_refuses_it_strict() -> None:
    trunc = DATA / "results.trunc"
    extra = [n for n, line in enumerate(trunc.read_text().splitlines(), 1) if len(line.split()) > 6]
    args = [sys.executable, "-m", "toolkit", "score", str(trunc), "--qrels", str(DATA / "qrels.test")]
    done = subprocess.run([*args, "--measures", "P@5"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0
    assert done.stderr == (
        f"Warning: {trunc}: {len(extra)} line(s) have text after column 6 (first: line {extra[0]}); it is "
        "ignored, as trec_eval ignores it (--strict refuses such lines)\n"
    )
    done = subprocess.run([*args, "--strict"], capture_output=True, text=True, timeout=300)
    fields = len(trunc.read_text().splitlines()[extra[0] - 1].split())
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"Error: {trunc}:{extra[0]}: expected 6 columns (query_id Q0 doc_id rank score run_tag), found "
        f"{fields}; text after column 6 is refused with --strict (trec_eval ignores it)\n"
    )
