"""The speed-ups must not change a single value: the column reader, the compact rankings, the vectorised scorer."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.formats import ranked, read_qrels, read_run, tables
from toolkit.formats.run import read_run_lines
from toolkit.scoring import evaluate

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

MEASURES = (
    "P@5 P@100 P(rel=2)@10 AP AP@100 RR RR@10 RR(rel=2)@5 Rprec nDCG nDCG@10 Bpref Success@1 R@100 "
    "NumRet NumRet(rel=1) NumRel Judged@10 infAP SetP nDCG(gains={0:1,1:2})@10 P(judged_only=True)@5"
)


def test_compact_results_behave_like_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "r.run"
    path.write_text("q Q0 b 1 2.0 t\nq Q0 a 2 2.0 t\nq Q0 c 3 5 t\nr Q0 x 1 1 t\n")
    run = read_run(path)
    assert isinstance(run.results, ranked.RankedResults)
    topic = run.results["q"]
    assert list(topic) == ["c", "b", "a"] == run.ranking("q")
    assert topic.items() == [("c", 5.0), ("b", 2.0), ("a", 2.0)]
    assert topic["a"] == 2.0 and "a" in topic and "z" not in topic and len(topic) == 3
    assert run.results.get("missing") is None and run.ranking("missing") == []
    assert dict(run.results["r"]) == {"x": 1.0}
    assert len(run) == 4


def test_topics_coming_back_across_blocks_match_the_line_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"t{q % 7} Q0 d{q}-{d} {d} {(q * 31 + d * 17) % 11} run\n" for q in range(40) for d in range(25)]
    path = tmp_path / "mixed.run"
    path.write_text("".join(lines))  # topics t0…t6 come back again and again, across blocks
    monkeypatch.setattr(tables, "BLOCK_BYTES", 512)
    parsed = ranked.read_ranked(path)
    assert parsed is not None
    results = ranked.RankedResults(parsed[0])
    slow = read_run_lines(path)
    assert parsed[1].split(b" ")[5] == b"run"
    assert list(results) == list(slow.results)
    for query_id in slow.results:
        assert results.ranking(query_id) == slow.ranking(query_id)
        assert dict(results[query_id]) == dict(slow.results[query_id])


def test_duplicate_across_blocks_is_still_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [f"q Q0 d{d} {d} 1 run\n" for d in range(100)] + ["q Q0 d5 101 0 run\n"]
    path = tmp_path / "dup.run"
    path.write_text("".join(lines))
    monkeypatch.setattr(tables, "BLOCK_BYTES", 256)
    with pytest.raises(Exception, match=r"dup.run:101: duplicate doc 'd5' for query 'q'"):
        read_run(path)


def test_evaluate_same_on_compact_and_dict_runs(tmp_path: Path) -> None:
    qrels = read_qrels(DATA / "qrels.test")
    spaced = tmp_path / "results.test"  # single spaces: the layout the compact reader takes
    spaced.write_text(
        "".join(" ".join(line.split()) + "\n" for line in (DATA / "results.test").read_text().splitlines())
    )
    fast = read_run(spaced)
    assert isinstance(fast.results, ranked.RankedResults)
    slow = read_run_lines(DATA / "results.test")
    assert (
        evaluate(fast, qrels, measures=MEASURES).per_query
        == evaluate(slow, qrels, measures=MEASURES).per_query
    )
