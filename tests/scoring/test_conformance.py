"""Our scores equal trec_eval's printed values on trec_eval's own test files (tests/data/trec_eval/).

Expected values are parsed from the ``out.*`` files trec_eval printed (see tests/data/trec_eval/README.md for
the invocations); nothing is pasted. Each value is compared at trec_eval's printed precision (4 decimals,
integers for counts).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import ToolkitWarning
from toolkit.formats import read_qrels, read_run
from toolkit.model import Run
from toolkit.scoring import evaluate

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

#: trec_eval measure name → our measure at relevance level 1 (``{rel}`` is filled for ``-l2``).
TREC_MEASURES: dict[str, str] = {
    **{f"P_{k}": f"P{{rel}}@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    "map": "AP{rel}",
    "recip_rank": "RR{rel}",
    "Rprec": "Rprec{rel}",
    "ndcg": "nDCG",
    **{f"ndcg_cut_{k}": f"nDCG@{k}" for k in (5, 10, 15, 20, 30)},
    "bpref": "Bpref{rel}",
    "num_rel": "NumRel{rel}",
    "num_rel_ret": "NumRet(rel={level})",
    "num_ret": "NumRet",
    **{f"success_{k}": f"Success{{rel}}@{k}" for k in (1, 5, 10)},
    **{f"iprec_at_recall_{k / 10:.2f}": f"IPrec{{rel}}@{k / 10}" for k in range(11)},
}


def measure_map(level: int) -> dict[str, str]:
    rel = "" if level == 1 else f"(rel={level})"
    return {t: ours.format(rel=rel, level=level) for t, ours in TREC_MEASURES.items()}


def expected(path: Path, names: set[str]) -> dict[tuple[str, str], str]:
    """``(trec measure, query_id|all) → printed value`` for the measures we reproduce."""
    out: dict[tuple[str, str], str] = {}
    for line in path.read_text().splitlines():
        measure, query_id, value = (part.strip() for part in line.split("\t"))
        if measure in names:
            out[(measure, query_id)] = value
    return out


def printed(value: float, like: str) -> str:
    return str(int(value)) if "." not in like else f"{value:.4f}"


def check(run: Run, qrels_path: Path, out_path: Path, level: int = 1) -> int:
    mapping = measure_map(level)
    want = expected(out_path, set(mapping))
    qrels = read_qrels(qrels_path)
    scores = evaluate(run, qrels, measures=list(dict.fromkeys(mapping.values())))
    mismatches = []
    for (trec_name, query_id), value in want.items():
        ours = scores.aggregate if query_id == "all" else scores.per_query[query_id]
        got = printed(ours[mapping[trec_name]], value)
        if got != value:
            mismatches.append(f"{trec_name} {query_id}: trec_eval {value}, ours {got}")
    assert not mismatches, "\n".join(mismatches)
    return len(want)


def test_all_trec_per_query_matches_out_test_aq() -> None:
    run = read_run(DATA / "results.test")
    count = check(run, DATA / "qrels.test", DATA / "out.test.aq")
    # every listed measure for 3 topics + all was found in the file
    assert count == len(TREC_MEASURES) * 4


def test_complete_semantics_on_truncated_run_match_out_test_aqc() -> None:
    # results.trunc has no results for topic 302: under -c (our denominator rule) it counts with 0,
    # and num_rel keeps its qrels count as trec_eval prints it. Its lines carry text after column 6, which
    # trec_eval ignores and so does read_run, with one warning.
    with pytest.warns(ToolkitWarning, match="text after column 6"):
        run = read_run(DATA / "results.trunc")
    assert "302" not in run.results
    count = check(run, DATA / "qrels.test", DATA / "out.test.aqc")
    assert count == len(TREC_MEASURES) * 4
    scores = evaluate(run, read_qrels(DATA / "qrels.test"), measures="P@5")
    assert scores.empty == ("302",) and scores.n == 3


def test_relevance_level_2_matches_out_test_aql() -> None:
    run = read_run(DATA / "results.test")
    count = check(run, DATA / "qrels.rel_level", DATA / "out.test.aql", level=2)
    assert count == len(TREC_MEASURES) * 4


def test_qrels_with_comments_give_out_test() -> None:
    run = read_run(DATA / "results.test")
    count = check(run, DATA / "qrels.test.with-comments", DATA / "out.test")
    assert count >= 14  # the all-rows of out.test we compute (P_*, map, Rprec, bpref, recip_rank, num_*)


def test_with_comments_qrels_keep_docno_with_hash() -> None:
    qrels = read_qrels(DATA / "qrels.test.with-comments")
    assert qrels.judgments["301"]["CR#93E-1860"] == 0
