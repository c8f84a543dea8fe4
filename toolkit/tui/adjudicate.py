"""``trec-toolkit adjudicate CAMPAIGN --adjudicator NAME``: settle the items assessors disagree on.

Same screen as judging (topic, grades, document) plus each assessor's grade and note; the disagreements
come widest spread first. The adjudicator sees who graded what (that is the job) but still no run names
or ranks. Writes go through the same queue and writer as judging (``toolkit.tui.writing``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from toolkit.formats.text import visible
from toolkit.judging.adjudication import AdjudicationSession
from toolkit.judging.journal import journal_folder
from toolkit.judging.store import CampaignStore, campaign_label
from toolkit.tui.app import CampaignApp, action_bindings, grade_bindings
from toolkit.tui.widgets import shown


class AssessorsPanel(Static):
    """Each assessor's grade (with its definition's label) and note on the current item."""

    def show_grades(self, session: AdjudicationSession) -> None:
        d = session.disagreement
        if d is None:
            self.update("")
            return
        text = Text()
        for i, g in enumerate(sorted(d.grades, key=lambda g: (-g.grade, g.assessor))):
            if i:
                text.append("\n")
            text.append_text(shown(f"{visible(g.assessor, one_line=True)}: ", style="bold"))
            text.append(f"grade {g.grade}")
            if g.note:
                text.append_text(shown(f"\n  “{visible(g.note, one_line=True)}”", style="italic"))
        text.append(f"\n\nSpread {d.spread}", style="dim")
        pending = session.notes.get((d.query_id, d.doc_id))
        if pending:
            text.append_text(shown(f"\nYour note: {visible(pending, one_line=True)}", style="italic"))
        self.update(text)


class AdjudicationProgress(Static):
    def show_progress(self, session: AdjudicationSession) -> None:
        position = "–" if session.cursor is None else str(session.cursor + 1)
        self.update(
            f"Disagreement {position} of {len(session.items)}\n"
            f"Adjudicated {session.done_count} · remaining {len(session.items) - session.done_count}"
        )


class AdjudicateApp(CampaignApp):
    """Walk the disagreements; build it with :func:`adjudicate_app` (the bindings depend on the scale)."""

    TITLE = "trec-toolkit adjudicate"
    LAST_MESSAGE = "This is the last disagreement."
    FIRST_MESSAGE = "This is the first disagreement."
    session: AdjudicationSession

    def __init__(
        self,
        store: CampaignStore,
        adjudicator: str,
        *,
        path: str | Path,
        include_done: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(store, path=path, **options)
        self.session = AdjudicationSession(
            store, adjudicator, include_done=include_done, write_through=False, journal=journal_folder(path)
        )
        self.sub_title = visible(f"{campaign_label(path)} · adjudicator {adjudicator}", one_line=True)
        if not self.session.items:
            self.DONE_TITLE = "Nothing to adjudicate"
        else:
            self.DONE_TITLE = "All disagreements adjudicated"

    def side_panels(self) -> list[Widget]:
        return [
            AssessorsPanel(id="assessors", classes="panel"),
            AdjudicationProgress(id="progress", classes="panel"),
        ]

    def position(self) -> str:
        if self.session.cursor is None:
            return f"{self.session.done_count} of {len(self.session.items)} adjudicated"
        return f"Disagreement {self.session.cursor + 1} of {len(self.session.items)}"

    def refresh_panels(self) -> None:
        self.query_one(AssessorsPanel).show_grades(self.session)
        self.query_one(AdjudicationProgress).show_progress(self.session)
        self._show_border()

    def done_summary(self) -> Text:
        if self.session.nothing_shared:
            return Text(
                "No item has two assessors' grades yet, so there is nothing to adjudicate.\n\n"
                "Disagreements appear once two assessors have graded the same item (`assign --overlap`); "
                "come back when they have judged."
            )
        if not self.session.items:
            return Text(
                "No disagreements to adjudicate: every item graded by two or more assessors has one grade."
            )
        return Text(
            f"All {len(self.session.items)} disagreements are adjudicated"
            f"{' and saved' if not len(self.session.log.outbox) else ''}.\n\n"
            "u undoes your last adjudication, p goes back through the list, q quits."
        )

    def closing_summary(self) -> str:
        if self.session.nothing_shared:
            return "No item has two assessors' grades yet: nothing to adjudicate.\n"
        return f"Adjudicated {self.session.done_count} of {len(self.session.items)} disagreements.\n"

    def note_saved(self, had_decision: bool) -> None:
        """The pending note shows in the assessors panel (it is saved with the next grade)."""
        self.refresh_panels()
        self.notify("Note kept: it is saved with your adjudicated grade for this item.")


#: Adjudication has no "unrateable": an adjudicator settles a grade or leaves the item for later.
ADJUDICATE_IDS = ("skip", "undo", "next", "previous", "note", "guidelines", "find", "help", "quit")


def adjudicate_app(path: str | Path, adjudicator: str, **options: Any) -> AdjudicateApp:
    store = CampaignStore.open(path)
    try:
        bindings = grade_bindings(store.grades()) + action_bindings(ADJUDICATE_IDS)
        cls = type("AdjudicateApp", (AdjudicateApp,), {"BINDINGS": bindings, "__module__": __name__})
        return cls(store, adjudicator, path=path, **options)  # type: ignore[no-any-return]
    except BaseException:
        store.close()
        raise
