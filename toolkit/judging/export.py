"""Export policies: how a campaign's judgments become one TREC qrels grade per (topic, doc).

Only ``judge`` decisions carry grades: a skip or an unrateable is never turned into a grade, and gold
items (quality control) are never exported. Per (topic, doc), over the current grades of all assessors:

- ``max`` / ``min``: the highest / lowest grade;
- ``mean``: the arithmetic mean rounded **half up** (1.5 → 2, 2.5 → 3; not Python's round-half-even,
  which would send 2.5 to 2 and 0.5 to 0);
- ``majority``: the most frequent grade; a tie between grades goes to the **lowest** tied grade (the
  conservative choice: a split vote never inflates relevance). Ties are counted in the result;
- ``assessor=NAME``: that assessor's grade only;
- ``adjudicated``: the adjudicator's grade where one exists, else the declared ``fallback`` policy
  (default ``majority``).

Items in the pool with no grade under the policy are "unjudged": ``unjudged="skip"`` leaves them out,
``unjudged=-1`` writes them with relevance -1 (trec_eval's "judged, not relevant/unknown").

A campaign with sampled rounds (``pool --sample``) exports its **inclusion probabilities** too
(``ExportResult.probabilities``, the fifth column of TREC Legal's ``.probs`` qrels): every document of the
sampled population is written — judged ones with their grade, the rest with −1 whatever ``unjudged`` says,
because the inferred measures need to know where the unjudged documents of the pool are — each with the
probability its latest sampled round gave it; a document judged outside any sample has probability 1.

Before anything is exported the whole log is checked against the rules the store applies when it appends
(``check_log``): a row written around them — by hand in an SQLite or psql shell, by an older toolkit, by a
login the server should not have let in — stops the export with one line naming the event, instead of
reaching the qrels.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from toolkit.errors import StoreError, UsageError
from toolkit.formats.names import assessor_problem
from toolkit.judging.itemgrades import ItemGrades, choose_item_grades, read_item_grades
from toolkit.judging.queries import Grade
from toolkit.judging.records import CampaignTopic, LogEvent
from toolkit.judging.store import CampaignStore, EventFacts, event_problem
from toolkit.model import Qrels

BASE_POLICIES = ("majority", "mean", "max", "min")
POLICIES = ("adjudicated", *BASE_POLICIES, "assessor=NAME")


@dataclass(frozen=True)
class Policy:
    """A parsed ``--policy`` value."""

    name: str  # adjudicated | majority | mean | max | min | assessor
    assessor: str | None = None
    fallback: str = "majority"

    def __str__(self) -> str:
        if self.name == "assessor":
            return f"assessor={self.assessor}"
        if self.name == "adjudicated":
            return f"adjudicated (fallback {self.fallback})"
        return self.name


def parse_policy(text: str, *, fallback: str = "majority") -> Policy:
    value = text.strip()
    if value.startswith("assessor="):
        name = value.split("=", 1)[1].strip()
        if not name:
            raise UsageError("--policy assessor=NAME: name the assessor")
        return Policy("assessor", assessor=name)
    if fallback not in BASE_POLICIES:
        raise UsageError(f"--fallback {fallback}: use one of {', '.join(BASE_POLICIES)}")
    if value in ("adjudicated", *BASE_POLICIES):
        return Policy(value, fallback=fallback)
    raise UsageError(f"--policy {text}: use one of {', '.join(POLICIES)}")


def round_half_up(value: float) -> int:
    return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def combine(grades: Sequence[int], policy: str) -> tuple[int, bool]:
    """One grade from several under a base policy; the flag says a majority tie was broken."""
    if policy == "max":
        return max(grades), False
    if policy == "min":
        return min(grades), False
    if policy == "mean":
        return round_half_up(sum(grades) / len(grades)), False
    if policy == "majority":
        if len(grades) <= 2:  # the common case, one or two assessors: no counting needed
            return min(grades), len(grades) == 2 and grades[0] != grades[1]
        counts = Counter(grades)
        top = max(counts.values())
        tied = sorted(g for g, c in counts.items() if c == top)
        return tied[0], len(tied) > 1
    raise UsageError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")


@dataclass(frozen=True)
class ExportResult:
    """The qrels and the facts the manifest records about how they were made."""

    qrels: Qrels
    policy: str
    assessors: tuple[str, ...]
    items: int
    graded: int
    unjudged: int
    unjudged_written: bool
    adjudicated: int
    majority_ties: int
    gold_excluded: int
    grade_counts: Mapping[int, int] = field(default_factory=dict)
    #: a sampled campaign's inclusion probability of every exported (topic, doc) (None: not sampled)
    probabilities: Mapping[str, Mapping[str, float]] | None = None

    def manifest(self) -> dict[str, object]:
        extra: dict[str, object] = {}
        if self.probabilities is not None:
            extra["columns"] = "query_id iteration doc_id relevance probability (inclusion probability)"
        return {
            "policy": self.policy,
            "assessors": list(self.assessors),
            "counts": {
                "items": self.items,
                "graded": self.graded,
                "unjudged": self.unjudged,
                "unjudged_written_as": -1 if self.unjudged_written else None,
                "adjudicated": self.adjudicated,
                "majority_ties": self.majority_ties,
                "gold_excluded": self.gold_excluded,
                "grades": {str(g): n for g, n in sorted(self.grade_counts.items())},
            },
            **extra,
        }


def check_log(store: CampaignStore) -> None:
    """Raise ``StoreError`` naming the first log event the campaign's rules refuse (``event_problem``): a
    grade off the scale, a topic or document the campaign does not hold, an assessor name with control or
    bidi characters, an undo of nothing its assessor decided on that item.

    The database names the events that may break a rule (``CampaignStore.log_suspects``: none, on a log the
    toolkit wrote), and each is judged here by the rules themselves, in log order; so checking a log of real
    size costs one query, not a record per event."""
    suspects = {e.event_id: e for e in store.log_suspects()}
    for name in store.log_assessors():
        if assessor_problem(name):
            first = store.events(assessor=name)[0]
            suspects[first.event_id] = first
    grades = store.grades()
    for event_id in sorted(suspects):
        event = suspects[event_id]
        problem = _problem(store, event, grades)
        if problem:
            raise StoreError(
                f"{store.location}: judgment log event {event.event_id} breaks the campaign's rules ({problem}); "
                "it was written around the toolkit, so nothing was exported — check who wrote it "
                "(`trec-toolkit judgments export --log`)"
            )


def check_log_beside(store: CampaignStore) -> Callable[[], None]:
    """Start ``check_log`` on a connection of its own (``toolkit.judging.beside``); calling what is returned
    waits for it and raises what it raised. The check is a statement over the whole log (0.45 s of an export at
    342,302 events, by design: every event against the rules) that the database runs while this process reads
    the grades beside it. The same check, of the same log, as ``check_log(store)``: where a second connection
    cannot be opened, the call runs that instead."""
    from toolkit.judging.beside import beside

    return beside(store, check_log)


def _problem(store: CampaignStore, event: LogEvent, grades: Mapping[int, str]) -> str | None:
    """Why the rules refuse ``event`` (None: they do not)."""
    try:
        topic: CampaignTopic | None = store.topic(event.query_id)
    except StoreError:
        topic = None
    facts = EventFacts(grades, topic, store.knows_document(event.query_id, event.doc_id))
    problem = assessor_problem(event.assessor) or event_problem(
        event.action, event.grade, event.query_id, event.doc_id, facts
    )
    if problem is None and event.action == "undo":
        same_item = store.events(assessor=event.assessor, query_id=event.query_id, doc_id=event.doc_id)
        target = next(
            (e for e in same_item if e.event_id == event.undoes and e.event_id < event.event_id), None
        )
        if target is None or target.action == "undo":
            problem = (
                f"an undo of event {event.undoes}, which is not a decision of {event.assessor!r} on this item"
            )
    return problem


def choose_grades(
    graded: Iterable[tuple[tuple[str, str], Mapping[str, int]]],
    policy: Policy,
    adjudications: Mapping[tuple[str, str], Any],
    gold: Collection[tuple[str, str]],
) -> tuple[dict[tuple[str, str], int], int, int]:
    """The policy applied to each item's grades by assessor: (grade per item, ties broken, adjudicated items).

    One place for the rule, whichever way the grades were read (the database's read model, or a test's replay
    of the log that holds that read model to the log)."""
    if policy.name == "assessor":
        chosen = {
            key: per[policy.assessor]
            for key, per in graded
            if policy.assessor is not None and policy.assessor in per
        }
        return chosen, 0, _ungraded(chosen, adjudications, gold)
    return _combined(((key, list(per.values())) for key, per in graded), policy, adjudications, gold)


def _combined(
    graded: Iterable[tuple[tuple[str, str], Sequence[int]]],
    policy: Policy,
    adjudications: Mapping[tuple[str, str], Any],
    gold: Collection[tuple[str, str]],
) -> tuple[dict[tuple[str, str], int], int, int]:
    """``choose_grades`` for every policy but ``assessor=NAME``, from each item's grades alone (which
    assessor gave which does not matter to them): no mapping per item to build, a third of export's policy
    time at 171,151 items."""
    base = policy.fallback if policy.name == "adjudicated" else policy.name
    chosen: dict[tuple[str, str], int] = {}
    ties = adjudicated = 0
    for key, grades in graded:
        adj = adjudications.get(key) if adjudications else None
        if adj is not None and adj.grade is not None:
            chosen[key] = adj.grade
            adjudicated += 1
            continue
        grade, tie = combine(grades, base)
        chosen[key] = grade
        ties += tie
    return chosen, ties, adjudicated + _ungraded(chosen, adjudications, gold)


def _ungraded(
    chosen: dict[tuple[str, str], int],
    adjudications: Mapping[tuple[str, str], Any],
    gold: Collection[tuple[str, str]],
) -> int:
    """Add to ``chosen`` the adjudicated items nobody graded (e.g. all said unrateable); how many."""
    added = 0
    for key, adj in adjudications.items():
        if key not in chosen and key not in gold and adj.grade is not None:
            chosen[key] = adj.grade
            added += 1
    return added


def export_qrels(
    store: CampaignStore,
    policy: Policy,
    *,
    unjudged: str | int = "skip",
    name: str = "qrels",
    grades: Sequence[Grade] | ItemGrades | None = None,
    checked: Callable[[], None] | None = None,
) -> ExportResult:
    """Apply ``policy`` to the campaign's current judgments; see the module docstring. ``grades``: what the
    caller has read already — ``read_item_grades(store)`` (the grades numbered against the pool, applied with
    arrays: ``toolkit.judging.itemgrades``) or ``store.current_grades()`` (rows, applied item by item); by
    default the first, and rows where it does not apply. Both give the same result. ``checked``: the log
    check the caller started (``check_log_beside``), awaited before anything is returned; by default
    ``check_log`` runs first."""
    if unjudged not in ("skip", -1):
        raise UsageError(f"--unjudged {unjudged}: use -1 or skip")
    if checked is None:
        check_log(store)
    try:
        result = _export(store, policy, unjudged=unjudged, name=name, grades=grades)
    except Exception:
        if checked is not None:
            checked()  # a row written around the rules is the first thing to say
        raise
    if checked is not None:
        checked()
    return result


def _export(
    store: CampaignStore,
    policy: Policy,
    *,
    unjudged: str | int,
    name: str,
    grades: Sequence[Grade] | ItemGrades | None,
) -> ExportResult:
    """``export_qrels`` once the log is checked (or while it is, beside)."""
    if policy.name == "assessor" and policy.assessor not in set(store.assessors()):
        known = ", ".join(store.assessors()) or "none yet"
        raise UsageError(f"--policy assessor={policy.assessor}: no such assessor in this campaign ({known})")
    if grades is None and policy.name != "assessor":
        grades = read_item_grades(store)
    if isinstance(grades, ItemGrades):
        result = export_items(store, policy, grades, unjudged=unjudged, name=name)
        if result is not None:
            return result
        grades = None  # not a case the arrays cover: rows
    gold = set(store.gold())
    rows = store.current_grades() if grades is None else grades  # gold aside; topic order, doc, assessor
    assessors = sorted(set(map(operator.itemgetter(2), rows)))
    adjudications = store.adjudications() if policy.name == "adjudicated" else {}

    items = itertools.groupby(rows, key=operator.itemgetter(0, 1))  # rows are in (topic, doc) order
    if policy.name == "assessor":
        chosen, ties, adjudicated = choose_grades(
            ((key, {r[2]: r[3] for r in group}) for key, group in items), policy, adjudications, gold
        )
    else:
        grade = operator.itemgetter(3)
        chosen, ties, adjudicated = _combined(
            ((key, list(map(grade, group))) for key, group in items), policy, adjudications, gold
        )

    sampled: dict[tuple[str, str], float] = {}
    for row in store.inclusion():  # by round: the latest round's probability stands
        sampled[(row.query_id, row.doc_id)] = row.probability
    universe = store.pooled(include_gold=False)  # topic order, then doc id
    pooled = set(universe)
    # a sampled round's population, and what was graded or adjudicated but never pooled
    extra = [key for key in dict.fromkeys([*sampled, *chosen]) if key not in pooled and key not in gold]
    if extra:
        order = {t.query_id: i for i, t in enumerate(store.topics())}
        universe = sorted([*universe, *extra], key=lambda k: (order.get(k[0], len(order)), k[0], k[1]))
    judgments: dict[str, dict[str, int]] = {}
    missing = 0
    for query_id, doc_id in universe:
        value = chosen.get((query_id, doc_id))
        if value is None:
            missing += 1
            if unjudged == "skip" and (query_id, doc_id) not in sampled:
                continue
            value = -1
        judgments.setdefault(query_id, {})[doc_id] = value
    probabilities = None
    if sampled:
        probabilities = {q: {d: sampled.get((q, d), 1.0) for d in docs} for q, docs in judgments.items()}
    return ExportResult(
        qrels=Qrels(judgments=judgments, name=name),
        policy=str(policy),
        assessors=tuple([policy.assessor] if policy.assessor else assessors),
        items=len(universe),
        graded=len(chosen),
        unjudged=missing,
        unjudged_written=unjudged != "skip",
        adjudicated=adjudicated,
        majority_ties=ties,
        gold_excluded=len(gold),
        grade_counts=dict(Counter(chosen.values())),
        probabilities=probabilities,
    )


def export_items(
    store: CampaignStore, policy: Policy, grades: ItemGrades, *, unjudged: str | int, name: str
) -> ExportResult | None:
    """``export_qrels`` from the grades numbered against the pool (``toolkit.judging.itemgrades``); None
    where that does not apply: ``assessor=NAME``, sampled rounds (their population is exported too), an
    adjudication outside the pool."""
    import numpy as np

    if policy.name == "assessor" or store.inclusion():
        return None
    gold = store.gold()
    adjudications = store.adjudications() if policy.name == "adjudicated" and grades.adjudicated else {}
    base = policy.fallback if policy.name == "adjudicated" else policy.name
    choice = choose_item_grades(grades, base, adjudications, gold)
    if choice is None:
        return None
    written = unjudged != "skip"
    values = (np.where(choice.chosen, choice.grade, -1) if written else choice.grade).tolist()
    kept = [True] * len(values) if written else choice.chosen.tolist()
    judgments: dict[str, dict[str, int]] = {}
    start = 0
    for query_id, items in itertools.groupby(grades.query_ids):  # the pool's order: topic order, then doc id
        end = start + sum(1 for _ in items)
        docs = dict(
            zip(
                itertools.compress(grades.doc_ids[start:end], kept[start:end]),
                itertools.compress(values[start:end], kept[start:end]),
                strict=True,
            )
        )
        if docs:
            judgments[query_id] = docs
        start = end
    values, counts = np.unique(choice.grade[choice.chosen], return_counts=True)
    graded = int(choice.chosen.sum())
    return ExportResult(
        qrels=Qrels(judgments=judgments, name=name),
        policy=str(policy),
        assessors=grades.assessors,
        items=len(grades.query_ids),
        graded=graded,
        unjudged=len(grades.query_ids) - graded,
        unjudged_written=written,
        adjudicated=choice.adjudicated,
        majority_ties=choice.ties,
        gold_excluded=len(gold),
        grade_counts=dict(zip(values.tolist(), counts.tolist(), strict=True)),
    )
