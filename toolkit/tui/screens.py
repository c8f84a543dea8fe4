"""Modal screens of the judging app: note, find, guidelines, help, and the "queue done" screen.

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


class PromptScreen(ModalScreen[str | None]):
    """One line of input: Enter returns the text, Escape returns None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            yield Label("Enter to save · Escape to cancel", classes="dialog-hint")

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

    def __init__(self, value: str = "") -> None:
        super().__init__("Find in document", value, "text to find")


class TextScreen(ModalScreen[None]):
    """A scrollable page of text (guidelines, help) closed with Escape or q."""

    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, title: str, body: Markdown | Table | Text | str) -> None:
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
        [text.strip()]
        if text and text.strip()
        else [
            "Judge each document for the topic on the left: would a user who typed the query, with the need "
            "the description and narrative spell out, want this page? Judge the document as shown, on its own; "
            "do not look for it elsewhere. Skip (`s`) when you need to come back to it later; mark it "
            "unrateable (`x`) when it cannot be judged (empty, broken, in a language you cannot read)."
        ]
    )
    parts.append("## Grades\n\n" + "\n".join(f"- **{g}**: {d}" for g, d in sorted(grades.items())))
    return Markdown("\n\n".join(parts))


def help_table(rows: list[tuple[str, str]]) -> Table:
    table = Table(box=None, show_header=True, header_style="bold")
    table.add_column("key")
    table.add_column("does")
    for key, description in rows:
        table.add_row(key, description)
    return table


class DoneScreen(Screen[None]):
    """Shown when every item of the queue has a decision; undo/previous go back, q quits."""

    def __init__(self, summary: str, title: str = "Queue done") -> None:
        super().__init__()
        self.summary = summary
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="done"):
            yield Label(self.title_text, id="done-title")
            yield Static(self.summary, id="done-summary")
        yield Footer()
