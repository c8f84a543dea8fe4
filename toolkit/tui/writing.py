"""How the campaign screens write: one writer thread over the session's queue, in order, until the store
has every write (docs/design.md §8: the UI never blocks on the store, a decision is never dropped).

A key press never writes to the store itself: the session queues the write (``toolkit.judging.outbox``) and
moves its cursor, and one writer — a Textual thread worker with its own connection, kept open between
runs — takes the queued writes in order and retries the head until the store has committed it:

- normally the write lands in milliseconds, and the key press waits for it (up to ``GRACE_S``, without
  blocking the event loop; further keys queue up, none is lost) so the next document appears only once the
  decision is durable;
- when the store is busy (another process holds the write lock for longer: a pool round, an import), the
  screen moves on after ``GRACE_S``, the document border says "saving… (campaign busy)", and the writer keeps
  trying; quitting waits until every decision is saved (``ctrl+q`` on that screen leaves now and keeps the
  unsaved decisions in a file, for a campaign that cannot be written at all).

A write the store refuses because another window of the same assessor (or a browser tab) changed the item
first comes back from the session as a ``Conflict``, which is put to the assessor as a question; nothing is
overwritten silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App

from toolkit.errors import StoreError
from toolkit.formats.text import visible
from toolkit.judging.outbox import Outcome
from toolkit.judging.records import Item
from toolkit.judging.session import Conflict, Session
from toolkit.judging.store import CampaignStore
from toolkit.tui.screens import ConfirmScreen, SavingScreen
from toolkit.tui.widgets import action_label, clock_time, decision_label

#: How long a key press waits for its write before the screen moves on and says "saving…".
GRACE_S = 0.3
#: How long a write may wait before the border says "saving…"; the writer's pause between retries.
BUSY_AFTER_S = 0.5
RETRY_S = (0.2, 2.0)


class WritingApp(App[str | None]):
    """The writing half of a campaign screen; ``toolkit.tui.app.CampaignApp`` adds the display."""

    #: The session behind the screen (set by the subclass): every action is one call into it.
    session: Session
    #: The campaign; the writer opens its own connection to it.
    path: str | Path

    def __init__(self) -> None:
        super().__init__()
        #: What the document border says about unsaved decisions ("" when everything is saved).
        self.save_status = ""
        self._writer_lock = threading.Lock()
        self._writer_running = False
        self._writer_store: CampaignStore | None = None
        self._closed = False
        #: Set when the app closes: a writer pausing between tries wakes up (and stops, when journaled).
        self._wake = threading.Event()
        self._saved = asyncio.Event()
        self._quitting: SavingScreen | None = None

    # -- what the display provides ----------------------------------------------------------------

    def current_item(self) -> Item | None:
        raise NotImplementedError

    def show_current(self) -> None:
        """Draw the item under the cursor."""

    def refresh_panels(self) -> None:
        """Redraw the panels that change with every decision."""

    def _redraw_header(self) -> None:
        """Redraw the decision shown with the document on screen."""

    def _show_border(self) -> None:
        """Redraw the document border (position, find result, save status)."""

    def closing_summary(self) -> str:
        """What the command prints when the app closes."""
        return ""

    def close_writer(self) -> None:
        """The app is closing: close the writer's connection and the outbox's journal (a writer still at
        work closes them when its current try is over).

        With a journal the queue is safe on disk, so the writer stops after its current try and the journal
        stays for the next window of this user to replay: a closed browser tab must not leave a process
        retrying for as long as the campaign is busy, holding decisions a reloaded page cannot see. Without
        one (it could not be written), the writer goes on until everything is saved, as the interpreter
        waits for it at exit.
        """
        outbox = self.session.log.outbox
        with self._writer_lock:
            self._closed = True
            if outbox.journaled:
                outbox.close()
                self._wake.set()
            if not self._writer_running:
                self._close_connections()

    def _close_connections(self) -> None:
        """(Under ``_writer_lock``, the app closed and no writer at work.)"""
        if self._writer_store is not None:
            self._writer_store.close()
            self._writer_store = None
        self.session.log.outbox.close_journal()

    def resume_adopted(self) -> None:
        """At start: write what a killed window of this user left in its journal (queued by the session)."""
        count = self.session.adopted
        if count and len(self.session.log.outbox):
            self.notify(
                f"{count} decision(s) from an earlier window that closed before the campaign took them "
                "are being saved now.",
                title="Saving unsaved work",
                timeout=8,
            )
            self._saved.clear()
            self._start_writer()
        self._check_journal()

    def _check_journal(self) -> None:
        """Say once when the outbox could not be journaled (the queue is then in memory only)."""
        error = self.session.log.outbox.journal_error
        if error and not self._journal_warned:
            self._journal_warned = True
            self.notify(
                f"Decisions waiting to be saved are kept in memory only (cannot write {visible(error)}): "
                "keep this window open until the border no longer says 'saving…'.",
                severity="warning",
                markup=False,
                timeout=12,
            )

    _journal_warned = False

    def _start_writer(self) -> None:
        with self._writer_lock:
            if self._writer_running:
                return
            self._writer_running = True
        self._write_queued()

    @work(thread=True, group="write")
    def _write_queued(self) -> None:
        """Write the queued writes in order with its own connection; on failure wait and retry the same one.

        Never gives up and never skips: a decision leaves the queue only once the store has it (or refused it
        for a conflict, which goes back to the screen). Runs in the default thread pool, which the
        interpreter waits for at exit, so writes queued before quitting still land.
        """
        outbox = self.session.log.outbox
        pause = RETRY_S[0]
        try:
            while True:
                try:
                    if self._writer_store is None:  # kept open between runs: opening costs a key press
                        self._writer_store = CampaignStore.open(self.path)
                    outcome = outbox.flush_one(self._writer_store)
                except StoreError as exc:  # the store could not even be opened
                    outbox.last_error, outbox.last_busy = str(exc), False
                    self._wake.wait(pause)
                    pause = min(pause * 2, RETRY_S[1])
                    continue
                if outcome is None:
                    with self._writer_lock:
                        if not len(outbox) or outbox.closed:
                            self._writer_running = False
                            return
                    continue
                self._report(outcome)
                if outcome.saved or outcome.conflict:
                    pause = RETRY_S[0]
                else:
                    self._wake.wait(pause)
                    pause = min(pause * 2, RETRY_S[1])
        finally:
            with self._writer_lock:
                self._writer_running = False
                if self._closed:
                    self._close_connections()
            self._report(None)

    def _report(self, outcome: Outcome | None) -> None:
        # RuntimeError: the app has closed; the write itself is what matters, and it went on.
        with contextlib.suppress(RuntimeError):
            self.call_from_thread(self._written, outcome)

    def _written(self, outcome: Outcome | None) -> None:
        """The writer's report, on the screen's thread: bring the session up to date, ask about conflicts."""
        outbox = self.session.log.outbox
        if not len(outbox):
            self._saved.set()  # first: the key press waiting for this write goes on before any redraw
        if outcome is not None:
            conflict = self.session.apply(outcome)
            if conflict is not None:
                self._conflicted(conflict, outcome)
            if outcome.conflict or not outcome.saved:
                # A saved write changes nothing on screen (its item already shows the decision); these do.
                if outcome.write.key == self._current_key():
                    self._redraw_header()
                self.refresh_panels()
        self._show_save_status()
        if self._quitting is not None:
            if not len(outbox):
                self.exit(self.closing_summary())
            else:
                self._quitting.show_status(self.save_status or "Saving…")

    def _current_key(self) -> tuple[str, str] | None:
        item = self.current_item()
        return None if item is None else (item.query_id, item.doc_id)

    def _show_save_status(self) -> None:
        outbox = self.session.log.outbox
        count = len(outbox)
        since = outbox.waiting_since()
        status = ""
        if count and since is not None and (outbox.last_error or time.monotonic() - since > BUSY_AFTER_S):
            if outbox.last_error and not outbox.last_busy:
                status = f"saving… ({visible(outbox.last_error, one_line=True)}; retrying)"
            else:
                status = "saving… (campaign busy)"
            status += f" · {count} not saved yet"
        if status != self.save_status:
            self.save_status = status
            self._show_border()

    async def _perform(self, change: Callable[[], object]) -> None:
        """Run one action on the session (it queues its writes and moves), then redraw.

        When nothing else was waiting to be written, wait up to ``GRACE_S`` for this write to land first, so
        that in the usual case the next document appears only once the decision is durable.
        """
        outbox = self.session.log.outbox
        idle = not len(outbox)
        try:
            change()
        except StoreError as exc:
            self.notify(visible(str(exc)), severity="error", markup=False)
            return
        self._check_journal()
        if len(outbox):
            self._saved.clear()
            self._start_writer()
            if idle:
                try:
                    await asyncio.wait_for(self._saved.wait(), GRACE_S)
                except TimeoutError:
                    self._show_save_status()
        self.show_current()

    def _conflicted(self, conflict: Conflict, outcome: Outcome) -> None:
        """A queued write was refused because another window changed the item first: say so, and ask."""
        where = f"({visible(conflict.item.query_id, one_line=True)}, {visible(conflict.item.doc_id, one_line=True)})"
        theirs = conflict.theirs
        if conflict.action is None:
            self.notify(
                f"Nothing undone on {where}: it changed in another window. The store's decisions are shown.",
                severity="warning",
                markup=False,
                timeout=8,
            )
            self.resync()
            return
        mine = action_label(conflict.action, conflict.grade)
        if theirs is None:  # the other window undid its decision: nothing to replace, record ours
            self.call_later(self._perform, lambda: self._decide_on(conflict))
            return
        question = Text()
        question.append(f"While your {mine} for {where} waited to be saved, another window recorded ")
        question.append(f"{decision_label(theirs)} at {clock_time(theirs.time)}", style="bold")
        question.append(f".\n\nReplace it with your {mine}?")

        def answer(replace: bool | None) -> None:
            if replace:
                self.call_later(self._perform, lambda: self._decide_on(conflict))

        self.push_screen(ConfirmScreen("Decided in another window", question), answer)

    def _decide_on(self, conflict: Conflict) -> None:
        """Record the decision a conflict held back (judging only; adjudication has no conditional grades)."""

    @work(thread=True, exclusive=True, group="check")
    def resync(self) -> None:
        """Read this user's whole log again (after a refused undo), once the writes have landed."""

    async def action_quit(self) -> None:
        """Close once every decision is saved; until then say what is still being written."""
        if not len(self.session.log.outbox):
            self.exit(self.closing_summary())
            return
        self._show_save_status()
        screen = SavingScreen(self.save_status or "Saving…")
        self._quitting = screen

        def answer(leave: bool | None) -> None:
            self._quitting = None
            if leave:
                self.exit(self.leave_now())

        self.push_screen(screen, answer)

    def leave_now(self) -> str:
        """Quit although writes are queued (the campaign cannot take them): keep them somewhere, say where."""
        self.session.log.outbox.close()
        count = len(self.session.log.outbox)
        return f"{self.closing_summary()}Warning: {count} write(s) could not be saved to the campaign.\n"
