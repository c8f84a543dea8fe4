"""Assigning pool items to assessors: whole topics, measured overlap, seeded blind order, gold items.

The rules, in the order they are applied:

1. **Whole topics.** Each topic has one owner who gets all its items. The owner is recorded in the campaign
   (meta ``topic_owners``) when the topic is first assigned and never moves while the owner is among the
   assessors named: rerunning the same ``assign`` changes nothing, and a later round's items of a topic go
   to its owner. New topics go, largest first, to the assessor with the least work so far (ties: the order
   of ``--assessors``). A topic whose owner is not named any more goes to a named assessor as a new topic
   would (and a warning says so). Reading a topic's description once and judging all its documents is how
   TREC assessors work, and it keeps one person's notion of relevance per topic.
2. **Overlap, by item within each topic.** In every topic, ``round(overlap × n)`` of its ``n`` new items (half
   rounds up), drawn with the seed, also go to a second assessor — the one who already shares the topic,
   else the least loaded other assessor — so agreement is measured on every topic in proportion to its
   size. A one-item topic is shared when ``overlap ≥ 0.5`` (half rounds up) and its owner stays its owner.
   ``overlap="all"`` gives every item to every assessor (what Fleiss' kappa needs).
3. **Gold items** (``--gold FILE``: ``query_id<TAB>doc_id<TAB>grade``) go to every assessor, mixed into
   their topic; their grades are known, so they measure assessors and never reach an export.
4. **Order.** Each assessor's new items are presented topic by topic (topics in a seeded shuffle) and, within
   a topic, in a seeded shuffle — ``random.Random(f"{seed}:{assessor}")``, so the order is reproducible
   and carries nothing of the runs' ranks. New items are appended after the assessor's existing queue.

Only pool items with no assignment yet are assigned; stale items re-queued by a later round stay with the
assessors who judged them (their queues show them again).

**Names** are trimmed and compared exactly (``Bob`` and ``bob`` are two people); a name that differs from an
existing assessor only by case or blanks is warned about, since it is almost always a typo that would
otherwise start a second queue.

**The policy** (assessors, overlap, seed) is recorded in the campaign (meta ``assign_policy``) every time
``assign`` runs, so a later ``pool`` round assigns its new items the same way (``assign_new_items``).
"""

from __future__ import annotations

import json
import random
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from toolkit.errors import ToolkitWarning, UsageError
from toolkit.formats.judgments import iter_gold_rows
from toolkit.judging.records import Document, Item, check_assessor
from toolkit.judging.store import CampaignStore

Overlap = float | str  # a fraction in [0, 1] or "all"

#: Campaign metadata keys: the last ``assign``'s policy, and each topic's owner.
POLICY_KEY = "assign_policy"
OWNERS_KEY = "topic_owners"


@dataclass(frozen=True)
class AssignPolicy:
    """How ``assign`` shared a campaign out, as recorded for the next rounds."""

    assessors: tuple[str, ...]
    overlap: Overlap = 0.0
    seed: int = 0

    def to_json(self) -> str:
        return json.dumps({"assessors": list(self.assessors), "overlap": self.overlap, "seed": self.seed})

    @classmethod
    def from_json(cls, text: str) -> AssignPolicy:
        data = json.loads(text)
        return cls(tuple(data["assessors"]), data["overlap"], int(data["seed"]))

    def command(self, location: str) -> str:
        """The ``trec-toolkit assign`` command line that applies this policy."""
        overlap = self.overlap if self.overlap == "all" else f"{float(self.overlap):g}"
        return (
            f"trec-toolkit assign {location} --assessors {','.join(self.assessors)} --overlap {overlap} "
            f"--seed {self.seed}"
        )


@dataclass(frozen=True)
class AssignResult:
    """What ``assign`` did: new items per assessor, overlap and gold counts, the seed used.

    ``primary_topics``: the topics each named assessor owns after this assign (whether or not they got new
    items in them); ``topics_per_assessor``: every topic in which they got new items (owned, overlap or
    gold); ``moved``: topics whose recorded owner was not named, with that owner.
    """

    per_assessor: Mapping[str, int]
    primary_topics: Mapping[str, tuple[str, ...]]
    topics_per_assessor: Mapping[str, tuple[str, ...]]
    items: int
    overlap_items: int
    gold_items: int
    seed: int
    moved: Mapping[str, str] = field(default_factory=dict)


def parse_overlap(text: str) -> Overlap:
    """``all`` or a fraction in [0, 1]."""
    if text.strip().lower() == "all":
        return "all"
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--overlap {text}: expected a fraction between 0 and 1, or 'all'") from None
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"--overlap {text}: expected a fraction between 0 and 1, or 'all'")
    return value


#: What is trimmed off a name: blanks only. Python's ``str.strip()`` would also take U+2028, NEL or FS for
#: blanks and silently make ``bob\u2028`` into ``bob``; such a name is refused instead (``check_assessor``).
_BLANKS = " "


def parse_assessors(text: str) -> list[str]:
    """``"alice, Bob"`` → ``["alice", "Bob"]``: split on commas, each name trimmed of blanks, empty ones dropped."""
    return [name.strip(_BLANKS) for name in text.split(",") if name.strip(_BLANKS)]


def _name_key(name: str) -> str:
    return re.sub(r"\s+", "", name).casefold()


def check_names(assessors: Iterable[str], known: Iterable[str]) -> list[str]:
    """Trim and check the names; warn about one that differs from another (named or already in the
    campaign) only by case or blanks — names are matched exactly, so that would be a second person."""
    names = [check_assessor(a.strip(_BLANKS)) for a in assessors if a.strip(_BLANKS)]
    if not names:
        raise UsageError("--assessors: name at least one assessor")
    if len(set(names)) != len(names):
        raise UsageError("--assessors: each assessor once")
    others = list(dict.fromkeys([*known, *names]))
    for name in names:
        twins = [o for o in others if o != name and _name_key(o) == _name_key(name)]
        if twins and name not in known:
            warnings.warn(
                f"assessor {name!r} looks like {twins[0]!r} (names are matched exactly, so {name!r} is "
                f"another person with a queue of their own); if you meant {twins[0]!r}, spell it that way",
                ToolkitWarning,
                stacklevel=3,
            )
    return names


def read_gold(path: str | Path, store: CampaignStore) -> dict[tuple[str, str], int]:
    """Read ``query_id<TAB>doc_id<TAB>grade``; unknown topics and off-scale grades name ``path:line``."""
    topics = {t.query_id for t in store.topics()}
    rows = iter_gold_rows(path, topics=topics, scale=set(store.grades()))
    return {(query_id, doc_id): grade for _, query_id, doc_id, grade in rows}


def overlap_count(overlap: float, n: int) -> int:
    """``round(overlap × n)`` with halves rounded up (Python's round would send 0.5 to 0)."""
    return int((Decimal(str(overlap)) * n).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def recorded_policy(store: CampaignStore) -> AssignPolicy | None:
    """The policy of the campaign's last ``assign``; None when it was never assigned this way."""
    text = store.meta().get(POLICY_KEY)
    return AssignPolicy.from_json(text) if text else None


def topic_owners(store: CampaignStore, queues: Mapping[str, Sequence[Item]]) -> dict[str, str]:
    """Each assigned topic's owner: as recorded, else (a campaign assigned before owners were recorded) the
    assessor with the most non-overlap, non-gold items in it, then the most items, then the first name."""
    text = store.meta().get(OWNERS_KEY)
    owners: dict[str, str] = json.loads(text) if text else {}
    counts: dict[str, dict[str, tuple[int, int]]] = {}
    for assessor, items in queues.items():
        for i in items:
            if i.gold:
                continue
            own, total = counts.setdefault(i.query_id, {}).get(assessor, (0, 0))
            counts[i.query_id][assessor] = (own + (not i.overlap), total + 1)
    for query_id, per in counts.items():
        if query_id not in owners:
            owners[query_id] = min(per, key=lambda a: (-per[a][0], -per[a][1], a))
    return owners


def assign(
    store: CampaignStore,
    assessors: Sequence[str],
    *,
    overlap: Overlap = 0.0,
    seed: int = 0,
    gold: Mapping[tuple[str, str], int] | None = None,
    gold_documents: Mapping[str, Document] | None = None,
) -> AssignResult:
    """Assign every unassigned pool item (see the module docstring) and record the policy; one transaction."""
    names = check_names(assessors, store.assessors())
    if overlap != "all" and float(overlap) > 0 and len(names) < 2:
        raise UsageError("--overlap needs at least two assessors to give an item to a second one")
    gold = dict(gold or {})
    fetched = {d: doc for d, doc in (gold_documents or {}).items() if doc.fetch_error is None}
    missing = sorted({d for _, d in gold if not store.has_document(d) and d not in fetched})
    if missing:
        reasons = {d: doc.fetch_error for d, doc in (gold_documents or {}).items() if doc.fetch_error}
        shown = ", ".join(f"{d} ({reasons[d]})" if d in reasons else d for d in missing[:5])
        more = " …" if len(missing) > 5 else ""
        raise UsageError(
            f"gold document(s) without a snapshot: {shown}{more}; pool them first or pass --docs"
        )
    with store.transaction():
        if fetched:
            store.add_snapshots([doc for d, doc in fetched.items() if not store.has_document(d)])
        return _assign(store, names, overlap, seed, gold)


def _assign(
    store: CampaignStore, names: list[str], overlap: Overlap, seed: int, gold: dict[tuple[str, str], int]
) -> AssignResult:
    topic_order = [t.query_id for t in store.topics()]
    rank = {q: i for i, q in enumerate(topic_order)}
    existing: dict[str, list[Item]] = {a: store.queue(a) for a in set(names) | set(store.assignees())}
    assigned = {(i.query_id, i.doc_id) for items in existing.values() for i in items}
    owners = topic_owners(store, existing)
    load = {a: len(existing.get(a, [])) for a in names}
    sharing: dict[str, set[str]] = {}  # topic → named assessors who already have items in it
    for a in names:
        for i in existing.get(a, []):
            sharing.setdefault(i.query_id, set()).add(a)

    todo: dict[str, list[str]] = {}
    for p in store.pool_items():
        if (p.query_id, p.doc_id) not in assigned and (p.query_id, p.doc_id) not in gold:
            todo.setdefault(p.query_id, []).append(p.doc_id)
    by_size = sorted(todo, key=lambda q: (-len(todo[q]), rank.get(q, len(rank))))
    new: dict[str, list[tuple[str, str, bool, bool]]] = {a: [] for a in names}
    moved: dict[str, str] = {}
    overlap_items = 0
    for query_id in by_size:
        docs = todo[query_id]
        owner = owners.get(query_id)
        if owner not in names:
            if owner is not None:
                moved[query_id] = owner
            owner = min(names, key=lambda a: (load[a], names.index(a)))
            owners[query_id] = owner
        if overlap == "all":
            for a in names:
                new[a].extend((query_id, d, len(names) > 1, False) for d in docs)
                load[a] += len(docs)
            overlap_items += len(docs) if len(names) > 1 else 0
            continue
        k = overlap_count(float(overlap), len(docs))
        shared = set(random.Random(f"{seed}:overlap:{query_id}").sample(sorted(docs), k)) if k else set()
        new[owner].extend((query_id, d, d in shared, False) for d in docs)
        load[owner] += len(docs)
        if shared:
            others = [a for a in names if a != owner]
            second = min(
                others, key=lambda a: (a not in sharing.get(query_id, set()), load[a], names.index(a))
            )
            sharing.setdefault(query_id, set()).update((owner, second))
            new[second].extend((query_id, d, True, False) for d in docs if d in shared)
            load[second] += len(shared)
            overlap_items += len(shared)
    for a in names:
        have = {(i.query_id, i.doc_id) for i in existing.get(a, [])}
        new[a].extend((q, d, False, True) for (q, d) in gold if (q, d) not in have)
    if moved:
        shown = ", ".join(f"{q} (was {a})" for q, a in list(moved.items())[:5])
        warnings.warn(
            f"{len(moved)} topic(s) had an owner not named in --assessors and go to a named one: {shown}",
            ToolkitWarning,
            stacklevel=3,
        )

    items: list[Item] = []
    for a in names:
        items.extend(_ordered(a, new[a], existing.get(a, []), topic_order, seed))
    store.add_assignments(items, gold=gold)
    store.set_meta(
        {
            POLICY_KEY: AssignPolicy(tuple(names), overlap, seed).to_json(),
            OWNERS_KEY: json.dumps(dict(sorted(owners.items(), key=lambda kv: rank.get(kv[0], len(rank))))),
        }
    )
    return AssignResult(
        per_assessor={a: len(new[a]) for a in names},
        primary_topics={a: tuple(q for q in topic_order if owners.get(q) == a) for a in names},
        topics_per_assessor={
            a: tuple(sorted({e[0] for e in new[a]}, key=lambda q: rank.get(q, len(rank)))) for a in names
        },
        items=len(items),
        overlap_items=overlap_items,
        gold_items=len(gold),
        seed=seed,
        moved=moved,
    )


def assign_new_items(store: CampaignStore) -> AssignResult | None:
    """After a pool round: assign the unassigned items by the campaign's recorded policy (None when the
    campaign has none — it was never assigned, or assigned before policies were recorded)."""
    policy = recorded_policy(store)
    if policy is None:
        return None
    return assign(store, policy.assessors, overlap=policy.overlap, seed=policy.seed)


def _ordered(
    assessor: str,
    entries: list[tuple[str, str, bool, bool]],
    existing: list[Item],
    topic_order: list[str],
    seed: int,
) -> list[Item]:
    """Seeded, topic-blocked order of one assessor's new items, after their existing queue."""
    rng = random.Random(f"{seed}:{assessor}")
    rank = {q: i for i, q in enumerate(topic_order)}
    by_topic: dict[str, list[tuple[str, str, bool, bool]]] = {}
    for entry in sorted(entries, key=lambda e: (rank.get(e[0], len(rank)), e[1])):
        by_topic.setdefault(entry[0], []).append(entry)
    topics = list(by_topic)
    rng.shuffle(topics)
    start = max((i.position for i in existing), default=-1) + 1
    items: list[Item] = []
    for query_id in topics:
        block = by_topic[query_id]
        rng.shuffle(block)
        for q, d, overlap, gold in block:
            items.append(Item(assessor, q, d, start + len(items), overlap=overlap, gold=gold))
    return items
