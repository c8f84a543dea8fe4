"""Assigning pool items to assessors: whole topics, measured overlap, seeded blind order, gold items.

The rules, in the order they are applied:

1. **Whole topics.** Each topic has one primary assessor who gets all its items. A topic that already has a
   primary (an earlier ``assign``) keeps it; new topics go, largest first, to the assessor with the least
   work so far (ties: the order of ``--assessors``). Reading a topic's description once and judging all
   its documents is how TREC assessors work, and it keeps one person's notion of relevance per topic.
2. **Overlap, by item within each topic.** In every topic, ``round(overlap × n)`` items (half rounds up),
   drawn with the seed, also go to a second assessor — the least loaded other assessor, the same for the
   whole topic — so agreement is measured on every topic in proportion to its size. ``overlap="all"``
   gives every item to every assessor (what Fleiss' kappa needs).
3. **Gold items** (``--gold FILE``: ``query_id<TAB>doc_id<TAB>grade``) go to every assessor, mixed into
   their topic; their grades are known, so they measure assessors and never reach an export.
4. **Order.** Each assessor's new items are presented topic by topic (topics in a seeded shuffle) and, within
   a topic, in a seeded shuffle — ``random.Random(f"{seed}:{assessor}")``, so the order is reproducible
   and carries nothing of the runs' ranks. New items are appended after the assessor's existing queue.

Only pool items with no assignment yet are assigned; stale items re-queued by a later round stay with the
assessors who judged them (their queues show them again).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from toolkit.errors import UsageError
from toolkit.formats.judgments import iter_gold_rows
from toolkit.judging.records import Document, Item, check_assessor
from toolkit.judging.store import CampaignStore

Overlap = float | str  # a fraction in [0, 1] or "all"


@dataclass(frozen=True)
class AssignResult:
    """What ``assign`` did: new items per assessor, overlap and gold counts, the seed used.

    ``primary_topics``: the topics each assessor owns (got whole); ``topics_per_assessor``: every topic
    in which they got new items (owned, overlap or gold).
    """

    per_assessor: Mapping[str, int]
    primary_topics: Mapping[str, tuple[str, ...]]
    topics_per_assessor: Mapping[str, tuple[str, ...]]
    items: int
    overlap_items: int
    gold_items: int
    seed: int


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


def read_gold(path: str | Path, store: CampaignStore) -> dict[tuple[str, str], int]:
    """Read ``query_id<TAB>doc_id<TAB>grade``; unknown topics and off-scale grades name ``path:line``."""
    topics = {t.query_id for t in store.topics()}
    rows = iter_gold_rows(path, topics=topics, scale=set(store.grades()))
    return {(query_id, doc_id): grade for _, query_id, doc_id, grade in rows}


def overlap_count(overlap: float, n: int) -> int:
    """``round(overlap × n)`` with halves rounded up (Python's round would send 0.5 to 0)."""
    return int((Decimal(str(overlap)) * n).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def assign(
    store: CampaignStore,
    assessors: Sequence[str],
    *,
    overlap: Overlap = 0.0,
    seed: int = 0,
    gold: Mapping[tuple[str, str], int] | None = None,
    gold_documents: Mapping[str, Document] | None = None,
) -> AssignResult:
    """Assign every unassigned pool item (see the module docstring); one transaction."""
    names = [check_assessor(a) for a in assessors]
    if not names:
        raise UsageError("--assessors: name at least one assessor")
    if len(set(names)) != len(names):
        raise UsageError("--assessors: each assessor once")
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
    if fetched:
        store.add_snapshots([doc for d, doc in fetched.items() if not store.has_document(d)])

    topic_order = [t.query_id for t in store.topics()]
    existing: dict[str, list[Item]] = {a: store.queue(a) for a in set(names) | set(store.assessors())}
    assigned = {(i.query_id, i.doc_id) for items in existing.values() for i in items}
    load = {a: len(existing.get(a, [])) for a in names}
    primary: dict[str, str] = {}
    for query_id in topic_order:
        counts = {
            a: sum(1 for i in existing.get(a, []) if i.query_id == query_id and not i.gold) for a in names
        }
        best = max(names, key=lambda a: counts[a])
        if counts[best] > 0:
            primary[query_id] = best

    todo: dict[str, list[str]] = {}
    for p in store.pool_items():
        if (p.query_id, p.doc_id) not in assigned and (p.query_id, p.doc_id) not in gold:
            todo.setdefault(p.query_id, []).append(p.doc_id)
    by_size = sorted(todo, key=lambda q: (-len(todo[q]), topic_order.index(q)))
    new: dict[str, list[tuple[str, str, bool, bool]]] = {a: [] for a in names}
    overlap_items = 0
    for query_id in by_size:
        docs = todo[query_id]
        owner = primary.get(query_id) or min(names, key=lambda a: (load[a], names.index(a)))
        primary[query_id] = owner
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
            second = min((a for a in names if a != owner), key=lambda a: (load[a], names.index(a)))
            new[second].extend((query_id, d, True, False) for d in docs if d in shared)
            load[second] += len(shared)
            overlap_items += len(shared)
    for a in names:
        have = {(i.query_id, i.doc_id) for i in existing.get(a, [])}
        new[a].extend((q, d, False, True) for (q, d) in gold if (q, d) not in have)

    items: list[Item] = []
    for a in names:
        items.extend(_ordered(a, new[a], existing.get(a, []), topic_order, seed))
    store.add_assignments(items, gold=gold)
    return AssignResult(
        per_assessor={a: len(new[a]) for a in names},
        primary_topics={a: tuple(q for q in topic_order if primary.get(q) == a) for a in names},
        topics_per_assessor={
            a: tuple(q for q in topic_order if any(e[0] == q for e in new[a])) for a in names
        },
        items=len(items),
        overlap_items=overlap_items,
        gold_items=len(gold),
        seed=seed,
    )


def _ordered(
    assessor: str,
    entries: list[tuple[str, str, bool, bool]],
    existing: list[Item],
    topic_order: list[str],
    seed: int,
) -> list[Item]:
    """Seeded, topic-blocked order of one assessor's new items, after their existing queue."""
    rng = random.Random(f"{seed}:{assessor}")
    by_topic: dict[str, list[tuple[str, str, bool, bool]]] = {}
    for entry in sorted(entries, key=lambda e: (topic_order.index(e[0]), e[1])):
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
