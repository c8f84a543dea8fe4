"""Pilot tests of `adjudicate` and of the organiser's screen, asserting on the campaign store.

The organiser's report itself is tested without Textual: tests/judging/test_progress.py (counts) and
tests/agreement/test_agreement_campaign.py (live kappa)."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import QUEUE, async_test, build_campaign, settle

from toolkit.judging.store import CampaignStore
from toolkit.tui.adjudicate import AssessorsPanel, adjudicate_app
from toolkit.tui.progress import ProgressApp
from toolkit.tui.screens import DoneScreen
from toolkit.tui.widgets import DocumentView

SIZE = (110, 36)

#: alice and bob on the first four items of QUEUE: spreads 3 (doc-a), 1 (doc-b), 0 (doc-c), 2 (doc-d).
GRADES = {"alice": [3, 1, 0, 2], "bob": [0, 2, 0, 0]}


def disagreeing(tmp_path: Path) -> Path:
    path = build_campaign(tmp_path / "adj.sqlite", assessors=("alice", "bob"))
    with CampaignStore.open(path) as store:
        for assessor, grades in GRADES.items():
            for (query_id, doc_id), grade in zip(QUEUE, grades, strict=False):
                store.record(assessor, query_id, doc_id, grade=grade, duration_ms=1000 + 100 * grade)
        store.add_note("bob", "t1", "doc-a", "only the title matches")
    return path


@async_test
async def test_adjudication_walks_widest_disagreement_first_and_records_grades(tmp_path: Path) -> None:
    path = disagreeing(tmp_path)
    app = adjudicate_app(path, "carol", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.query_one(DocumentView)
        assert view.doc_id == "doc-a"  # spread 3
        panel = str(app.query_one(AssessorsPanel).render())
        assert "alice: grade 3" in panel and "bob: grade 0" in panel and "only the title matches" in panel
        await pilot.press("c", *"title", "enter", "2")
        await settle(pilot)
        assert view.doc_id == "doc-d"  # spread 2
        await pilot.press("s")  # leave doc-d for later
        await settle(pilot)
        assert view.doc_id == "doc-b"  # spread 1
        await pilot.press("1")
        await settle(pilot)
        assert view.doc_id == "doc-d"  # the skipped one comes round again
        await pilot.press("u")  # undo doc-b's adjudication
        await settle(pilot)
        assert view.doc_id == "doc-b"
        await pilot.press("2", "3")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
    with CampaignStore.open(path) as store:
        adjudicated = {key: (j.assessor, j.grade, j.note) for key, j in store.adjudications().items()}
        assert [(e.action, e.doc_id) for e in store.log() if e.assessor == "carol"] == [
            ("adjudicate", "doc-a"),
            ("adjudicate", "doc-b"),
            ("undo", "doc-b"),
            ("adjudicate", "doc-b"),
            ("adjudicate", "doc-d"),
        ]
    assert adjudicated == {
        ("t1", "doc-a"): ("carol", 2, "title"),
        ("t1", "doc-b"): ("carol", 2, None),
        ("t2", "doc-d"): ("carol", 3, None),
    }


@async_test
async def test_adjudication_before_anyone_judged_says_so_not_all_adjudicated(tmp_path: Path) -> None:
    path = build_campaign(tmp_path / "fresh.sqlite", assessors=("alice", "bob"))
    with CampaignStore.open(path) as store:
        store.record("alice", "t1", "doc-a", grade=3)  # one assessor's grade is nothing to compare yet
    app = adjudicate_app(path, "carol", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        assert app.screen.title_text == "Nothing to adjudicate"
        assert "No item has two assessors' grades yet" in app.screen.summary.plain
        assert "adjudicated" not in app.screen.summary.plain
        await pilot.press("q")
    assert app.return_value == "No item has two assessors' grades yet: nothing to adjudicate.\n"


@async_test
async def test_adjudication_when_everyone_agrees_says_so(tmp_path: Path) -> None:
    path = build_campaign(tmp_path / "agree.sqlite", assessors=("alice", "bob"))
    with CampaignStore.open(path) as store:
        for assessor in ("alice", "bob"):
            store.record(assessor, "t1", "doc-a", grade=2)
    app = adjudicate_app(path, "carol", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        assert app.screen.summary.plain.startswith("No disagreements to adjudicate: every item graded by two")


@async_test
async def test_progress_screen_refreshes_from_the_store(tmp_path: Path) -> None:
    path = disagreeing(tmp_path)
    app = ProgressApp(path, interval=0, show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.report is not None and app.report.totals[0].judged == 4
        with CampaignStore.open(path) as store:
            store.record("alice", "t2", "doc-e", grade=1)
        await pilot.press("r")
        await settle(pilot)
        assert app.report.totals[0].judged == 5
        assert app.report.totals[0].remaining == 0


@async_test
async def test_organiser_screen_shows_time_gold_and_fast_grades(tmp_path: Path) -> None:
    from textual.widgets import DataTable

    path = disagreeing(tmp_path)  # every decision took ≥ 1000 ms
    with CampaignStore.open(path) as store:
        store.record("alice", "t2", "doc-e", grade=1, duration_ms=200)  # too fast to have read it
    app = ProgressApp(path, interval=0, show_times=True, fast_below_ms=1000)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        totals = app.query_one("#totals", DataTable)
        headers = [str(c.label) for c in totals.columns.values()]
        assert headers[-4:] == ["time left", "finish ≈", "gold", "<1 s"]
        alice = [str(v) for v in totals.get_row_at(0)]
        # alice: 5 judged (4 + the fast one), 0 left → done; reading time 1300+1100+1000+1200+200 = 4800 ms ≈ 5 s
        assert alice[0] == "alice" and alice[2] == "5" and alice[5] == "0"
        assert alice[7] == "5 s" and alice[9] == "done" and alice[-1] == "1"
        bob = [str(v) for v in totals.get_row_at(1)]
        # bob: 4 judged, 1 left at his median (1000, 1200, 1000, 1000 → 1000 ms) → about 1 s left
        assert bob[5] == "1" and bob[8] == "1 s" and bob[-1] == "0"
        summary = str(app.query_one("#summary").render())
        assert "Grades faster than 1 s: 1: alice:t2/doc-e (200 ms)" in summary
        assert app.query_one("#sessions", DataTable).row_count == 2


@async_test
async def test_names_notes_and_ids_are_shown_not_obeyed_on_the_other_screens(tmp_path: Path) -> None:
    from tui_helpers import TOPICS, screen_text

    from toolkit.judging.records import CampaignTopic

    topics = [CampaignTopic("[b]t1", "hashable \x1b]2;X\x07", "d", "n", "prose"), TOPICS[1]]
    queue = [("[b]t1", "doc-a"), ("[b]t1", "doc-b")]
    path = build_campaign(tmp_path / "esc.sqlite", queue, assessors=("alice", "bob"), topics=topics)
    with CampaignStore.open(path) as store:
        store.record("alice", "[b]t1", "doc-a", grade=3)
        store.record("bob", "[b]t1", "doc-a", grade=0, note="see \x1b[2J[red]here[/red]")
    app = adjudicate_app(path, "carol", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "see ␛[2J[red]here[/red]" in text and "hashable ␛]2;X␇" in text and "[b]t1" in text
        assert "\x1b" not in app.export_screenshot()
    organiser = ProgressApp(path, interval=0, show_times=False)
    async with organiser.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "[b]t1" in screen_text(organiser)  # an id that looks like markup is shown as it is


@async_test
async def test_progress_refreshes_never_overlap_when_a_report_outlasts_the_interval(
    tmp_path: Path, monkeypatch
) -> None:
    """At 171,000 items a report takes seconds; a timer firing every 0.05 s must not start a second report
    while one runs (each would open a connection and a thread, and they would pile up without end)."""
    import threading
    import time

    import toolkit.tui.progress as progress_screen

    path = disagreeing(tmp_path)
    slow = progress_screen.progress_report
    running, most, calls = 0, 0, 0
    lock = threading.Lock()

    def slow_report(*args, **kwargs):
        nonlocal running, most, calls
        with lock:
            running += 1
            calls += 1
            most = max(most, running)
        try:
            time.sleep(0.4)
            return slow(*args, **kwargs)
        finally:
            with lock:
                running -= 1

    monkeypatch.setattr(progress_screen, "progress_report", slow_report)
    app = ProgressApp(path, interval=0.05, show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(1.5)
        assert app.report is not None  # refreshes still happen, one after another
        with CampaignStore.open(path) as store:
            store.record("alice", "t2", "doc-e", grade=1)
        await pilot.press("r")  # asked for while a report runs: computed right after it
        await pilot.pause(1.2)
        assert app.report.totals[0].judged == 5
    assert most == 1 and 2 <= calls <= 8, (most, calls)


@async_test
async def test_a_report_tables_header_keeps_up_with_its_columns() -> None:
    """A header painted after rows were added but before the table measured them (the screen refreshing
    meanwhile) is drawn again at the columns' new widths. Textual's own table keeps the narrow header — the
    same steps on it are the control — which left the organiser's kappa header narrower than its rows now
    and then (a snapshot test failed about once in eight suite runs)."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    from toolkit.tui.widgets import ReportTable

    class Holder(App[None]):
        CSS = "DataTable { height: 8; width: 100; }"  # a fixed size: widening a column resizes nothing

        def __init__(self, table: DataTable[object]) -> None:
            super().__init__()
            self.table = table

        def compose(self) -> ComposeResult:
            yield self.table

    async def header_after_widening(table: DataTable[object]) -> tuple[object, object]:
        async with Holder(table).run_test(size=(120, 20)) as pilot:
            table.add_columns("pair", "kappa")
            table.add_row("alice–bob", "0.333")
            await pilot.pause()
            table.add_row("alice–carol", "undefined: no graded item in common")
            table.render_line(0)  # the header painted before the table is idle
            await pilot.pause()
            await pilot.pause()
            shown = table.render_line(0)
            table.notify_style_update()  # nothing cached: drawn afresh
            return shown, table.render_line(0)

    shown, fresh = await header_after_widening(DataTable(cursor_type="none"))
    assert shown != fresh  # the control: Textual's table shows the header it cached
    shown, fresh = await header_after_widening(ReportTable(cursor_type="none"))
    assert shown == fresh


@async_test
async def test_a_report_that_ends_after_its_tables_are_gone_is_dropped(tmp_path: Path, monkeypatch) -> None:
    """A report still computing beside the screen when the app closes arrives after the screen's tables
    were removed: it is dropped. It was applied and raised ``NoMatches`` for ``#totals``, which failed the
    worker and so the app on its way out (a traceback on quitting the organiser's screen at real size)."""
    import threading

    import toolkit.tui.progress as progress_screen

    path = disagreeing(tmp_path)
    real = progress_screen.progress_report
    gate = threading.Event()

    def held_report(*args, **kwargs):
        gate.wait(10)
        return real(*args, **kwargs)

    app = ProgressApp(path, interval=0, show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.5)
        await app.query_one("#organiser").remove()  # what closing the app does to the screen's widgets
        monkeypatch.setattr(progress_screen, "progress_report", held_report)
        app.action_refresh()
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        failed = [w for w in app.workers if w.error is not None]
        assert not failed, [repr(w.error) for w in failed]
