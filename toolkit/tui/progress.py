"""The organiser's screen (``trec-toolkit progress CAMPAIGN`` / ``judge CAMPAIGN --progress``).

Per assessor and topic: assigned, judged, skipped, unrateable, remaining and median time per judgment
(``toolkit.judging.progress``); live Cohen's kappa for every pair of assessors on what both have graded so far
(``toolkit.agreement.judgments.pair_kappas``); the stale items. The report is
recomputed in a thread worker (with its own connection) every few seconds, so assessors judging into the same
file are never blocked and the screen never freezes.

This screen is for the organiser: unlike the judging screen it may show who graded what.
"""

from __future__ import annotations

import time
from pathlib import Path

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Header, Label, Static

from toolkit.agreement.judgments import PairKappa, pair_kappas
from toolkit.judging.progress import ProgressReport, progress_report
from toolkit.judging.store import CampaignStore

CSS_FILE = Path(__file__).with_name("app.tcss")


def seconds(ms: float | None) -> str:
    return "–" if ms is None else f"{ms / 1000:.1f} s"


class ProgressApp(App[None]):
    """A read-only, periodically refreshed view of a campaign."""

    CSS_PATH = str(CSS_FILE)
    TITLE = "trec-toolkit progress"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("r", "refresh", "Refresh", id="refresh"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(self, path: str | Path, *, interval: float = 2.0, show_times: bool = True) -> None:
        super().__init__()
        self.path = Path(path)
        self.interval = interval
        self.show_times = show_times
        self.sub_title = self.path.stem
        self.report: ProgressReport | None = None
        self.pairs: tuple[PairKappa, ...] = ()

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with VerticalScroll(id="organiser"):
            yield Label("Assessors", classes="dialog-title")
            yield DataTable(id="totals", classes="report", cursor_type="none", zebra_stripes=True)
            yield Label(
                "Agreement (Cohen's kappa, unweighted, on shared graded items)", classes="dialog-title"
            )
            yield DataTable(id="pairs", classes="report", cursor_type="none")
            yield Label("Per assessor and topic", classes="dialog-title")
            yield DataTable(id="topics", classes="report", cursor_type="none", zebra_stripes=True)
            yield Static(id="summary", classes="report")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#totals", DataTable).add_columns(
            "assessor", "assigned", "judged", "skipped", "unrateable", "remaining", "median/judgment"
        )
        self.query_one("#pairs", DataTable).add_columns("assessor A", "assessor B", "shared", "kappa")
        self.query_one("#topics", DataTable).add_columns(
            "assessor", "topic", "assigned", "judged", "skipped", "unrateable", "remaining", "median"
        )
        self.action_refresh()
        if self.interval > 0:
            self.set_interval(self.interval, self.action_refresh)

    def action_refresh(self) -> None:
        self.compute()

    @work(thread=True, exclusive=True, group="report")
    def compute(self) -> None:
        with CampaignStore.open(self.path) as store:
            report = progress_report(store)
            pairs = tuple(pair_kappas(store))
        self.call_from_thread(self.show_report, report, pairs)

    def show_report(self, report: ProgressReport, pairs: tuple[PairKappa, ...]) -> None:
        self.report, self.pairs = report, pairs
        times = self.show_times
        totals = self.query_one("#totals", DataTable)
        totals.clear()
        for t in report.totals:
            totals.add_row(
                t.assessor,
                t.assigned,
                t.judged,
                t.skipped,
                t.unrateable,
                t.remaining,
                seconds(t.median_ms) if times else "",
            )
        table = self.query_one("#pairs", DataTable)
        table.clear()
        for p in pairs:
            table.add_row(
                p.a, p.b, p.n, f"{p.kappa:.3f}" if p.kappa is not None else f"undefined: {p.reason}"
            )
        topics = self.query_one("#topics", DataTable)
        topics.clear()
        for r in report.progress:
            topics.add_row(
                r.assessor,
                r.query_id,
                r.assigned,
                r.judged,
                r.skipped,
                r.unrateable,
                r.remaining,
                seconds(r.median_ms) if times else "",
            )
        stale = ", ".join(f"{i.assessor}:{i.query_id}/{i.doc_id}" for i in report.stale) or "none"
        summary = (
            f"Disagreements: {report.disagreements} ({report.adjudicated} adjudicated)\n"
            f"Stale items (text changed since judged): {stale}"
        )
        if report.pool is not None:
            pool = report.pool
            summary += (
                f"\nPool: round {pool.round}, {pool.pooled} items; the round queued {pool.new_round} "
                f"({pool.new_round_unassigned} unassigned); unassigned overall: {pool.unassigned}"
            )
        if times:
            every = f"refreshes every {self.interval:g} s" if self.interval > 0 else "r refreshes"
            summary += f"\nUpdated {time.strftime('%H:%M:%S')} · {every}"
        self.query_one("#summary", Static).update(summary)
