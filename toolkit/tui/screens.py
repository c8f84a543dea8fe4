"""Modal screens of the judging app: note, find, confirm, guidelines, help, "saving before closing", and the
"queue done" screen; and the session summary that "queue done" shows and quitting prints.

Each modal returns its answer through ``dismiss`` (messages up); none of them touches the store.
"""

from __future__ import annotations

from rich.markdown import Markdown
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Label, Static

from toolkit.formats.text import visible
from toolkit.judging.session import SessionSummary


class PromptScreen(ModalScreen[str | None]):
    """One line of input: Enter returns the text, Escape returns None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    HINT = "Enter to save · Escape to cancel"

    def __init__(self, title: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text), classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            yield Label(self.HINT, classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class NoteScreen(PromptScreen):
    """A free-text note on the current item (kept in the log, shown to the adjudicator)."""

    def __init__(self, value: str = "") -> None:
        super().__init__("Note on this document", value, "why this grade, what was unclear …")


class FindScreen(PromptScreen):
    """The text to find in the document (case-insensitive); Enter again on the same text finds the next."""

    HINT = "Enter to search (again for the next match) · Escape to cancel"

    def __init__(self, value: str = "") -> None:
        super().__init__("Find in document", value, "text to find")


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question (y or Enter: yes; n or Escape: no)."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, question: Text | str) -> None:
        super().__init__()
        self.title_text = title
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text), classes="dialog-title")
            yield Static(Text(self.question) if isinstance(self.question, str) else self.question)
            yield Label("y to replace · n to keep it", classes="dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class SavingScreen(ModalScreen[bool]):
    """Shown when quitting with decisions not yet saved: the app closes once they are; Escape goes back;
    ctrl+q leaves now, the unsaved decisions written to a file (dismisses with True)."""

    BINDINGS = [
        Binding("escape", "back", "Back to judging"),
        Binding("ctrl+q", "leave", "Leave now", priority=True),
    ]

    def __init__(self, status: str) -> None:
        super().__init__()
        self.status = status

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Saving before closing", classes="dialog-title")
            yield Static(Text(self.status), id="saving-status")
            yield Label(
                "The app closes by itself once every decision is saved · Escape to go back",
                classes="dialog-hint",
            )

    def show_status(self, status: str) -> None:
        self.status = status
        self.query_one("#saving-status", Static).update(Text(status))

    def action_back(self) -> None:
        self.dismiss(False)

    def action_leave(self) -> None:
        self.dismiss(True)


class TextScreen(ModalScreen[None]):
    """A scrollable page of text (guidelines, help) closed with Escape or q."""

    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, title: str, body: Markdown | Table | Text) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide"):
            yield Label(self.title_text, classes="dialog-title")
            with VerticalScroll():
                yield Static(self.body)
            yield Label("Escape to close", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)


def guidelines_page(grades: dict[int, str], text: str | None) -> Markdown:
    """The guidelines: the campaign's own text (if any) followed by the grade definitions."""
    parts = (
        [visible(text.strip())]
        if text and text.strip()
        else [
            "Judge each document for the topic on the left: would a user who typed the query, with the need "
            "the description and narrative spell out, want this page? Judge the document as shown, on its own; "
            "do not look for it elsewhere. Skip (`s`) when you need to come back to it later; mark it "
            "unrateable (`x`) when it cannot be judged (empty, broken, in a language you cannot read)."
        ]
    )
    parts.append("## Grades\n\n" + "\n".join(f"- **{g}**: {visible(d)}" for g, d in sorted(grades.items())))
    return Markdown("\n\n".join(parts), hyperlinks=False)


def help_table(rows: list[tuple[str, str]], scroll_rows: list[tuple[str, str]] | None = None) -> Table:
    """The keys: every action of the screen, then the keys that scroll the document."""
    table = Table(box=None, show_header=True, header_style="bold")
    table.add_column("key")
    table.add_column("does")
    for key, description in rows:  # Text, not str: a key such as "[" is not markup
        table.add_row(Text(key), Text(description))
    if scroll_rows:
        table.add_row("", "")
        table.add_row(Text("Scrolling the document", style="bold"), "")
        for key, description in scroll_rows:
            table.add_row(Text(key), Text(description))
        table.add_row("mouse wheel", "Scroll")
    return table


def duration(seconds: float) -> str:
    """``42 s``, ``4 min 12 s``, ``1 h 03 min``: what people read at a glance."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def summary_lines(summary: SessionSummary, *, show_times: bool = True) -> list[str]:
    """The session's counts and time spent, labels and numbers aligned (the done screen and the exit print)."""
    t = summary.tally
    rows = [
        ("Judged", str(t.judged), ""),
        ("Unrateable", str(t.unrateable), ""),
        ("Skipped", str(t.skipped), "(they come back until decided)" if t.skipped else ""),
        ("Left", str(t.remaining), f"of {t.assigned}"),
    ]
    if summary.unsaved:
        rows.append(("Not saved", str(summary.unsaved), "(the campaign is busy; still trying)"))
    width = max(len(n) for _, n, _ in rows)
    lines = [f"{label:<14}{n:>{width}}  {extra}".rstrip() for label, n, extra in rows]
    if show_times:
        lines.append(
            f"{'Time judging':<14}{duration(summary.judging_ms / 1000)} (reading time of every decision)"
        )
        lines.append(
            f"{'This session':<14}{duration(summary.session_s)}, {summary.decided_now} "
            f"decision{'s' if summary.decided_now != 1 else ''}"
        )
    return lines


class DoneScreen(Screen[None]):
    """Shown when every item of the queue has a decision; undo/previous go back, q quits."""

    def __init__(self, summary: Text, title: str = "Queue done") -> None:
        super().__init__()
        self.summary = summary
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="done"):
            yield Label(self.title_text, id="done-title")
            yield Static(self.summary, id="done-summary")
        yield Footer(compact=True)
