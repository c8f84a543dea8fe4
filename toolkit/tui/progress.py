"""The organiser's screen (``trec-toolkit progress CAMPAIGN`` / ``judge CAMPAIGN --progress``).

Per assessor: counts (unrateable apart from judged), median time per judgment, time spent, the judging time
left at their pace and when they would finish if they judged on now, gold accuracy and grades given too fast
to be real reading (``toolkit.judging.progress``); their sessions; per assessor and topic, counts and time;
live Cohen's kappa for every pair of assessors on what both have graded so far
(``toolkit.agreement.judgments.pair_kappas``); the stale items and the fast grades. The report is recomputed
in a thread worker (with its own connection) every few seconds, so assessors judging into the same file are
never blocked and the screen never freezes.

This screen is for the organiser: unlike the judging screen it may show who graded what. Every name and id
is shown through ``visible`` and as plain text (a DataTable would read a string as markup).
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import DataTable, Footer, Header, Label, Static
from textual.worker import Worker

from toolkit.agreement.judgments import PairKappa, pair_kappas
from toolkit.formats.text import visible
from toolkit.judging.progress import FAST_BELOW_MS, AssessorTotal, ProgressReport, progress_report
from toolkit.judging.records import ProgressRow
from toolkit.judging.store import CampaignStore, campaign_label
from toolkit.tui.screens import duration
from toolkit.tui.widgets import ReportTable, clock_time

CSS_FILE = Path(__file__).with_name("app.tcss")
#: How many fast grades the summary lists by name (the count per assessor is in the table).
FAST_LISTED = 10


def seconds(ms: float | None) -> str:
    return "–" if ms is None else f"{ms / 1000:.1f} s"


def cell(text: str) -> Text:
    """A table cell from campaign data: controls made visible, never markup."""
    return Text(visible(text, one_line=True))


class ProgressApp(App[None]):
    """A read-only, periodically refreshed view of a campaign."""

    CSS_PATH = str(CSS_FILE)
    TITLE = "trec-toolkit progress"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("r", "refresh", "Refresh", id="refresh"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(
        self,
        path: str | Path,
        *,
        interval: float = 2.0,
        show_times: bool = True,
        fast_below_ms: int = FAST_BELOW_MS,
    ) -> None:
        super().__init__()
        self.path = path
        self.interval = interval
        self.show_times = show_times
        self.fast_below_ms = fast_below_ms
        self.sub_title = visible(campaign_label(self.path), one_line=True)
        self.report: ProgressReport | None = None
        self.pairs: tuple[PairKappa, ...] = ()
        self.again = False  # a refresh was asked for while a report was being computed

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with VerticalScroll(id="organiser"):
            yield Label("Assessors", classes="dialog-title")
            yield ReportTable(id="totals", classes="report", cursor_type="none", zebra_stripes=True)
            yield Label(
                "Agreement (Cohen's kappa, unweighted, on shared graded items)", classes="dialog-title"
            )
            yield ReportTable(id="pairs", classes="report", cursor_type="none")
            yield Label("Sessions (a pause over 30 min starts a new one)", classes="dialog-title")
            yield ReportTable(id="sessions", classes="report", cursor_type="none", zebra_stripes=True)
            yield Label("Per assessor and topic", classes="dialog-title")
            yield ReportTable(id="topics", classes="report", cursor_type="none", zebra_stripes=True)
            yield Static(id="summary", classes="report")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        fast = f"<{self.fast_below_ms / 1000:g} s"
        self.query_one("#totals", DataTable).add_columns(
            "assessor", "assigned", "judged", "unrateable", "skipped", "left", "median",
            "time", "time left", "finish ≈", "gold", fast,
        )  # fmt: skip
        self.query_one("#pairs", DataTable).add_columns("assessor A", "assessor B", "shared", "kappa")
        self.query_one("#sessions", DataTable).add_columns(
            "assessor", "started", "length", "decisions", "reading time"
        )
        self.query_one("#topics", DataTable).add_columns(
            "assessor", "topic", "assigned", "judged", "unrateable", "skipped", "left", "median", "time"
        )
        self.action_refresh()
        if self.interval > 0:
            self.set_interval(self.interval, self.action_refresh)

    def action_refresh(self) -> None:
        # One report at a time. On a big campaign a report outlasts the interval (171,000 items: seconds);
        # starting another each tick cancelled the one running (so none was ever shown) and piled up threads.
        if any(w.group == "report" and w.node is self and not w.is_finished for w in self.workers):
            self.again = True  # computed once the running one ends: what was judged meanwhile is shown
            return
        self.compute()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "report" and event.worker.is_finished and self.again:
            self.again = False
            self.action_refresh()  # a timer tick may have started one already

    @work(thread=True, group="report")
    def compute(self) -> None:
        with CampaignStore.open(self.path) as store:
            report = progress_report(store, fast_below_ms=self.fast_below_ms)
            pairs = tuple(pair_kappas(store))
        self.call_from_thread(self.show_report, report, pairs)

    def _time(self, text: str) -> str:
        return text if self.show_times else ""

    def _tally(self, counts: AssessorTotal | ProgressRow) -> tuple[object, ...]:
        """The columns the totals and the per-topic tables share, in their order: the counts and the times."""
        return (
            counts.assigned,
            counts.judged,
            counts.unrateable,
            counts.skipped,
            counts.remaining,
            self._time(seconds(counts.median_ms)),
            self._time(duration(counts.total_ms / 1000)),
        )

    def show_report(self, report: ProgressReport, pairs: tuple[PairKappa, ...]) -> None:
        """Show a report computed beside the screen. One that arrives after the screen's tables are gone (the
        app closing while it was computed: seconds at real size) is dropped — applied, its ``NoMatches`` failed
        the worker and so the app on its way out."""
        try:
            totals = self.query_one("#totals", DataTable)
        except NoMatches:
            return
        self.report, self.pairs = report, pairs
        now = dt.datetime.now()
        totals.clear()
        for t in report.totals:
            gold = (
                "–"
                if t.gold_accuracy is None
                else f"{t.gold_correct}/{t.gold_judged} ({t.gold_accuracy:.0%})"
            )
            left = "–" if t.left_ms is None else duration(t.left_ms / 1000)
            finish = (
                "–"
                if t.left_ms is None
                else "done"
                if not t.remaining
                else (now + dt.timedelta(milliseconds=t.left_ms)).strftime("%H:%M")
            )
            totals.add_row(
                cell(t.assessor),
                *self._tally(t),
                self._time(left),
                self._time(finish),
                gold,
                t.fast,
            )
        table = self.query_one("#pairs", DataTable)
        table.clear()
        for p in pairs:
            table.add_row(
                cell(p.a),
                cell(p.b),
                p.n,
                f"{p.kappa:.3f}" if p.kappa is not None else cell(f"undefined: {p.reason}"),
            )
        spans = self.query_one("#sessions", DataTable)
        spans.clear()
        for s in report.sessions:
            spans.add_row(
                cell(s.assessor),
                self._time(clock_time(s.started)),
                self._time(duration(s.wall_s)),
                s.decisions,
                self._time(duration(s.judging_ms / 1000)),
            )
        topics = self.query_one("#topics", DataTable)
        topics.clear()
        for r in report.progress:
            topics.add_row(
                cell(r.assessor),
                cell(r.query_id),
                *self._tally(r),
            )
        self.query_one("#summary", Static).update(self._summary(report))

    def _summary(self, report: ProgressReport) -> Text:
        text = Text(f"Disagreements: {report.disagreements} ({report.adjudicated} adjudicated)\n")
        stale = ", ".join(f"{i.assessor}:{i.query_id}/{i.doc_id}" for i in report.stale) or "none"
        text.append(visible(f"Stale items (text changed since judged): {stale}\n"))
        if report.pool is not None:
            pool = report.pool
            text.append(
                f"Pool: round {pool.round}, {pool.pooled} items; the round queued {pool.new_round} "
                f"({pool.new_round_unassigned} unassigned); unassigned overall: {pool.unassigned}\n"
            )
        if report.budget is not None:
            b = report.budget
            rate = "–" if b.per_judgment is None else f"{b.per_judgment:.2f}"
            text.append(
                f"Budget ({b.budget}, rounds {', '.join(map(str, b.rounds))}): {b.judged} of {b.selected} "
                f"selected documents judged ({b.spent:.0%}); {b.relevant} relevant found, {rate} per judgment\n"
            )
        limit = f"{report.fast_below_ms / 1000:g} s"
        if report.fast:
            listed = ", ".join(
                f"{f.assessor}:{f.query_id}/{f.doc_id} ({f.duration_ms} ms)"
                for f in report.fast[:FAST_LISTED]
            )
            more = f" and {len(report.fast) - FAST_LISTED} more" if len(report.fast) > FAST_LISTED else ""
            text.append(f"Grades faster than {limit}: ", style="bold")
            text.append(visible(f"{len(report.fast)}: {listed}{more}"))
        else:
            text.append(f"Grades faster than {limit}: none")
        if self.show_times:
            every = f"refreshes every {self.interval:g} s" if self.interval > 0 else "r refreshes"
            text.append(f"\nUpdated {time.strftime('%H:%M:%S')} · {every}")
        return text
