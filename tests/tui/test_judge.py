"""Pilot tests of the judging app: every key is checked against what the campaign store holds afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import QUEUE, async_test, build_campaign, settle

from toolkit.judging.progress import progress
from toolkit.judging.queue import next_item
from toolkit.judging.store import CampaignStore
from toolkit.tui.judge import JudgeApp, judge_app
from toolkit.tui.screens import DoneScreen, NoteScreen, TextScreen
from toolkit.tui.widgets import DocumentView

SIZE = (110, 36)


def shown(app: JudgeApp) -> str | None:
    return app.query_one(DocumentView).doc_id


def current(path: Path, doc_id: str, assessor: str = "alice"):
    query_id = dict((d, q) for q, d in QUEUE)[doc_id]
    with CampaignStore.open(path) as store:
        return store.current(assessor, query_id, doc_id)


@async_test
async def test_a_grade_is_in_the_store_before_the_next_document_shows(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(app) == "doc-a"
        await pilot.press("2")
        # The store is read through a second connection while the app is still running.
        judgment = current(campaign, "doc-a")
        assert judgment is not None and (judgment.action, judgment.grade) == ("judge", 2)
        assert judgment.duration_ms is not None and judgment.duration_ms >= 0
        await settle(pilot)
        assert shown(app) == "doc-b"
    with CampaignStore.open(campaign) as store:
        (event,) = store.log()
        assert (event.assessor, event.query_id, event.doc_id, event.grade, event.position) == (
            "alice",
            "t1",
            "doc-a",
            2,
            0,
        )


@async_test
async def test_undo_goes_back_to_the_previous_item_and_appends_to_the_log(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2", "1")
        await settle(pilot)
        assert shown(app) == "doc-c"
        await pilot.press("u")
        await settle(pilot)
        assert shown(app) == "doc-b"
        assert current(campaign, "doc-b") is None
        await pilot.press("3")
        await settle(pilot)
        assert shown(app) == "doc-c"
    assert current(campaign, "doc-a").grade == 2
    assert current(campaign, "doc-b").grade == 3
    with CampaignStore.open(campaign) as store:
        actions = [(e.action, e.doc_id, e.grade) for e in store.log()]
    assert actions == [
        ("judge", "doc-a", 2),
        ("judge", "doc-b", 1),
        ("undo", "doc-b", None),
        ("judge", "doc-b", 3),
    ]


@async_test
async def test_skip_and_unrateable_are_not_grades_and_skipped_items_come_back_last(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s", "x")
        await settle(pilot)
        assert current(campaign, "doc-a").action == "skip"
        assert current(campaign, "doc-a").grade is None
        assert current(campaign, "doc-b").action == "unrateable"
        assert shown(app) == "doc-c"
        await pilot.press("0", "1", "2")
        await settle(pilot)
        assert shown(app) == "doc-a"  # the skipped item, once everything else is decided
        await pilot.press("3")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
    with CampaignStore.open(campaign) as store:
        assert next_item(store, "alice") is None
        rows = {r.query_id: r for r in progress(store)}
    assert (rows["t1"].judged, rows["t1"].unrateable, rows["t1"].skipped, rows["t1"].remaining) == (
        2,
        1,
        0,
        0,
    )
    assert (rows["t2"].judged, rows["t2"].remaining) == (2, 0)


@async_test
async def test_a_note_is_kept_with_the_judgment(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"vague", "enter")
        await settle(pilot)
        assert shown(app) == "doc-a"  # a note does not move on
        await pilot.press("1")
        await settle(pilot)
        # a note on a judged item, after the fact
        await pilot.press("p", "c")
        await pilot.press("ctrl+a", "ctrl+k", *"later", "enter")
        await settle(pilot)
    judgment = current(campaign, "doc-a")
    assert (judgment.grade, judgment.note) == (1, "later")


@async_test
async def test_escape_cancels_a_note_and_digits_typed_into_it_are_not_grades(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c", "2", "3", "s", "escape")
        await settle(pilot)
        assert shown(app) == "doc-a"
    with CampaignStore.open(campaign) as store:
        assert store.log() == []


@async_test
async def test_quit_and_resume_where_the_assessor_stopped(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3", "0", "q")
    assert app.return_code == 0
    with CampaignStore.open(campaign) as store:
        expected = next_item(store, "alice")
    assert expected is not None and expected.doc_id == "doc-c"
    again = judge_app(campaign, "alice", show_times=False)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(again) == "doc-c"
        assert again.session.item == expected
        progress = again.session.progress()
        assert (progress.overall.judged, progress.overall.remaining) == (2, 3)
        assert (progress.topic.judged, progress.topic.remaining) == (2, 1)


@async_test
async def test_next_and_previous_move_without_recording(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n", "n")
        await settle(pilot)
        assert shown(app) == "doc-c"
        await pilot.press("p")
        await settle(pilot)
        assert shown(app) == "doc-b"
        await pilot.press("p", "p")  # already at the first item: stays
        await settle(pilot)
        assert shown(app) == "doc-a"
    with CampaignStore.open(campaign) as store:
        assert store.log() == []


@async_test
async def test_the_assessor_never_sees_other_assessors_grades_runs_or_ranks(tmp_path: Path) -> None:
    path = build_campaign(tmp_path / "two.sqlite", assessors=("alice", "bob"))
    with CampaignStore.open(path) as store:
        store.record("bob", "t1", "doc-a", grade=3, note="bob-secret-note")
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.export_screenshot()
    assert "doc-a" in screen
    for hidden in ("bob", "bob-secret-note", "bm25", "bm25f", "rank"):
        assert hidden not in screen
    assert app.session.decision(app.session.queue[0]) is None  # bob's grade is not alice's decision


@async_test
async def test_the_done_screen_and_undo_from_it(tmp_path: Path) -> None:
    path = build_campaign(tmp_path / "one.sqlite", [("t2", "doc-d")])
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        await pilot.press("2")  # grades do nothing on the done screen
        await pilot.press("u")
        await settle(pilot)
        assert not isinstance(app.screen, DoneScreen)
        assert shown(app) == "doc-d"
    with CampaignStore.open(path) as store:
        assert [e.action for e in store.log()] == ["judge", "undo"]
        assert next_item(store, "alice").doc_id == "doc-d"


@async_test
async def test_keys_can_be_remapped(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False, keymap={"skip": "k", "grade-3": "f"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")  # no longer bound
        await pilot.press("k", "f")
        await settle(pilot)
        assert app.grade_keys()[3] == "f"
    assert current(campaign, "doc-a").action == "skip"
    assert current(campaign, "doc-b").grade == 3


@async_test
async def test_find_scrolls_to_the_match(tmp_path: Path) -> None:
    long_text = "\n\n".join(f"Paragraph {i} about nothing in particular." for i in range(120))
    long_text += "\n\nThe needle is here."
    docs = {"doc-long": ("Long page", long_text)}
    path = build_campaign(tmp_path / "long.sqlite", [("t1", "doc-long")], docs=docs)
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.query_one(DocumentView)
        assert view.scroll_y == 0
        await pilot.press("slash", *"needle", "enter")
        await settle(pilot)
        assert view.scroll_y > 100
        await pilot.press("slash", *"zzz", "enter")
        await settle(pilot)
    with CampaignStore.open(path) as store:
        assert store.log() == []


@async_test
async def test_help_and_guidelines_open_and_close(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False, guidelines="# Our rules\n\nBe kind.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, TextScreen)
        await pilot.press("2")  # a grade key inside a dialog does nothing
        await pilot.press("escape", "g")
        assert isinstance(app.screen, TextScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, TextScreen)
    with CampaignStore.open(campaign) as store:
        assert store.log() == []


def test_an_assessor_without_items_gets_a_clear_error(campaign: Path) -> None:
    from toolkit.errors import StoreError

    with pytest.raises(
        StoreError, match="assessor 'zoe' has no items in this campaign \\(assessors: alice\\)"
    ):
        judge_app(campaign, "zoe")


@async_test
async def test_a_stale_item_judged_on_old_text_is_shown_again_first(campaign: Path) -> None:
    from tui_helpers import snapshot

    with CampaignStore.open(campaign) as store:
        store.record("alice", "t1", "doc-a", grade=3)
        store.record("alice", "t1", "doc-b", grade=1)
        # Round 2: doc-a's text changed since alice judged it, so the pool flags it stale.
        store.add_round(
            strategy="depth",
            depth=10,
            budget=None,
            runs=["bm25"],
            provenance={("t1", "doc-a"): [("bm25", 1)]},
            queued=[("t1", "doc-a")],
            stale=[("t1", "doc-a")],
            snapshots=[snapshot("doc-a", "Hashable", "# Hashable\n\nRewritten page.")],
            skipped=0,
        )
        expected = next_item(store, "alice")
    assert expected is not None and expected.doc_id == "doc-a" and expected.stale
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(app) == "doc-a"
        assert "re-queued: the text changed" in app.export_screenshot().replace("&#160;", " ")
        assert app.session.tally("t1").remaining == 2  # doc-a again, and doc-c
        await pilot.press("2")
        await settle(pilot)
        assert shown(app) == "doc-c"
    assert current(campaign, "doc-a").grade == 2


def test_query_terms_are_highlighted_in_rendered_markdown() -> None:
    from rich.console import Console

    from toolkit.judging.records import Document
    from toolkit.tui.widgets import TERM_STYLE, render_document

    console = Console(width=60)
    doc = Document("d", "t", "# Hashable\n\nA `Hasher` feeds **hash** values.", None)
    lines = render_document(doc, "the Hash protocol", doc_format="markdown").lines(console, console.options)
    painted = [
        line.plain[span.start : span.end]
        for line in lines
        for span in line.spans
        if str(span.style) == TERM_STYLE
    ]
    # "hash" is matched case-insensitively inside words; "the" is a stopword, "protocol" is absent.
    assert [p.lower() for p in painted] == ["hash", "hash", "hash"]
    assert "#" not in "".join(line.plain for line in lines)  # rendered as Markdown, not shown raw


@async_test
async def test_arrow_keys_scroll_the_document(tmp_path: Path) -> None:
    text = "\n\n".join(f"Paragraph {i}." for i in range(80))
    path = build_campaign(tmp_path / "long.sqlite", [("t1", "doc-long")], docs={"doc-long": ("Long", text)})
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.query_one(DocumentView)
        assert app.focused is view
        await pilot.press("down", "down", "pagedown")
        await settle(pilot)
        assert view.scroll_y > 2
