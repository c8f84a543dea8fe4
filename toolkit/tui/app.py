"""The Textual screens of judging and adjudication: what both show and the keys both answer.

``CampaignApp`` is a thin shell over a session (``toolkit.judging.session.JudgingSession`` or
``toolkit.judging.adjudication.AdjudicationSession``): every action handler is one call into the session,
which queues the write and moves the cursor, and a redraw. How the queued writes reach the store — one
writer thread, "saving… (campaign busy)", conflicts between two windows put to the assessor, quitting once
everything is saved — is ``toolkit.tui.writing.WritingApp``, which this class builds on; the judging app
itself is ``toolkit.tui.judge.JudgeApp``, the adjudication app ``toolkit.tui.adjudicate.AdjudicateApp``.

Documents are read from the store in a thread worker with its own connection and kept in a small cache,
and the next few are prefetched, so a key press never waits on the database for the next document; an
item's log is read again (in a worker) before it is shown, so a decision another window made since is shown
and asked about before it is replaced.

Blindness (docs/design.md §8): nothing here reads provenance, run names, ranks or other assessors' judgments;
the session only knows this assessor's queue and decisions. Nothing here writes to stdout: the app returns
its closing summary from ``run()`` for the command to print, so the same app can be served in a browser.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Footer, Header
from textual.widgets._footer import FooterKey
from textual.worker import get_current_worker

from toolkit.formats.text import visible
from toolkit.judging.records import Document, Item, Judgment, LogEvent
from toolkit.judging.session import Session
from toolkit.judging.store import CampaignStore
from toolkit.tui.keymap import ACTIONS, default_grade_key, grade_id, short_label
from toolkit.tui.screens import (
    ConfirmScreen,
    DoneScreen,
    FindScreen,
    NoteScreen,
    TextScreen,
    guidelines_page,
    help_table,
)
from toolkit.tui.widgets import (
    DocumentView,
    GradePanel,
    Highlighted,
    TopicPanel,
    clock_time,
    decision_label,
    render_document,
)
from toolkit.tui.writing import WritingApp

CSS_FILE = Path(__file__).with_name("app.tcss")

#: Actions that need an item on screen (disabled on the "queue done" screen).
ITEM_ACTIONS = frozenset({"grade", "skip", "unrateable", "note", "find", "next"})
#: Every action of the judging screen (all disabled while a modal dialog is open).
OUR_ACTIONS = frozenset({"grade", *(action for _, action, _ in ACTIONS.values())})
#: Footer keys left out below ``NARROW`` columns (the help screen lists them): the rest must fit 80.
SECONDARY = frozenset({"next", "previous", "guidelines"})
NARROW = 100
#: Below this many rows the grade panel shows one short line per grade (``g`` has the definitions).
SHORT = 30
#: How many documents after the current one are prefetched, and how many are kept.
PREFETCH = 3
CACHE_SIZE = 64
#: How long a key press waits for its write before the screen moves on and says "saving…".
GRACE_S = 0.3
#: How long a write may wait before the border says "saving…"; the writer's pause between retries.
BUSY_AFTER_S = 0.5
RETRY_S = (0.2, 2.0)
_KEY_DISPLAY = {"slash": "/", "question_mark": "?"}
_SCROLL_ACTIONS = {
    "scroll_up": "Scroll up a line",
    "scroll_down": "Scroll down a line",
    "page_up": "Scroll up a page",
    "page_down": "Scroll down a page",
    "scroll_home": "Top of the document",
    "scroll_end": "End of the document",
}


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


class KeyFooter(Footer):
    """The footer (the cheat-sheet), without the ``SECONDARY`` keys on a narrow screen, so that every key
    it shows fits: at 80 columns a full footer would cut off Help and Quit."""

    def compose(self) -> ComposeResult:
        narrow = self.app.size.width < NARROW
        for widget in super().compose():
            if narrow and isinstance(widget, FooterKey) and widget.action in SECONDARY:
                continue
            yield widget


class CampaignApp(WritingApp):
    """Document display shared by the judging and adjudication apps; owns (and closes) its store."""

    CSS_PATH = str(CSS_FILE)
    #: The footer is the cheat-sheet; the command palette would only add a second, unfamiliar one.
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        store: CampaignStore,
        *,
        path: str | Path,
        keymap: dict[str, str] | None = None,
        guidelines: str | None = None,
        show_times: bool = True,
        doc_format: str = "text",
    ) -> None:
        super().__init__()
        self.store = store
        self.path = path
        self.grades = store.grades()
        self.topics = {t.query_id: t for t in store.topics()}
        self.keymap_overrides = keymap or {}
        self.guidelines = guidelines
        self.show_times = show_times
        self.doc_format = doc_format
        # doc_id -> (snapshot, rendering); written by worker threads, hence the lock.
        self._cache: dict[str, tuple[Document, Highlighted]] = {}
        self._cache_lock = threading.Lock()
        self._text_widths: tuple[int, ...] = ()
        self._reader: CampaignStore | None = None
        self._reader_lock = threading.Lock()
        self._topic_shown: str | None = None
        self._topic_new_at: Item | None = None
        self._find: str | None = None
        self._find_line = -1
        #: "match 2 of 5" after a search (shown on the document border).
        self.find_status = ""
        self._compact: bool | None = None

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

    def note_shown(self, item: Item) -> str | None:
        """The note shown with the document (judging: the assessor's own)."""
        return None

    def elsewhere(self, item: Item) -> Judgment | None:
        """A decision on ``item`` another window recorded since this one saw it."""
        return None

    def reconcile(self, item: Item, events: list[LogEvent], version: int) -> bool:
        """Take in the store's log for ``item`` read before showing it; True when another window changed it."""
        return False

    def upcoming(self) -> list[Item]:
        return self.session.upcoming(PREFETCH)

    def position(self) -> str:
        """Where the cursor is ("Item 3 of 12"), always visible on the document's border."""
        return ""

    def refresh_panels(self) -> None:
        """Redraw the side panels that change with every action (progress, …)."""

    def note_saved(self, had_decision: bool) -> None:
        """Redraw after a note was saved, and say so."""
        self.show_current()
        if not had_decision:
            self.notify("Note saved. No decision on this document yet: the note stays with it.")
        else:
            self.notify("Note saved.")

    def done_summary(self) -> Text:
        return Text("Nothing left to do.")

    def closing_summary(self) -> str:
        """What the command prints when the app closes."""
        return ""

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
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)
        for widget in self.query(".panel"):
            widget.border_title = str(widget.id or "").replace("-", " ").capitalize()
        self._layout_for_size()
        self.query_one(DocumentView).focus()
        self.show_current()
        self.call_after_refresh(self._measure)
        self.set_interval(0.25, self._show_save_status)
        self.resume_adopted()

    def on_resize(self) -> None:
        self._layout_for_size()

    def _layout_for_size(self) -> None:
        """Grades on one short line each and the side panels compact when the screen is small; the footer
        without its secondary keys when narrow (``KeyFooter``)."""
        compact = self.size.width < NARROW or self.size.height < SHORT
        if compact != self._compact:
            first = self._compact is None  # on mount: show_current draws the side panels next
            self._compact = compact
            self.query_one(GradePanel).show_grades(self.grades, self.grade_keys(), compact=compact)
            self.query_one("#side").set_class(compact, "compact")
            if not first:
                self.refresh_panels()
        for footer in self.query(KeyFooter):
            footer.refresh(recompose=True)

    def _measure(self) -> None:
        """Once laid out, the text width is known: pre-render what was fetched before that."""
        self._text_widths = self.query_one(DocumentView).text_widths
        self.prefetch(self.upcoming())

    def on_unmount(self) -> None:
        with self._reader_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None
        self.close_writer()
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
        self._show_border()
        if item is None:
            if not isinstance(self.screen, DoneScreen):
                self.push_screen(DoneScreen(self.done_summary(), self.DONE_TITLE))
            return
        if isinstance(self.screen, DoneScreen):
            self.pop_screen()
        if item.query_id != self._topic_shown:
            self._topic_new_at = item if self._topic_shown is not None else None
            self._topic_shown = item.query_id
            self.query_one(TopicPanel).show_topic(
                self.topics[item.query_id], new=self._topic_new_at is not None
            )
        elif self._topic_new_at is not None and self._topic_new_at != item:
            self._topic_new_at = None
            self.query_one(TopicPanel).show_topic(self.topics[item.query_id])
        self._find, self._find_line, self.find_status = None, -1, ""
        cached = self._cached(item.doc_id)
        if cached is None:
            self.query_one(DocumentView).show_loading(item)
            self.fetch_document(item)
        else:
            self._show_doc(item, *cached)
        self.check_decision(item, self._version(item))
        self.refresh_panels()
        self.prefetch(self.upcoming())

    def _version(self, item: Item) -> int:
        return self.session.log.versions[(item.query_id, item.doc_id)]

    def _show_doc(
        self, item: Item, document: Document, rendered: Highlighted, *, keep_scroll: bool = False
    ) -> None:
        view = self.query_one(DocumentView)
        view.show_document(
            item,
            document,
            rendered,
            decision=self.decision(item),
            note=self.note_shown(item),
            elsewhere=self.elsewhere(item),
            keep_scroll=keep_scroll,
        )
        self._text_widths = view.text_widths
        if not keep_scroll:
            self.call_after_refresh(view.jump_to_first_term)
        self.document_shown()

    def _redraw_header(self) -> None:
        """The decision or note of the item on screen changed: redraw it where the reader is."""
        item = self.current_item()
        view = self.query_one(DocumentView)
        cached = self._cached(item.doc_id) if item is not None else None
        if (
            item is not None
            and cached is not None
            and view.doc_id == item.doc_id
            and view.rendered is not None
        ):
            self._show_doc(item, cached[0], view.rendered, keep_scroll=True)

    def _show_border(self) -> None:
        """Item position, find result and save status on the document's bottom border: visible at any size."""
        parts = [p for p in (self.position(), self.find_status, self.save_status) if p]
        self.query_one(DocumentView).border_subtitle = Text(" · ".join(parts))

    # -- documents (thread workers with their own connection) -----------------------------------------

    def _read(self, read: Callable[[CampaignStore], Any]) -> Any:
        with self._reader_lock:
            if self._reader is None:
                self._reader = CampaignStore.open(self.path)
            return read(self._reader)

    def _load(self, item: Item) -> tuple[Document, Highlighted]:
        """Read a document and render it at the current text width (runs in a worker thread)."""
        document: Document = self._read(lambda store: store.document(item.doc_id))
        rendered = render_document(document, self.topics[item.query_id].query, doc_format=self.doc_format)
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

    @work(thread=True, exclusive=True, group="check")
    def check_decision(self, item: Item, version: int) -> None:
        """Read the item's log again before it is judged: another window may have decided it since."""
        assessor = item.assessor
        events = self._read(
            lambda store: store.events(assessor=assessor, query_id=item.query_id, doc_id=item.doc_id)
        )
        self.call_from_thread(self._checked, item, events, version)

    def _checked(self, item: Item, events: list[LogEvent], version: int) -> None:
        if not self.reconcile(item, events, version):
            return
        self.refresh_panels()
        if self.current_item() == item:
            self._redraw_header()
            theirs = self.elsewhere(item)
            if theirs is not None:
                self.notify(
                    f"Another window recorded {decision_label(theirs)} on this document at "
                    f"{clock_time(theirs.time)}. A decision key asks before replacing it.",
                    title="Decided elsewhere",
                    markup=False,
                    timeout=8,
                )

    # -- shared actions (one call into the session, then redraw) -----------------------------------------

    async def action_grade(self, grade: int) -> None:
        await self._decide(lambda: self.session.grade(grade), f"grade {grade}")

    async def action_skip(self) -> None:
        await self._decide(self.session.skip, "skipped")

    async def _decide(self, change: Callable[[], object], label: str) -> None:
        """A decision on the item on screen; when another window decided it since, ask before replacing."""
        item = self.current_item()
        theirs = self.elsewhere(item) if item is not None else None
        if theirs is None:
            await self._perform(change)
            return
        question = Text()
        question.append("Another window recorded ")
        question.append(f"{decision_label(theirs)} at {clock_time(theirs.time)}", style="bold")
        question.append(f" on this document.\n\nReplace it with {label}?")

        def answer(replace: bool | None) -> None:
            if replace and self.current_item() == item:
                self.call_later(self._perform, change)

        self.push_screen(ConfirmScreen("Decided in another window", question), answer)

    async def action_undo(self) -> None:
        if self.session.log.latest_decision() is None:
            self.notify("Nothing to undo.", severity="warning")
            return
        await self._perform(self.session.undo)

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
            if text is not None and text.strip() and item is not None and item == self.session.item:
                had_decision = self.decision(item) is not None
                self.call_later(self._perform_note, text, had_decision)

        self.push_screen(NoteScreen(self.session.note_text()), save)

    async def _perform_note(self, text: str, had_decision: bool) -> None:
        await self._perform(lambda: self.session.note(text))
        self.note_saved(had_decision)

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
            query = self.topics[item.query_id].query
            rendered = render_document(cached[0], query, text, doc_format=self.doc_format)
            self._show_doc(item, cached[0], rendered, keep_scroll=True)
            self.call_after_refresh(self._scroll_to_find, again)

        self.push_screen(FindScreen(self._find or ""), find)

    def _scroll_to_find(self, again: bool) -> None:
        view = self.query_one(DocumentView)
        matches = view.find_matches()
        if not matches:
            self.find_status = ""
            self._find_line = -1
            self.notify(f"{self._find!r} is not in this document.", severity="warning", markup=False)
            self._show_border()
            return
        after = self._find_line if again else -1
        target = next((line for line in matches if line > after), matches[0])
        view.scroll_to_match(target)
        self._find_line = target
        shown = visible(self._find or "", one_line=True)
        self.find_status = (
            f"{shown!r}: match {matches.index(target) + 1} of {len(matches)} (Enter on / for next)"
        )
        self._show_border()

    def action_guidelines(self) -> None:
        self.push_screen(TextScreen("Guidelines", guidelines_page(self.grades, self.guidelines)))

    def action_help(self) -> None:
        rows: list[tuple[str, str]] = []
        scroll: list[tuple[str, str]] = []
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            shown = self.get_key_display(binding) or key
            if active.node is self and binding.description:
                rows.append((shown, binding.description))
            elif isinstance(active.node, DocumentView) and binding.action in _SCROLL_ACTIONS:
                scroll.append((shown, _SCROLL_ACTIONS[binding.action]))
        self.push_screen(TextScreen("Keys", help_table(rows, scroll)))
