"""``agree``: inter-assessor agreement of a judging campaign, every statistic over the full label set.

Pairwise statistics are computed on the items *both* assessors judged (so a partial-overlap campaign gives
each pair its own n), Fleiss' kappa on the largest group of items with one number of raters, Krippendorff's
alpha on everything (it handles missing judgments by design). Every coefficient and interval follows the
minimum-data rule (``toolkit.minimum``: at least 10 items, 10 topics for the topic bootstrap); below it the
value is undefined with the rule as its reason. Binarised agreement is reported at every
threshold because TREC measures binarise graded qrels, and two assessors who disagree on 2 versus 3 may
agree perfectly on what is relevant at all.
"""

from __future__ import annotations

import numbers
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.agreement import kappa as kappa_mod
from toolkit.agreement.alpha import krippendorff_alpha
from toolkit.agreement.fleiss import fleiss
from toolkit.agreement.judgments import Rating, ratings_from_records
from toolkit.agreement.result import (
    AgreementResult,
    Binarised,
    GradeDistribution,
    Interval,
    PairAgreement,
    TopicAgreement,
    Value,
)
from toolkit.errors import ToolkitError, UsageError

if TYPE_CHECKING:
    import numpy as np

Item = tuple[str, str]


def natural_key(text: str) -> tuple[Any, ...]:
    """``q2`` before ``q10``: topic and doc ids are often numbered."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text))


def normalise(judgments: Iterable[Any]) -> list[Rating]:
    """Accept ``(assessor, query_id, doc_id, grade)`` tuples, ``Rating``s or campaign ``Judgment`` records.

    Campaign records that are not graded ``judge`` decisions (skip, unrateable, adjudicate) are left out. A
    second grade by the same assessor on the same item is an error: which one counts is not ours to guess.
    """
    out: list[Rating] = []
    seen: set[tuple[str, str, str]] = set()
    for j in judgments:
        if hasattr(j, "action"):
            kept, _ = ratings_from_records([j])
            if not kept:
                continue
            rating = kept[0]
        else:
            assessor, query_id, doc_id, grade = j
            if isinstance(grade, bool) or not isinstance(grade, numbers.Integral):
                raise ToolkitError(
                    f"grade {grade!r} of {assessor} on ({query_id}, {doc_id}) is not an integer"
                )
            rating = Rating(str(assessor), str(query_id), str(doc_id), int(grade))
        key = (rating.assessor, rating.query_id, rating.doc_id)
        if key in seen:
            raise ToolkitError(
                f"{rating.assessor} judged ({rating.query_id}, {rating.doc_id}) twice; keep one judgment per "
                "assessor and item"
            )
        seen.add(key)
        out.append(rating)
    return out


def resolve_labels(ratings: Sequence[Rating], labels: Sequence[int] | None) -> tuple[int, ...]:
    """The given labels (checked against every grade), else 0..max seen (from the lowest grade if negative)."""
    if labels is None:
        if not ratings:
            return ()
        grades = [r.grade for r in ratings]
        return tuple(range(min(0, min(grades)), max(grades) + 1))
    resolved = tuple(sorted(set(labels)))
    if len(resolved) != len(labels):
        raise UsageError(f"labels {','.join(map(str, labels))} repeat a grade; list each grade once")
    allowed = set(resolved)
    for r in ratings:
        if r.grade not in allowed:
            raise UsageError(
                f"grade {r.grade} of {r.assessor} on ({r.query_id}, {r.doc_id}) is not among the labels "
                f"{','.join(map(str, resolved))}; pass labels that cover every grade"
            )
    return resolved


def agree(
    judgments: Iterable[Any],
    *,
    labels: Sequence[int] | None = None,
    seed: int = 42,
    bootstrap: int = 2000,
) -> AgreementResult:
    """Every agreement statistic ``agree`` reports for ``judgments`` (see the module docstring for the choices).

    ``bootstrap`` is the number of topic resamples for the bootstrap CI of kappa (0 disables it).
    """
    from toolkit.formats.manifest import versions

    ratings = normalise(judgments)
    resolved = resolve_labels(ratings, labels)
    grouped: dict[Item, dict[str, int]] = {}
    for r in ratings:
        grouped.setdefault((r.query_id, r.doc_id), {})[r.assessor] = r.grade
    # Items in natural order once, for every pair (sorting per pair cost a third of the time at scale).
    keys = {q: natural_key(q) for q, _ in grouped} | {d: natural_key(d) for _, d in grouped}
    by_item = {it: grouped[it] for it in sorted(grouped, key=lambda it: (keys[it[0]], keys[it[1]]))}
    assessors = tuple(sorted({r.assessor for r in ratings}, key=natural_key))
    pairs = tuple(
        pair_agreement(a, b, by_item, resolved, seed=seed, bootstrap=bootstrap)
        for i, a in enumerate(assessors)
        for b in assessors[i + 1 :]
    )
    counts = Counter((r.assessor, r.grade) for r in ratings)
    distributions = tuple(
        GradeDistribution(a, sum(counts[(a, g)] for g in resolved), tuple(counts[(a, g)] for g in resolved))
        for a in assessors
    )
    return AgreementResult(
        labels=resolved,
        seed=seed,
        bootstrap=bootstrap,
        assessors=assessors,
        n_judgments=len(ratings),
        n_items=len(by_item),
        pairs=pairs,
        fleiss=fleiss(by_item, resolved),
        krippendorff=krippendorff_alpha(by_item, assessors, resolved),
        distributions=distributions,
        versions=versions(extra=("krippendorff",)),
    )


def _relevance(threshold: int) -> Callable[[int], str]:
    def category(label: int) -> str:
        return f"relevant (grade ≥ {threshold})" if label == 1 else f"not relevant (grade < {threshold})"

    return category


def point_kappa(table: np.ndarray, labels: Sequence[int], weights: str) -> Value:
    """Kappa without SE (per-topic breakdowns), with the same undefined-case reasons as the full estimate."""
    reason = kappa_mod.undefined_reason(table, labels, minimum=True)
    if reason is not None:
        return Value.undefined(reason)
    return Value(float(kappa_mod.kappa_values(table, kappa_mod.disagreement_weights(labels, weights))))


def percent(table: np.ndarray) -> Value:
    n = int(table.sum())
    if n == 0:
        return Value.undefined("no shared items")
    return Value(100.0 * float(table.trace()) / n)


def pair_agreement(
    a: str,
    b: str,
    by_item: dict[Item, dict[str, int]],
    labels: tuple[int, ...],
    *,
    seed: int,
    bootstrap: int,
) -> PairAgreement:
    """All pairwise statistics of assessors ``a`` and ``b`` on the items both judged (``by_item`` in natural
    order: topic, then doc id)."""
    import numpy as np

    shared = [item for item, by in by_item.items() if a in by and b in by]  # by_item is in natural order
    grades = [(by_item[item][a], by_item[item][b]) for item in shared]
    table = kappa_mod.contingency(grades, labels)
    by_topic: dict[str, list[tuple[int, int]]] = {}
    for item, g in zip(
        shared, grades, strict=True
    ):  # one pass: a scan per topic was quadratic at MS MARCO size
        by_topic.setdefault(item[0], []).append(g)
    topics = sorted(by_topic, key=natural_key)
    topic_tables = (
        np.stack([kappa_mod.contingency(by_topic[q], labels) for q in topics])
        if topics
        else np.zeros((0, len(labels), len(labels)), dtype=np.int64)
    )
    kappas = tuple(
        kappa_mod.cohen_kappa(table, labels, w, names=(a, b), minimum=True) for w in kappa_mod.WEIGHTINGS
    )
    kappas = kappa_mod.bootstrap_ci(
        topic_tables, labels, kappas, rng=kappa_mod.pair_rng(seed, a, b), replicates=bootstrap
    )
    return PairAgreement(
        a=a,
        b=b,
        n=len(shared),
        n_topics=len(topics),
        percent_agreement=percent(table),
        unweighted=kappas[0],
        linear=kappas[1],
        quadratic=kappas[2],
        binarised=tuple(binarise(grades, t, names=(a, b)) for t in labels[1:] if t > 0),
        confusion=tuple(tuple(int(c) for c in row) for row in table),
        per_topic=tuple(
            TopicAgreement(
                q,
                int(t.sum()),
                percent(t),
                *(point_kappa(t, labels, w) for w in kappa_mod.WEIGHTINGS),
            )
            for q, t in zip(topics, topic_tables, strict=True)
        ),
    )


def binarise(
    grades: Sequence[tuple[int, int]], threshold: int, *, names: tuple[str, str] = ("a", "b")
) -> Binarised:
    """Kappa and Voorhees' overlap with relevant meaning grade ≥ ``threshold``."""
    import dataclasses

    binary = [(int(ga >= threshold), int(gb >= threshold)) for ga, gb in grades]
    table = kappa_mod.contingency(binary, (0, 1))
    kappa = kappa_mod.cohen_kappa(
        table, (0, 1), "unweighted", names=names, category=_relevance(threshold), minimum=True
    )
    kappa = dataclasses.replace(
        kappa, ci95_bootstrap=Interval.undefined("the topic bootstrap is computed for graded kappa only")
    )
    both = int(table[1, 1])
    either = len(binary) - int(table[0, 0])
    if not binary:
        overlap = Value.undefined("no shared items")
    elif either == 0:
        overlap = Value.undefined(
            f"neither assessor judged any of the {len(binary)} shared items relevant (grade ≥ {threshold})"
        )
    else:
        overlap = Value(both / either)
    return Binarised(threshold, kappa, overlap, both, either)


def agreement_summary(judgments: Iterable[Any], labels: Sequence[int] | None = None) -> dict[str, Any]:
    """A compact, JSON-ready summary for a qrels manifest (no bootstrap: it must be cheap and deterministic).

    Undefined numbers are ``null`` with the reason under ``reasons`` (keyed like ``alice/bob unweighted``).
    """
    result = agree(judgments, labels=labels, bootstrap=0)
    reasons: dict[str, str] = {}

    def number(value: Value, key: str) -> float | None:
        if value.reason is not None:
            reasons[key] = value.reason
        return value.value

    pairs = []
    for p in result.pairs:
        name = f"{p.a}/{p.b}"
        pairs.append(
            {
                "a": p.a,
                "b": p.b,
                "n": p.n,
                "percent_agreement": number(p.percent_agreement, f"{name} percent_agreement"),
                **{f"kappa_{w}": number(p.kappa(w).estimate, f"{name} {w}") for w in kappa_mod.WEIGHTINGS},
            }
        )
    alpha = result.krippendorff
    return {
        "labels": list(result.labels),
        "assessors": list(result.assessors),
        "n_judgments": result.n_judgments,
        "n_items": result.n_items,
        "pairs": pairs,
        "fleiss": {
            "value": number(result.fleiss.estimate, "fleiss"),
            "n_items": result.fleiss.n_items,
            "raters_per_item": result.fleiss.raters_per_item,
        },
        "krippendorff": {
            level: number(getattr(alpha, level), f"krippendorff {level}")
            for level in ("nominal", "ordinal", "interval")
        },
        "reasons": reasons,
    }
