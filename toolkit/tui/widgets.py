"""The panels of the judging screen. Attributes go down (``show_…`` methods), nothing comes back up.

Every string that comes from the campaign — document text and title, doc id, topic text, notes, grade
definitions — passes through ``toolkit.formats.text.visible`` before it becomes a renderable, so a control
sequence planted in a document is shown (``␛[2J``), never obeyed (docs/design.md §5, Limits).

A document is rendered by its declared format (``[docs] format``, recorded by the campaign): ``text`` keeps
its line breaks; ``markdown`` is rendered by Rich, with links shown as text followed by their address (never
a clickable link whose target the reader cannot see); ``html`` is turned into Markdown first by markdownify
(scripts and styles dropped) and rendered the same way. Lines at the top that only repeat the title or the
doc id are dropped, since the header shows both once. The query terms are highlighted *after* rendering,
line by line, so highlighting never breaks the Markdown, and the view opens at the first of them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widgets import DataTable, Static

from toolkit.formats.text import visible
from toolkit.judging.records import CampaignTopic, Document, Item, Judgment
from toolkit.judging.session import SessionProgress
from toolkit.tui.keymap import short_label

#: Words too common to be worth highlighting.
STOPWORDS = frozenset(
    "a an and are as at be by do does for from how i in is it of on or the to what when where which who why with".split()  # noqa: SIM905
)

TERM_STYLE = "bold black on yellow"
FIND_STYLE = "bold white on dark_red"
#: Lines kept above the first query term when the view opens on it.
CONTEXT_LINES = 2


def query_terms(query: str) -> list[str]:
    """The words of a query worth highlighting (lower-cased, no stopwords, longest first)."""
    words = {w.lower() for w in re.findall(r"\w+", query) if len(w) > 1 and w.lower() not in STOPWORDS}
    return sorted(words, key=lambda w: (-len(w), w))


def terms_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    terms = [t for t in terms if t]
    return re.compile("|".join(re.escape(t) for t in terms), re.I) if terms else None


def shown(text: str | None, *, one_line: bool = False, style: str = "") -> Text:
    """Campaign text as a Rich ``Text``: controls made visible, never parsed as markup."""
    return Text(visible(text or "", one_line=one_line), style=style)


def clock_time(iso: str) -> str:
    """An event's UTC time as the local wall-clock time people remember (HH:MM:SS)."""
    try:
        return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone().strftime("%H:%M:%S")
    except ValueError:
        return iso


def decision_label(j: Judgment) -> str:
    return action_label(j.action, j.grade)


def action_label(action: str, grade: int | None) -> str:
    """``grade 2``, ``skipped``, ``unrateable``: a decision as the assessor calls it."""
    return {"skip": "skipped", "unrateable": "unrateable"}.get(action, f"grade {grade}")


class Highlighted:
    """Render ``body`` and then paint every match of the patterns; also finds the lines that match ``find``.

    Rendered lines are cached per width: Textual renders a widget's content once to measure its height and
    again to paint it, and the app pre-renders upcoming documents in a worker thread, so showing the next
    document costs no Markdown rendering on the key press.
    """

    def __init__(
        self, body: RenderableType, terms: re.Pattern[str] | None, find: re.Pattern[str] | None = None
    ) -> None:
        self.body = body
        self.terms = terms
        self.find = find
        self._lines: dict[int, list[Text]] = {}
        self._segments: dict[int, list[Segment]] = {}

    def lines(self, console: Console, options: ConsoleOptions) -> list[Text]:
        cached = self._lines.get(options.max_width)
        if cached is not None:
            return cached
        out = []
        for line in console.render_lines(self.body, options, pad=False, new_lines=False):
            text = Text(end="")
            for seg in line:
                if not seg.control:
                    text.append(seg.text, seg.style)
            if self.terms is not None:
                text.highlight_regex(self.terms, TERM_STYLE)
            if self.find is not None:
                text.highlight_regex(self.find, FIND_STYLE)
            out.append(text)
        self._lines[options.max_width] = out
        return out

    def matching_lines(self, console: Console, options: ConsoleOptions) -> list[int]:
        """The rendered lines that match ``find``."""
        if self.find is None:
            return []
        return [i for i, line in enumerate(self.lines(console, options)) if self.find.search(line.plain)]

    def first_term_line(self, console: Console, options: ConsoleOptions) -> int | None:
        """The first rendered line with a query term (where the view opens), or None."""
        if self.terms is None:
            return None
        pattern = self.terms
        return next(
            (i for i, line in enumerate(self.lines(console, options)) if pattern.search(line.plain)), None
        )

    def segments(self, console: Console, options: ConsoleOptions) -> list[Segment]:
        """The rendered segments at this width (cached: Textual asks twice per document, measure and paint)."""
        cached = self._segments.get(options.max_width)
        if cached is None:
            cached = []
            for text in self.lines(console, options):
                cached.extend(text.render(console, end=""))
                cached.append(Segment.line())
            self._segments[options.max_width] = cached
        return cached

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.segments(console, options)


def html_to_markdown(html: str) -> str:
    """HTML as Markdown (markdownify): structure kept, scripts and styles dropped, nothing fetched or run."""
    from markdownify import markdownify

    return str(markdownify(html, heading_style="ATX"))


def _norm(line: str) -> str:
    return line.strip().lstrip("#").strip().strip("`*_").strip()


def body_of(text: str, title: str, doc_id: str) -> str:
    """The text without the lines at its top that only repeat the title and the doc id (shown once, above).

    A line that starts with the doc id and goes on (``pydoc://json.loads · function``) keeps what follows.
    """
    lines = text.split("\n")
    i = 0

    def blanks(i: int) -> int:
        while i < len(lines) and not lines[i].strip():
            i += 1
        return i

    i = blanks(i)
    if i < len(lines) and title.strip() and _norm(lines[i]) == _norm(title):
        i = blanks(i + 1)
    if i < len(lines) and doc_id:
        line = lines[i].replace("`", "").strip()
        if line == doc_id:
            i = blanks(i + 1)
        elif line.startswith(doc_id + " "):
            rest = line[len(doc_id) :].strip().lstrip("·|:-–—").strip()
            if rest:
                lines[i] = rest
    return "\n".join(lines[i:]).rstrip()


def render_document(
    document: Document, query: str, find: str | None = None, *, doc_format: str = "text"
) -> Highlighted:
    """The document body as the assessor reads it, by its declared format (its own, else ``doc_format``:
    the workspace's default for sources that say nothing), query terms highlighted."""
    doc_format = document.format or doc_format
    body: RenderableType
    if document.fetch_error:
        body = Text(f"This document could not be fetched: {visible(document.fetch_error)}", style="italic")
    else:
        source = visible(document.text)
        if doc_format == "html":
            source = html_to_markdown(source)
        text = body_of(source, visible(document.title), visible(document.doc_id))
        if not text.strip():
            body = Text("(empty document)", style="italic")
        elif doc_format in ("markdown", "html"):
            body = Markdown(text, code_theme="ansi_dark", hyperlinks=False)
        else:
            body = Text(text)
    return Highlighted(body, terms_pattern(query_terms(query)), terms_pattern([find]) if find else None)


class TopicPanel(Static):
    """The topic: query, class, description and narrative; flagged when it is new since the last item."""

    def show_topic(self, topic: CampaignTopic, *, new: bool = False) -> None:
        text = Text()
        text.append_text(shown(topic.query, style="bold"))
        text.append_text(shown(f"\ntopic {visible(topic.query_id, one_line=True)}", style="dim"))
        if topic.query_class:
            text.append_text(shown(f" · class {visible(topic.query_class, one_line=True)}", style="dim"))
        if topic.description:
            text.append("\n\nDescription\n", style="bold underline")
            text.append_text(shown(topic.description))
        if topic.narrative:
            text.append("\n\nNarrative\n", style="bold underline")
            text.append_text(shown(topic.narrative))
        self.update(text)
        self.set_class(new, "-new")
        self.border_title = "New topic" if new else "Topic"


class GradePanel(Static):
    """The grade definitions, each with the key that gives it; one short line each when space is short."""

    def show_grades(self, grades: dict[int, str], keys: dict[int, str], *, compact: bool = False) -> None:
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_column(ratio=1)
        for grade, definition in sorted(grades.items()):
            key = keys.get(grade, "·")
            label = Text(f" {visible(key, one_line=True)} ", style="reverse bold")
            if key != str(grade):
                label.append(f" = {grade}", style="bold")
            table.add_row(label, shown(short_label(grade, definition) if compact else definition))
        self.update(table)


class ProgressPanel(Static):
    """Where the assessor is and what is left: judged, unrateable and skipped counted apart; time per judgment
    (hidden when ``show_times`` is off)."""

    def show_progress(
        self, progress: SessionProgress, *, show_times: bool = True, compact: bool = False
    ) -> None:
        """``compact`` (a small screen): without the item's position, which the document's border shows too,
        and with short labels, so that the panel fits under the topic and the grades at 80×24."""
        t, o = progress.topic, progress.overall
        rows = [
            (
                "Topic" if compact else "This topic",
                tally_line(t.judged, t.unrateable, t.skipped, t.remaining),
            ),
            ("Overall", tally_line(o.judged, o.unrateable, o.skipped, o.remaining)),
        ]
        if show_times:
            median = "–" if progress.median_ms is None else f"{progress.median_ms / 1000:.1f} s"
            last = "–" if progress.last_ms is None else f"{progress.last_ms / 1000:.1f} s"
            rows.append(("Time" if compact else "Time/judgment ", f"median {median} · last {last}"))
        pool = [f"+{progress.new_items} new for you"] if progress.new_items else []
        pool += [f"{progress.unassigned} unassigned"] if progress.unassigned else []
        if pool:  # a pool round since the window opened, or items the organiser has not given anyone
            rows.append(("Pool", " · ".join(pool)))
        width = 9 if compact else 12
        text = Text()
        if not compact:
            text.append(f"Item {progress.position} of {progress.total}\n", style="bold")
        text.append("\n".join(f"{label:<{width}}{value}" for label, value in rows))
        self.update(text)


def tally_line(judged: int, unrateable: int, skipped: int, remaining: int) -> str:
    """``3 judged · 1 unrateable · 2 left (1 skipped)``: an unrateable item is never counted as judged."""
    parts = [f"{judged} judged"]
    if unrateable:
        parts.append(f"{unrateable} unrateable")
    left = f"{remaining} left"
    if skipped:
        left += f" ({skipped} skipped)"
    return " · ".join([*parts, left])


class DocumentView(VerticalScroll):
    """Title and doc id (once), the assessor's own decision and note, above the scrollable document text."""

    #: The document on screen (None while loading).
    doc_id: str | None = None
    rendered: Highlighted | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="doc-header")
        yield Static(id="doc-body")

    def show_loading(self, item: Item) -> None:
        self.doc_id = None
        self.rendered = None
        self.query_one("#doc-header", Static).update(shown(f"{item.doc_id}\nloading…", style="dim"))
        self.query_one("#doc-body", Static).update("")

    @property
    def text_widths(self) -> tuple[int, ...]:
        """The widths the next document may be rendered at: now, and with the vertical scrollbar toggled
        (a long document after a short one, or the reverse) — what pre-rendering must match."""
        width = self.query_one("#doc-body", Static).content_region.width
        if width <= 0:
            return ()
        bar = self.styles.scrollbar_size_vertical
        other = width + bar if self.show_vertical_scrollbar else width - bar
        return (width, other) if other > 0 else (width,)

    def show_document(
        self,
        item: Item,
        document: Document,
        rendered: Highlighted,
        *,
        decision: Judgment | None,
        note: str | None = None,
        elsewhere: Judgment | None = None,
        keep_scroll: bool = False,
    ) -> None:
        header = Text()
        if document.title.strip():
            header.append_text(shown(document.title, one_line=True, style="bold"))
            header.append(" · ", style="dim")
            header.append_text(shown(document.doc_id, one_line=True, style="dim"))
        else:
            header.append_text(shown(document.doc_id, one_line=True, style="bold"))
        if item.stale:
            header.append("\nre-queued: the text changed since it was judged", style="italic")
        if elsewhere is not None:
            header.append("\nDecided in another window: ", style="bold reverse")
            header.append(f" {decision_label(elsewhere)} at {clock_time(elsewhere.time)}", style="bold")
            header.append(" — a decision key asks before replacing it", style="italic")
        elif decision is not None:
            header.append("\nYour decision: ", style="bold")
            header.append(decision_label(decision))
        if note:
            header.append("\nYour note: ", style="bold")
            header.append_text(shown(note, one_line=True, style="italic"))
        self.query_one("#doc-header", Static).update(header)
        self.rendered = rendered
        self.query_one("#doc-body", Static).update(rendered)
        self.doc_id = document.doc_id
        if not keep_scroll:
            self.scroll_home(animate=False)

    def _body_options(self) -> tuple[Console, ConsoleOptions]:
        body = self.query_one("#doc-body", Static)
        width = body.content_region.width or self.size.width
        console = self.app.console
        return console, console.options.update_width(max(1, width))

    def _scroll_to_line(self, line: int) -> None:
        self.scroll_to(y=max(0, line - CONTEXT_LINES), animate=False)

    def jump_to_first_term(self) -> None:
        """Open the view at the first query term when it is below what the screen shows (the header is
        docked, so title, id and decision stay in view)."""
        if self.rendered is None:
            return
        line = self.rendered.first_term_line(*self._body_options())
        if line is not None and line >= self.scrollable_content_region.height:
            self._scroll_to_line(line)

    def find_matches(self) -> list[int]:
        """The rendered lines that match the find term."""
        if self.rendered is None:
            return []
        return self.rendered.matching_lines(*self._body_options())

    def scroll_to_match(self, line: int) -> None:
        self._scroll_to_line(line)


class ReportTable(DataTable[object]):
    """A table of the organiser's report whose header keeps up with its columns.

    Why: Textual measures a table's columns when the table is next idle after rows were added, and keeps the
    cells it rendered under a key that leaves out their width. A header painted in between — the screen
    refreshing meanwhile, a matter of timing — stayed narrower than its rows until something else changed
    (on a screen that is not refreshed again, for good: the organiser's kappa header now and then). The
    columns' new widths change the table's virtual size, so that is when the cached cells are dropped."""

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        self.notify_style_update()  # DataTable's own hook: it clears every rendered row and cell
        self.refresh()
