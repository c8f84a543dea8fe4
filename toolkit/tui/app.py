"""``trec-toolkit judge``: the Textual app in which an assessor grades a campaign's documents.

The app is a thin shell over :class:`~toolkit.judging.session.JudgingSession`: every action handler is a
call into the session (which writes the store *before* the cursor moves) followed by a redraw. Documents are
read from the store in a thread worker with its own connection and kept in a small cache, and the next
few documents are prefetched, so a key press never waits on the database for the next document.

Blindness (DESIGN §8): nothing here reads provenance, run names, ranks or other assessors' judgments;
the session only knows this assessor's queue and decisions.

``CampaignApp`` holds what judging and adjudication share (document fetching, find, guidelines, help, and
the actions both sessions answer: grade, skip, undo, next, previous, note); ``JudgeApp`` and
``toolkit.tui.adjudicate.AdjudicateApp`` add their session, side panels and texts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Footer, Header
from textual.worker import get_current_worker

from toolkit.judging.progress import pool_status
from toolkit.judging.records import Document, Item, Judgment
from toolkit.judging.session import JudgingSession, Session
from toolkit.judging.store import CampaignStore
from toolkit.tui.keymap import ACTIONS, default_grade_key, grade_id, short_label
from toolkit.tui.screens import DoneScreen, FindScreen, NoteScreen, TextScreen, guidelines_page, help_table
from toolkit.tui.widgets import (
    DocumentView,
    GradePanel,
    Highlighted,
    ProgressPanel,
    TopicPanel,
    render_document,
)

CSS_FILE = Path(__file__).with_name("app.tcss")

#: Actions that need an item on screen (disabled on the "queue done" screen).
ITEM_ACTIONS = frozenset({"grade", "skip", "unrateable", "note", "find", "next"})
#: Every action of the judging screen (all disabled while a modal dialog is open).
OUR_ACTIONS = frozenset({"grade", *(action for _, action, _ in ACTIONS.values())})
#: How many documents after the current one are prefetched, and how many are kept.
PREFETCH = 3
CACHE_SIZE = 64
_KEY_DISPLAY = {"slash": "/", "question_mark": "?"}


#: The grade keys share one footer entry ("0123 Grade"); the help screen lists each with its label.
GRADE_GROUP = Binding.Group("Grade", compact=True)


def grade_bindings(grades: dict[int, str]) -> list[Binding]:
    out = []
    for grade, definition in sorted(grades.items()):
        key = default_grade_key(grade) or f"f{grade}"
        out.append(
            Binding(
                key,
                f"grade({grade})",
                short_label(grade, definition),
                id=grade_id(grade),
                group=GRADE_GROUP,
            )
        )
    return out


def action_bindings(ids: tuple[str, ...] | None = None) -> list[Binding]:
    return [
        Binding(key, action, description, id=binding_id, key_display=_KEY_DISPLAY.get(key))
        for binding_id, (key, action, description) in ACTIONS.items()
        if ids is None or binding_id in ids
    ]


class CampaignApp(App[None]):
    """Document display shared by the judging and adjudication apps; owns (and closes) its store."""

    CSS_PATH = str(CSS_FILE)
    #: The footer is the cheat-sheet; the command palette would only add a second, unfamiliar one.
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        store: CampaignStore,
        *,
        path: Path,
        keymap: dict[str, str] | None = None,
        guidelines: str | None = None,
        show_times: bool = True,
    ) -> None:
        super().__init__()
        self.store = store
        self.path = path
        self.grades = store.grades()
        self.topics = {t.query_id: t for t in store.topics()}
        self.keymap_overrides = keymap or {}
        self.guidelines = guidelines
        self.show_times = show_times
        # doc_id -> (snapshot, rendering); written by worker threads, hence the lock.
        self._cache: dict[str, tuple[Document, Highlighted]] = {}
        self._cache_lock = threading.Lock()
        self._text_widths: tuple[int, ...] = ()
        self._reader: CampaignStore | None = None
        self._reader_lock = threading.Lock()
        self._topic_shown: str | None = None
        self._find: str | None = None
        self._find_line = -1

    # -- hooks for the subclasses -------------------------------------------------------------------

    #: The session behind the screen (set by the subclass): every action is one call into it.
    session: Session

    #: Title of the screen shown when nothing is left.
    DONE_TITLE = "Queue done"
    #: What ``n`` at the end and ``p`` at the start of the list say.
    LAST_MESSAGE = "This is the last item of your queue."
    FIRST_MESSAGE = "This is the first item of your queue."

    def side_panels(self) -> list[Widget]:
        return []

    def current_item(self) -> Item | None:
        return self.session.item

    def decision(self, item: Item) -> Judgment | None:
        return self.session.decision(item)

    def upcoming(self) -> list[Item]:
        return self.session.upcoming(PREFETCH)

    def refresh_panels(self) -> None:
        """Redraw the side panels that change with every action (progress, …)."""

    def note_saved(self) -> None:
        """Redraw after a note was saved (the note shows with the document unless a subclass says otherwise)."""
        self.show_current()

    def done_summary(self) -> str:
        return "Nothing left to do."

    def document_shown(self) -> None:
        """The current document has just been displayed."""

    # -- layout ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="main"):
            side = VerticalScroll(id="side")
            side.can_focus = False  # the keyboard scrolls the document, never the side panels
            with side:
                yield TopicPanel(id="topic", classes="panel")
                yield GradePanel(id="grades", classes="panel")
                yield from self.side_panels()
            yield DocumentView(id="document", classes="panel")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)
        for widget in self.query(".panel"):
            widget.border_title = str(widget.id or "").replace("-", " ").capitalize()
        self.query_one(GradePanel).show_grades(self.grades, self.grade_keys())
        self.query_one(DocumentView).focus()
        self.show_current()
        self.call_after_refresh(self._measure)

    def _measure(self) -> None:
        """Once laid out, the text width is known: pre-render what was fetched before that."""
        self._text_widths = self.query_one(DocumentView).text_widths
        self.prefetch(self.upcoming())

    def on_unmount(self) -> None:
        with self._reader_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None
        self.store.close()

    def grade_keys(self) -> dict[int, str]:
        """The key shown for each grade, after remapping."""
        keys: dict[int, str] = {}
        ids = {grade_id(g): g for g in self.grades}
        for key, active in self.screen.active_bindings.items():
            grade = ids.get(active.binding.id or "")
            if grade is not None and grade not in keys:
                keys[grade] = self.get_key_display(active.binding) or key
        return keys

    # -- drawing ------------------------------------------------------------------------------------

    def show_current(self) -> None:
        """Draw the item under the cursor (or the done screen); never waits on the database."""
        item = self.current_item()
        if item is None:
            if not isinstance(self.screen, DoneScreen):
                self.push_screen(DoneScreen(self.done_summary(), self.DONE_TITLE))
            return
        if isinstance(self.screen, DoneScreen):
            self.pop_screen()
        if item.query_id != self._topic_shown:
            self.query_one(TopicPanel).show_topic(self.topics[item.query_id])
            self._topic_shown = item.query_id
        self._find, self._find_line = None, -1
        cached = self._cached(item.doc_id)
        if cached is None:
            self.query_one(DocumentView).show_loading(item)
            self.fetch_document(item)
        else:
            self._show_doc(item, *cached)
        self.refresh_panels()
        self.prefetch(self.upcoming())

    def _show_doc(self, item: Item, document: Document, rendered: Highlighted | None = None) -> None:
        query = self.topics[item.query_id].query
        view = self.query_one(DocumentView)
        view.show_document(item, document, query, self.decision(item), self._find, rendered)
        self._text_widths = view.text_widths
        self.document_shown()

    # -- documents (thread workers with their own connection) -----------------------------------------

    def _load(self, item: Item) -> tuple[Document, Highlighted]:
        """Read a document and render it at the current text width (runs in a worker thread)."""
        with self._reader_lock:
            if self._reader is None:
                self._reader = CampaignStore.open(self.path)
            document = self._reader.document(item.doc_id)
        rendered = render_document(document, self.topics[item.query_id].query)
        self._prerender(rendered)
        return document, rendered

    def _prerender(self, rendered: Highlighted) -> None:
        for width in self._text_widths:
            rendered.segments(self.console, self.console.options.update_width(width))

    def _cached(self, doc_id: str) -> tuple[Document, Highlighted] | None:
        with self._cache_lock:
            return self._cache.get(doc_id)

    def _remember(self, doc_id: str, entry: tuple[Document, Highlighted]) -> None:
        with self._cache_lock:
            self._cache[doc_id] = entry
            while len(self._cache) > CACHE_SIZE:
                self._cache.pop(next(iter(self._cache)))

    @work(thread=True, exclusive=True, group="fetch")
    def fetch_document(self, item: Item) -> None:
        entry = self._load(item)
        self.call_from_thread(self._fetched, item, entry)

    def _fetched(self, item: Item, entry: tuple[Document, Highlighted]) -> None:
        self._remember(item.doc_id, entry)
        if self.current_item() == item:
            self._show_doc(item, *entry)

    @work(thread=True, exclusive=True, group="prefetch")
    def prefetch(self, items: list[Item]) -> None:
        worker = get_current_worker()
        for item in items:
            if worker.is_cancelled:
                return
            cached = self._cached(item.doc_id)
            if cached is None:
                self._remember(item.doc_id, self._load(item))
            else:
                self._prerender(cached[1])

    # -- shared actions (one call into the session, then redraw) -----------------------------------------

    def action_grade(self, grade: int) -> None:
        self.session.grade(grade)
        self.show_current()

    def action_skip(self) -> None:
        self.session.skip()
        self.show_current()

    def action_undo(self) -> None:
        if self.session.undo() is None:
            self.notify("Nothing to undo.", severity="warning")
            return
        self.show_current()

    def action_next(self) -> None:
        if not self.session.next():
            self.notify(self.LAST_MESSAGE)
        self.show_current()

    def action_previous(self) -> None:
        if not self.session.previous():
            self.notify(self.FIRST_MESSAGE)
        self.show_current()

    def action_note(self) -> None:
        item = self.session.item

        def save(text: str | None) -> None:
            if text is not None and item is not None and item == self.session.item:
                self.session.note(text)
                self.note_saved()

        self.push_screen(NoteScreen(self.session.note_text()), save)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if isinstance(self.screen, ModalScreen) and action in OUR_ACTIONS:
            return False
        return not (self.current_item() is None and action in ITEM_ACTIONS)

    def action_find(self) -> None:
        def find(text: str | None) -> None:
            item = self.current_item()
            cached = self._cached(item.doc_id) if item is not None else None
            if not text or item is None or cached is None:
                return
            again = text == self._find
            self._find = text
            self._show_doc(item, cached[0])
            self.call_after_refresh(self._scroll_to_find, again)

        self.push_screen(FindScreen(self._find or ""), find)

    def _scroll_to_find(self, again: bool) -> None:
        line = self.query_one(DocumentView).find_first(self._find_line if again else -1)
        if line is None:
            self.notify(f"{self._find!r} is not in this document.", severity="warning")
        self._find_line = -1 if line is None else line

    def action_guidelines(self) -> None:
        self.push_screen(TextScreen("Guidelines", guidelines_page(self.grades, self.guidelines)))

    def action_help(self) -> None:
        rows = [
            (self.get_key_display(active.binding) or key, active.binding.description)
            for key, active in self.screen.active_bindings.items()
            if active.node is self and active.binding.description
        ]
        self.push_screen(TextScreen("Keys", help_table(rows)))


class JudgeApp(CampaignApp):
    """Grade one assessor's queue; build it with :func:`judge_app` (the bindings depend on the scale)."""

    TITLE = "trec-toolkit judge"
    session: JudgingSession

    def __init__(
        self,
        store: CampaignStore,
        assessor: str,
        *,
        path: Path,
        clock: Callable[[], float] = time.monotonic,
        **options: Any,
    ) -> None:
        super().__init__(store, path=path, **options)
        self.session = JudgingSession(store, assessor, clock=clock)
        self.sub_title = f"{path.stem} · assessor {assessor}"

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

    def refresh_panels(self) -> None:
        self.query_one(ProgressPanel).show_progress(self.session.progress(), show_times=self.show_times)

    def done_summary(self) -> str:
        o = self.session.tally()
        return (
            f"Every item in your queue has a decision: {o.judged} judged, {o.unrateable} unrateable "
            f"(of {o.assigned}).\nYour judgments are saved; you can close the app (q).\n\n"
            "u undoes your last decision, p goes back through the queue."
        )

    # -- the one action only judging has --------------------------------------------------------------

    def action_unrateable(self) -> None:
        self.session.unrateable()
        self.show_current()


def judge_app(path: str | Path, assessor: str, **options: Any) -> JudgeApp:
    """Open the campaign and build the app, with one binding per grade of the campaign's scale."""
    store = CampaignStore.open(path)
    try:
        bindings = grade_bindings(store.grades()) + action_bindings()
        cls = type("JudgeApp", (JudgeApp,), {"BINDINGS": bindings, "__module__": __name__})
        return cls(store, assessor, path=Path(path), **options)  # type: ignore[no-any-return]
    except BaseException:
        store.close()
        raise
