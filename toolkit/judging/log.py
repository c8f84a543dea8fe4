"""Deriving current judgments from the append-only log (docs/design.md §8).

The log is the truth; a "current judgment" is a view of it. Replaying in event order:

- a decision (``judge``, ``skip``, ``unrateable``, ``adjudicate``) is pushed on its item's stack, keyed by
  (assessor, query_id, doc_id); the top of the stack is the current decision, so re-judging an item
  replaces the grade and undoing the re-judgment brings the earlier grade back;
- ``undo`` removes the decision it names (``undoes``) from its stack — nothing is ever deleted from the log;
- ``note`` sets the item's note without changing its decision.

Pure functions over ``LogEvent`` sequences, so export, agreement and the TUI all see the same derivation.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolkit.judging.records import Judgment, LogEvent
from toolkit.model import fields_from

Key = tuple[str, str, str]  # (assessor, query_id, doc_id)

_DECISION_ACTIONS = frozenset({"judge", "skip", "unrateable", "adjudicate"})


def effective_stacks(events: Iterable[LogEvent]) -> tuple[dict[Key, list[LogEvent]], dict[Key, LogEvent]]:
    """Per item, the decisions still in force (oldest first), and the latest note event."""
    stacks: dict[Key, list[LogEvent]] = {}
    notes: dict[Key, LogEvent] = {}
    for event in sorted(events, key=lambda e: e.event_id):
        key = (event.assessor, event.query_id, event.doc_id)
        if event.action in _DECISION_ACTIONS:
            stacks.setdefault(key, []).append(event)
        elif event.action == "undo":
            stack = stacks.get(key, [])
            stacks[key] = [e for e in stack if e.event_id != event.undoes]
        elif event.action == "note":
            notes[key] = event
    return {k: v for k, v in stacks.items() if v}, notes


def derive_current(events: Iterable[LogEvent]) -> dict[Key, Judgment]:
    """The current decision of every (assessor, query_id, doc_id) that has one."""
    stacks, notes = effective_stacks(events)
    current: dict[Key, Judgment] = {}
    for key, stack in stacks.items():
        top = stack[-1]
        note = top.note
        later_note = notes.get(key)
        if later_note is not None and (note is None or later_note.event_id > top.event_id):
            note = later_note.note
        current[key] = fields_from(Judgment, top, note=note)
    return current


def latest_decision(
    events: Iterable[LogEvent], *, actions: frozenset[str] = _DECISION_ACTIONS
) -> LogEvent | None:
    """The most recent decision still in force among ``events`` (what ``undo`` cancels next)."""
    stacks, _ = effective_stacks(events)
    tops = [stack[-1] for stack in stacks.values() if stack[-1].action in actions]
    return max(tops, key=lambda e: e.event_id, default=None)
