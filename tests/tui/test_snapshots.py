"""Snapshot tests of the screens (pytest-textual-snapshot; update with --snapshot-update).

Deterministic: fixed terminal size, timings hidden, the campaign built from fixed data. The judging screen
is drawn at 80×24 (the smallest terminal it must serve: every footer key and the item position visible),
110×36 and 160×48.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from tui_helpers import QUEUE, build_campaign, settle, steady

from toolkit.judging.store import CampaignStore
from toolkit.tui.adjudicate import adjudicate_app
from toolkit.tui.judge import judge_app
from toolkit.tui.progress import ProgressApp

SIZE = (110, 36)


def two_assessors(tmp_path: Path) -> Path:
    path = build_campaign(tmp_path / "example.sqlite", assessors=("alice", "bob"))
    with CampaignStore.open(path) as store:
        for assessor, grades in (("alice", [3, 1, 0, 2]), ("bob", [1, 1, 0, 3])):
            for (query_id, doc_id), grade in zip(QUEUE, grades, strict=False):
                store.record(assessor, query_id, doc_id, grade=grade, duration_ms=1000)
        store.add_note("alice", "t1", "doc-a", "the protocol's own page")
        store.add_note("bob", "t1", "doc-a", "too short to be the answer")
    return path


@pytest.mark.parametrize("size", [(80, 24), SIZE, (160, 48)], ids=["80x24", "110x36", "160x48"])
def test_judging_screen(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    app = judge_app(
        build_campaign(tmp_path / "example.sqlite"), "alice", show_times=False, doc_format="markdown"
    )

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("2")
        await steady(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_queue_done_screen(snap_compare, tmp_path: Path) -> None:
    app = judge_app(build_campaign(tmp_path / "example.sqlite", QUEUE[:2]), "alice", show_times=False)

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("2", "x")
        await steady(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_adjudication_screen(snap_compare, tmp_path: Path) -> None:
    app = adjudicate_app(two_assessors(tmp_path), "carol", show_times=False, doc_format="markdown")
    assert snap_compare(app, terminal_size=SIZE, run_before=steady)


def test_organiser_screen(snap_compare, tmp_path: Path) -> None:
    app = ProgressApp(two_assessors(tmp_path), interval=0, show_times=False)
    assert snap_compare(app, terminal_size=(160, 48), run_before=steady)
