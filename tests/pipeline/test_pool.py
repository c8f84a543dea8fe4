"""Pooling in a workspace: settings resolved once, named progress steps from the start, guidelines stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import make_workspace

from toolkit.judging.store import CampaignStore
from toolkit.pipeline.pool import pool_runs
from toolkit.workspace import load_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    make_workspace(
        tmp_path,
        topics="q1\tapple\nq2\tpear\n",
        topics_file="topics.tsv",
        workspace={"depth": 1, "workers": 3},
        tables={"docs": {"path": "corpus.jsonl"}, "judge": {"guidelines": "judging/guidelines.md"}},
    )
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\nq2 Q0 d3 1 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 2 b\nq2 Q0 d3 1 1 b\n")
    (tmp_path / "corpus.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "text": f"text {d}"}) + "\n" for d in ("d1", "d2", "d3"))
    )
    (tmp_path / "judging").mkdir()
    (tmp_path / "judging" / "guidelines.md").write_text("Grade what the user wants.\n")
    return tmp_path


def test_progress_names_each_step_and_counts_from_the_start(ws: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    result = pool_runs(
        load_workspace(start=ws),
        [ws / "a.run", ws / "b.run"],
        ws / "judging" / "c.sqlite",
        progress=lambda step, done, total: calls.append((step, done, total)),
    )
    # depth 1 ([workspace] depth): q1 → d1 (a), d2 (b); q2 → d3
    assert (result.pooled, result.queued, result.unassigned) == (3, 3, 3)
    steps = list(dict.fromkeys(step for step, _, _ in calls))
    assert len(steps) == 2 and steps[0] == "read runs"
    assert steps[1].startswith("fetch docs (3 at a time) from ") and steps[1].endswith("corpus.jsonl")
    assert calls[0] == ("read runs", 0, 2)
    fetch = [(d, t) for s, d, t in calls if s == steps[1]]
    assert fetch[0] == (0, 3) and fetch[-1] == (3, 3)
    with CampaignStore.open(ws / "judging" / "c.sqlite") as store:
        assert store.meta()["guidelines"] == "Grade what the user wants.\n"
        assert [r.runs for r in store.rounds()] == [("a", "b")]


def test_the_option_wins_over_the_workspace(ws: Path) -> None:
    result = pool_runs(
        load_workspace(start=ws),
        [ws / "a.run"],
        ws / "c.sqlite",
        depth=2,
        workers=1,
        topics=ws / "topics.tsv",
    )
    assert result.pooled == 3  # q1: d1 d2; q2: d3
