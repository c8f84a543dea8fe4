"""``trec-toolkit judge``: the Textual app in which an assessor grades a campaign's documents.

``JudgeApp`` is ``toolkit.tui.app.CampaignApp`` over a ``toolkit.judging.session.JudgingSession`` (queued
writes): it adds the progress panel, the done and closing summaries, the check before showing an item that
another window may have decided, and a look every few seconds for items a new pool round assigned.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.widget import Widget

from toolkit.errors import StoreError
from toolkit.formats.text import visible
from toolkit.judging.journal import journal_folder
from toolkit.judging.postgres.url import is_campaign_url
from toolkit.judging.progress import pool_status
from toolkit.judging.records import Item, Judgment, LogEvent
from toolkit.judging.session import Conflict, JudgingSession
from toolkit.judging.store import CampaignStore, campaign_label
from toolkit.tui.app import CampaignApp, action_bindings, grade_bindings
from toolkit.tui.screens import summary_lines
from toolkit.tui.widgets import ProgressPanel


class JudgeApp(CampaignApp):
    """Grade one assessor's queue; build it with :func:`judge_app` (the bindings depend on the scale)."""

    TITLE = "trec-toolkit judge"
    session: JudgingSession

    def __init__(
        self,
        store: CampaignStore,
        assessor: str,
        *,
        path: str | Path,
        clock: Callable[[], float] = time.monotonic,
        **options: Any,
    ) -> None:
        super().__init__(store, path=path, **options)
        self.session = JudgingSession(
            store, assessor, clock=clock, write_through=False, journal=journal_folder(path)
        )
        self.sub_title = visible(f"{campaign_label(path)} · assessor {assessor}", one_line=True)

    def side_panels(self) -> list[Widget]:
        return [ProgressPanel(id="progress", classes="panel")]

    def on_mount(self) -> None:
        # Textual calls CampaignApp.on_mount too (handlers run along the MRO): no super() here.
        if self.POLL_S > 0:
            self.set_interval(self.POLL_S, self.poll_queue)

    #: Seconds between two looks for items assigned since the window opened (a new pool round).
    POLL_S = 5.0

    @work(thread=True, exclusive=True, group="poll")
    def poll_queue(self) -> None:
        """Read the assessor's queue in a worker; only a change (a new round, new assignments) is applied."""
        with self._reader_lock:
            if self._reader is None:
                self._reader = CampaignStore.open(self.path)
            rounds = len(self._reader.rounds())
            queue = self._reader.queue(self.session.assessor)
            if (rounds, len(queue)) == self._polled:
                return
            hashes = self._reader.latest_hashes()
            unassigned = pool_status(self._reader).unassigned
        self.call_from_thread(self._queue_changed, rounds, queue, hashes, unassigned)

    _polled: tuple[int, int] | None = None

    def _queue_changed(
        self, rounds: int, queue: list[Item], hashes: dict[str, str | None], unassigned: int
    ) -> None:
        self._polled = (rounds, len(queue))
        before = (self.session.item, self.session.unassigned)
        added = self.session.refresh(queue, hashes, unassigned=unassigned)
        if added:
            self.notify(f"{added} new item(s) were assigned to you.")
        if added or (self.session.item, self.session.unassigned) != before:
            self.show_current()  # redraws the panels; leaves the "queue done" screen when there is work

    def document_shown(self) -> None:
        self.session.shown()

    def note_shown(self, item: Item) -> str | None:
        return self.session.note_of(item)

    def elsewhere(self, item: Item) -> Judgment | None:
        return self.session.elsewhere(item)

    def reconcile(self, item: Item, events: list[LogEvent], version: int) -> bool:
        return self.session.reconcile(item, events, version)

    def position(self) -> str:
        progress = self.session.progress()
        if self.session.item is None:
            return f"All {progress.total} decided"
        return f"Item {progress.position} of {progress.total}"

    def refresh_panels(self) -> None:
        self.query_one(ProgressPanel).show_progress(
            self.session.progress(), show_times=self.show_times, compact=bool(self._compact)
        )
        self._show_border()

    def _summary(self) -> list[str]:
        return summary_lines(self.session.summary(), show_times=self.show_times)

    def done_summary(self) -> Text:
        text = Text("Every item in your queue has a decision; your decisions are saved.\n\n")
        text.append("\n".join(self._summary()))
        text.append("\n\nu undoes your last decision, p goes back through the queue, q quits.", style="dim")
        return text

    def closing_summary(self) -> str:
        header = f"{visible(self.session.assessor, one_line=True)} on {visible(self._campaign_name(), one_line=True)}"
        return "\n".join([header, *self._summary()]) + "\n"

    def _campaign_name(self) -> str:
        """The file's name, or a URL's campaign name (never the URL: it may be long)."""
        return campaign_label(self.path) if is_campaign_url(self.path) else Path(self.path).name

    def _decide_on(self, conflict: Conflict) -> None:
        if conflict.action is not None:
            self.session.decide_on(conflict.item, conflict.action, conflict.grade)

    def leave_now(self) -> str:
        """Write the decisions the campaign could not take to a judgments file beside it (or here)."""
        lines = [self.closing_summary().rstrip("\n")]
        beside = Path.cwd() if is_campaign_url(self.path) else Path(self.path).parent  # a URL has no folder
        for folder in (beside, Path.cwd()):
            try:
                saved, undone = self.session.save_unsaved(folder)
            except (OSError, StoreError):
                continue
            if saved is not None:
                where = visible(str(saved), one_line=True)
                lines.append(
                    f"Not saved in the campaign: your decisions on these documents are in {where}; add them "
                    f"with `trec-toolkit judgments import {visible(str(self.path), one_line=True)} {where}`."
                )
            if undone:
                lines.append(
                    f"Not saved: {undone} undo(s); undo them again when the campaign can be written."
                )
            if self.session.log.outbox.journaled:
                again = shlex.join(
                    ["trec-toolkit", "judge", str(self.path), "--assessor", self.session.assessor]
                )
                kept = visible(str(journal_folder(self.path)), one_line=True)
                lines.append(
                    f"They are also kept in {kept} and saved the next time you run "
                    f"`{visible(again, one_line=True)}` (once: importing the file as well adds nothing twice)."
                )
            return "\n".join(lines) + "\n"
        lines.append("Warning: the unsaved decisions could not be written to a file either; they are lost.")
        return "\n".join(lines) + "\n"

    @work(thread=True, exclusive=True, group="check")
    def resync(self) -> None:
        assessor = self.session.assessor
        events = self._read(lambda store: store.events(assessor=assessor))
        self.call_from_thread(self._resynced, events)

    def _resynced(self, events: list[LogEvent]) -> None:
        if self.session.resync(events):
            self.show_current()

    # -- the one action only judging has --------------------------------------------------------------

    async def action_unrateable(self) -> None:
        await self._decide(self.session.unrateable, "unrateable")


def judge_app(path: str | Path, assessor: str, **options: Any) -> JudgeApp:
    """Open the campaign and build the app, with one binding per grade of the campaign's scale."""
    store = CampaignStore.open(path)
    try:
        bindings = grade_bindings(store.grades()) + action_bindings()
        cls = type("JudgeApp", (JudgeApp,), {"BINDINGS": bindings, "__module__": __name__})
        return cls(store, assessor, path=path, **options)  # type: ignore[no-any-return]
    except BaseException:
        store.close()
        raise
