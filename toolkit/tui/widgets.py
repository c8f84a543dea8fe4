"""The panels of the judging screen. Attributes go down (``show_…`` methods), nothing comes back up.

The document is rendered with Rich (Markdown when the text looks like Markdown, plain text otherwise) and the
query terms are highlighted *after* rendering, line by line, so highlighting never breaks the Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from toolkit.judging.records import CampaignTopic, Document, Item, Judgment
from toolkit.judging.session import SessionProgress

#: Words too common to be worth highlighting.
STOPWORDS = frozenset(
    "a an and are as at be by do does for from how i in is it of on or the to what when where which who why with".split()  # noqa: SIM905
)
_MARKDOWN_SIGNS = (
    re.compile(r"^#{1,6} \S", re.M),
    re.compile(r"^```", re.M),
    re.compile(r"\[[^\]]+\]\([^)]+\)"),
    re.compile(r"^\s*[-*+] \S", re.M),
    re.compile(r"\*\*[^*]+\*\*|`[^`\n]+`"),
)

TERM_STYLE = "bold black on yellow"
FIND_STYLE = "bold white on dark_red"


def looks_like_markdown(text: str) -> bool:
    """Markdown if it has a heading or a code fence, or two other kinds of Markdown syntax."""
    signs = [bool(p.search(text)) for p in _MARKDOWN_SIGNS]
    return signs[0] or signs[1] or sum(signs) >= 2


def query_terms(query: str) -> list[str]:
    """The words of a query worth highlighting (lower-cased, no stopwords, longest first)."""
    words = {w.lower() for w in re.findall(r"\w+", query) if len(w) > 1 and w.lower() not in STOPWORDS}
    return sorted(words, key=lambda w: (-len(w), w))


def terms_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    terms = [t for t in terms if t]
    return re.compile("|".join(re.escape(t) for t in terms), re.I) if terms else None


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

    def find_lines(self, console: Console, options: ConsoleOptions) -> list[int]:
        if self.find is None:
            return []
        return [i for i, line in enumerate(self.lines(console, options)) if self.find.search(line.plain)]

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


def render_document(document: Document, query: str, find: str | None = None) -> Highlighted:
    if document.fetch_error:
        body: RenderableType = Text(
            f"This document could not be fetched: {document.fetch_error}", style="italic"
        )
    elif not document.text.strip():
        body = Text("(empty document)", style="italic")
    elif looks_like_markdown(document.text):
        body = Markdown(document.text, code_theme="ansi_dark")
    else:
        body = Text(document.text)
    return Highlighted(body, terms_pattern(query_terms(query)), terms_pattern([find]) if find else None)


class TopicPanel(Static):
    """The topic: query, class, description and narrative."""

    def show_topic(self, topic: CampaignTopic) -> None:
        text = Text()
        text.append(topic.query, style="bold")
        text.append(f"\ntopic {topic.query_id}", style="dim")
        if topic.query_class:
            text.append(f" · class {topic.query_class}", style="dim")
        if topic.description:
            text.append("\n\nDescription\n", style="bold underline")
            text.append(topic.description)
        if topic.narrative:
            text.append("\n\nNarrative\n", style="bold underline")
            text.append(topic.narrative)
        self.update(text)


class GradePanel(Static):
    """The grade definitions, each with the key that gives it."""

    def show_grades(self, grades: dict[int, str], keys: dict[int, str]) -> None:
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_column(ratio=1)
        for grade, definition in sorted(grades.items()):
            key = keys.get(grade, "·")
            label = Text(f" {key} ", style="reverse bold")
            if key != str(grade):
                label.append(f" = {grade}", style="bold")
            table.add_row(label, definition)
        self.update(table)


class ProgressPanel(Static):
    """This topic and overall: judged and remaining; time per judgment (hidden when ``show_times`` is off)."""

    def show_progress(self, progress: SessionProgress, *, show_times: bool = True) -> None:
        t, o = progress.topic, progress.overall
        text = Text()
        text.append(f"Item {progress.position} of {progress.total}\n", style="bold")
        text.append(f"This topic  {t.done}/{t.assigned} judged · {t.remaining} remaining")
        if t.skipped:
            text.append(f" ({t.skipped} skipped)")
        text.append(f"\nOverall     {o.done}/{o.assigned} judged · {o.remaining} remaining")
        if o.skipped:
            text.append(f" ({o.skipped} skipped)")
        if show_times:
            median = "–" if progress.median_ms is None else f"{progress.median_ms / 1000:.1f} s"
            last = "–" if progress.last_ms is None else f"{progress.last_ms / 1000:.1f} s"
            text.append(f"\nTime/judgment  median {median} · last {last}")
        pool = [f"+{progress.new_items} new for you"] if progress.new_items else []
        pool += [f"{progress.unassigned} unassigned"] if progress.unassigned else []
        if pool:  # a pool round since the window opened, or items the organiser has not given anyone
            text.append("\nPool        " + " · ".join(pool))
        self.update(text)


class DocumentView(VerticalScroll):
    """Title, doc id and the assessor's own decision (if any) above the scrollable document text."""

    #: The document on screen (None while loading).
    doc_id: str | None = None
    rendered: Highlighted | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="doc-header")
        yield Static(id="doc-body")

    def show_loading(self, item: Item) -> None:
        self.doc_id = None
        self.rendered = None
        self.query_one("#doc-header", Static).update(Text(f"{item.doc_id}\nloading…", style="dim"))
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
        query: str,
        decision: Judgment | None,
        find: str | None = None,
        rendered: Highlighted | None = None,
    ) -> None:
        header = Text()
        header.append(document.title or document.doc_id, style="bold")
        header.append(f"\n{document.doc_id}", style="dim")
        if item.stale:
            header.append("  · re-queued: the text changed since it was judged", style="italic")
        if decision is not None:
            header.append("\nYour decision: ", style="bold")
            labels = {"skip": "skipped", "unrateable": "unrateable"}
            header.append(labels.get(decision.action, f"grade {decision.grade}"))
            if decision.note:
                header.append(f" · note: {decision.note}", style="italic")
        self.query_one("#doc-header", Static).update(header)
        self.rendered = (
            rendered if rendered is not None and find is None else render_document(document, query, find)
        )
        self.query_one("#doc-body", Static).update(self.rendered)
        self.doc_id = document.doc_id
        if find is None:
            self.scroll_home(animate=False)

    def find_first(self, after_line: int = -1) -> int | None:
        """Scroll to the first line matching the find term below ``after_line``; its index, or None."""
        if self.rendered is None:
            return None
        body = self.query_one("#doc-body", Static)
        width = body.content_region.width or self.size.width
        console = self.app.console
        lines = self.rendered.find_lines(console, console.options.update_width(max(1, width)))
        target = next((i for i in lines if i > after_line), lines[0] if lines else None)
        if target is not None:
            header_height = self.query_one("#doc-header", Static).outer_size.height
            self.scroll_to(y=header_height + target, animate=False)
        return target
