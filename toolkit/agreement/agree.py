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
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.agreement import kappa as kappa_mod
from toolkit.agreement.alpha import krippendorff_alpha
from toolkit.agreement.fleiss import fleiss
from toolkit.agreement.judgments import Rating, ratings_from_records
from toolkit.agreement.ratings import RatingTable, natural_key
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

__all__ = ["agree", "agreement_summary", "natural_key", "normalise", "resolve_labels"]


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
            if type(grade) is not int and (
                isinstance(grade, bool) or not isinstance(grade, numbers.Integral)
            ):
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


def resolve_labels(ratings: RatingTable, labels: Sequence[int] | None) -> tuple[int, ...]:
    """The given labels (checked against every grade), else 0..max seen (from the lowest grade if negative)."""
    import numpy as np

    if labels is None:
        if not len(ratings):
            return ()
        return tuple(range(min(0, int(ratings.grade.min())), int(ratings.grade.max()) + 1))
    resolved = tuple(sorted(set(labels)))
    if len(resolved) != len(labels):
        raise UsageError(f"labels {','.join(map(str, labels))} repeat a grade; list each grade once")
    outside = np.flatnonzero(~np.isin(ratings.grade, np.array(resolved, np.int64)))
    if len(outside):
        r = ratings[int(outside[0])]
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
    estimate_only: bool = False,
    per_topic_rows: bool = True,
) -> AgreementResult:
    """Every agreement statistic ``agree`` reports for ``judgments`` (see the module docstring for the choices).

    ``judgments``: a ``RatingTable`` (what the readers give), or anything ``normalise`` takes.
    ``bootstrap`` is the number of topic resamples for the bootstrap CI of kappa (0 disables it);
    ``per_topic_rows``: False leaves each pair's per-topic rows and binarised agreement out (empty), which
    ``agreement_summary`` does not report (a pass over every topic of every pair: 3,000 at 171,151 items);
    ``estimate_only``: point estimates only, no standard errors or intervals (``agreement_summary``: see
    ``toolkit.agreement.kappa``'s docstring for why).
    """
    import numpy as np

    from toolkit.formats.manifest import versions

    table = (
        judgments if isinstance(judgments, RatingTable) else RatingTable.from_ratings(normalise(judgments))
    )
    resolved = resolve_labels(table, labels)
    k = len(resolved)
    level = np.searchsorted(np.array(resolved, np.int64), table.grade) if k else table.grade
    n_assessors = len(table.assessors)
    # Each assessor's items in order (items are numbered by topic in natural order, then doc), and grade levels.
    order = np.lexsort((table.item, table.assessor))
    bounds = np.searchsorted(table.assessor[order], np.arange(n_assessors + 1))
    judged = [
        (table.item[order[bounds[i] : bounds[i + 1]]], level[order[bounds[i] : bounds[i + 1]]])
        for i in range(n_assessors)
    ]
    pairs = tuple(
        pair_agreement(
            table,
            (a, b),
            judged[i],
            judged[j],
            resolved,
            seed=seed,
            bootstrap=bootstrap,
            estimate_only=estimate_only,
            per_topic_rows=per_topic_rows,
        )
        for i, a in enumerate(table.assessors)
        for j, b in enumerate(table.assessors[i + 1 :], start=i + 1)
    )
    counts = np.bincount(table.assessor * k + level, minlength=n_assessors * k).reshape(n_assessors, k)
    distributions = tuple(
        GradeDistribution(a, int(counts[i].sum()), tuple(int(c) for c in counts[i]))
        for i, a in enumerate(table.assessors)
    )
    return AgreementResult(
        labels=resolved,
        seed=seed,
        bootstrap=bootstrap,
        assessors=table.assessors,
        n_judgments=len(table),
        n_items=table.n_items,
        pairs=pairs,
        fleiss=fleiss(table, level, resolved, estimate_only=estimate_only),
        krippendorff=krippendorff_alpha(table, resolved),
        distributions=distributions,
        versions=versions(extra=("krippendorff",)),
    )


def _relevance(threshold: int) -> Callable[[int], str]:
    def category(label: int) -> str:
        return f"relevant (grade ≥ {threshold})" if label == 1 else f"not relevant (grade < {threshold})"

    return category


def percent(table: np.ndarray) -> Value:
    n = int(table.sum())
    if n == 0:
        return Value.undefined("no shared items")
    return Value(100.0 * float(table.trace()) / n)


def pair_agreement(
    table: RatingTable,
    names: tuple[str, str],
    first: tuple[Any, Any],
    second: tuple[Any, Any],
    labels: tuple[int, ...],
    *,
    seed: int,
    bootstrap: int,
    estimate_only: bool = False,
    per_topic_rows: bool = True,
) -> PairAgreement:
    """All pairwise statistics of two assessors on the items both judged; ``first`` and ``second`` are each
    one's judged items (sorted) and grade levels (indices into ``labels``)."""
    import numpy as np

    a, b = names
    k = len(labels)
    shared, in_a, in_b = np.intersect1d(first[0], second[0], assume_unique=True, return_indices=True)
    ga, gb = first[1][in_a], second[1][in_b]
    cells = ga * k + gb
    confusion = np.bincount(cells, minlength=k * k).reshape(k, k)
    codes, per_item = np.unique(table.item_topic[shared], return_inverse=True)  # topics in natural order
    topics = [table.topics[c] for c in codes.tolist()]
    topic_tables = np.bincount(per_item.reshape(-1) * k * k + cells, minlength=len(codes) * k * k).reshape(
        len(codes), k, k
    )
    kappas = tuple(
        kappa_mod.cohen_kappa(confusion, labels, w, names=(a, b), minimum=True, estimate_only=estimate_only)
        for w in kappa_mod.WEIGHTINGS
    )
    kappas = kappa_mod.bootstrap_ci(
        topic_tables, labels, kappas, rng=kappa_mod.pair_rng(seed, a, b), replicates=bootstrap
    )
    binarised = tuple(
        binarise(ga >= i, gb >= i, t, names=(a, b), estimate_only=estimate_only)
        for i, t in enumerate(labels)
        if i >= 1 and t > 0 and per_topic_rows
    )
    return PairAgreement(
        a=a,
        b=b,
        n=len(shared),
        n_topics=len(topics),
        percent_agreement=percent(confusion),
        unweighted=kappas[0],
        linear=kappas[1],
        quadratic=kappas[2],
        binarised=binarised,
        confusion=tuple(tuple(int(c) for c in row) for row in confusion),
        per_topic=per_topic(topics, topic_tables, labels) if per_topic_rows else (),
    )


def per_topic(topics: Sequence[str], tables: np.ndarray, labels: Sequence[int]) -> tuple[TopicAgreement, ...]:
    """One pair's agreement per topic: percent agreement and kappa point estimates under every weighting,
    undefined with ``kappa.undefined_reason``'s reasons — computed for all topics at once."""
    import numpy as np

    n = tables.sum(axis=(1, 2)).tolist()
    diagonal = np.trace(tables, axis1=1, axis2=2).tolist()
    reasons = kappa_mod.undefined_reasons(tables, labels, minimum=True)
    values = [
        kappa_mod.kappa_values(tables, kappa_mod.disagreement_weights(labels, w)).tolist()
        for w in kappa_mod.WEIGHTINGS
    ]
    undefined: dict[str, Value] = {}  # one Value per reason text: thousands of topics share a few reasons

    def point(reason: str | None, value: float) -> Value:
        if reason is None:
            return Value(value)
        if reason not in undefined:
            undefined[reason] = Value.undefined(reason)
        return undefined[reason]

    return tuple(
        TopicAgreement(
            q,
            count,
            Value(100.0 * d / count) if count else Value.undefined("no shared items"),
            point(reason, u),
            point(reason, lin),
            point(reason, quad),
        )
        for q, count, d, reason, u, lin, quad in zip(topics, n, diagonal, reasons, *values, strict=True)
    )


def binarise(
    first: Sequence[bool] | np.ndarray,
    second: Sequence[bool] | np.ndarray,
    threshold: int,
    *,
    names: tuple[str, str] = ("a", "b"),
    estimate_only: bool = False,
) -> Binarised:
    """Kappa and Voorhees' overlap with relevant meaning grade ≥ ``threshold`` (``first``/``second``: whether
    each assessor found each shared item relevant)."""
    import dataclasses

    import numpy as np

    cells = np.asarray(first, np.int64) * 2 + np.asarray(second, np.int64)
    table = np.bincount(cells, minlength=4).reshape(2, 2)
    kappa = kappa_mod.cohen_kappa(
        table,
        (0, 1),
        "unweighted",
        names=names,
        category=_relevance(threshold),
        minimum=True,
        estimate_only=estimate_only,
    )
    kappa = dataclasses.replace(
        kappa, ci95_bootstrap=Interval.undefined("the topic bootstrap is computed for graded kappa only")
    )
    n = len(cells)
    both = int(table[1, 1])
    either = n - int(table[0, 0])
    if not n:
        overlap = Value.undefined("no shared items")
    elif either == 0:
        overlap = Value.undefined(
            f"neither assessor judged any of the {n} shared items relevant (grade ≥ {threshold})"
        )
    else:
        overlap = Value(both / either)
    return Binarised(threshold, kappa, overlap, both, either)


def agreement_summary(judgments: Iterable[Any], labels: Sequence[int] | None = None) -> dict[str, Any]:
    """A compact, JSON-ready summary for a qrels manifest (point estimates, no bootstrap: it must be cheap and
    deterministic — without importing statsmodels, whose module costs more than a campaign's whole export).

    Undefined numbers are ``null`` with the reason under ``reasons`` (keyed like ``alice/bob unweighted``).
    """
    result = agree(judgments, labels=labels, bootstrap=0, estimate_only=True, per_topic_rows=False)
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
