"""Every number of ``agree`` on random campaigns, held to scikit-learn, statsmodels and krippendorff.

``agree`` counts with integer codes and numpy (one pass per pair, every topic at once); the
references here compute each statistic their own way from plain Python lists built from the same judgments:
kappa per pair, per topic and binarised (``cohen_kappa_score``), the confusion table (``confusion_matrix``),
Fleiss' kappa (``fleiss_kappa`` on ``aggregate_raters``), alpha (``krippendorff.alpha``), and the topic
bootstrap recomputed resample by resample from the same random draws with ``cohen_kappa_score``.
"""

from __future__ import annotations

import random
import warnings
from collections import Counter, defaultdict

import numpy as np
import pytest
from helpers.sizes import scaled_settings
from hypothesis import given
from hypothesis import strategies as st

from toolkit.agreement import agree
from toolkit.agreement.kappa import pair_rng
from toolkit.agreement.ratings import natural_key

WEIGHTS = {"unweighted": None, "linear": "linear", "quadratic": "quadratic"}


@st.composite
def campaigns(draw: st.DrawFn, min_topics: int = 1) -> tuple[list[tuple[str, str, str, int]], list[int]]:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    labels = draw(st.sampled_from([[0, 1], [0, 1, 2], [0, 1, 2, 3], [-1, 0, 1, 2]]))
    assessors = [f"a{i}" for i in rng.sample(range(12), draw(st.integers(2, 4)))]
    agreement = draw(st.sampled_from([0.3, 0.8, 1.0]))
    coverage = draw(st.sampled_from([1.0, 0.7, 0.4]))
    rows = []
    for t in range(draw(st.integers(min_topics, 16))):
        topic = rng.choice([f"q{t}", str(t), f"T{t:02d}"])
        for d in range(rng.randint(1, 12)):
            latent = rng.choice(labels)
            for a in assessors:
                if rng.random() < coverage:
                    grade = latent if rng.random() < agreement else rng.choice(labels)
                    rows.append((a, topic, f"d{d}", grade))
    rng.shuffle(rows)
    return rows, labels


def kappa(x: list[int], y: list[int], labels: list[int], weights: str | None) -> float:
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(cohen_kappa_score(x, y, labels=labels, weights=weights))


@scaled_settings(max_examples=60, deadline=None)
@given(campaigns())
def test_every_statistic_is_the_reference_libraries(
    case: tuple[list[tuple[str, str, str, int]], list[int]],
) -> None:
    import krippendorff
    from sklearn.metrics import confusion_matrix
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    rows, labels = case
    result = agree(rows, labels=labels, bootstrap=0)
    by_item: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for a, q, d, g in rows:
        by_item[(q, d)][a] = g
    assert result.assessors == tuple(sorted({r[0] for r in rows}, key=natural_key))
    assert result.n_items == len(by_item)
    for pair in result.pairs:
        shared = [
            (q, by[pair.a], by[pair.b]) for (q, _), by in by_item.items() if pair.a in by and pair.b in by
        ]
        x, y = [s[1] for s in shared], [s[2] for s in shared]
        assert pair.n == len(shared)
        if shared:
            assert pair.confusion == tuple(map(tuple, confusion_matrix(x, y, labels=labels).tolist()))
        for name, weights in WEIGHTS.items():
            value = pair.kappa(name).estimate.value
            if value is not None:
                assert value == pytest.approx(kappa(x, y, labels, weights), abs=1e-9)
        for b in pair.binarised:
            value = b.kappa.estimate.value
            bx, by_ = [int(g >= b.threshold) for g in x], [int(g >= b.threshold) for g in y]
            if value is not None:
                assert value == pytest.approx(kappa(bx, by_, [0, 1], None), abs=1e-9)
            assert (b.both_relevant, b.either_relevant) == (
                sum(1 for u, v in zip(bx, by_, strict=True) if u and v),
                sum(1 for u, v in zip(bx, by_, strict=True) if u or v),
            )
        topics = sorted({s[0] for s in shared}, key=natural_key)
        assert [t.query_id for t in pair.per_topic] == topics
        for t in pair.per_topic:
            tx = [s[1] for s in shared if s[0] == t.query_id]
            ty = [s[2] for s in shared if s[0] == t.query_id]
            assert t.n == len(tx)
            assert t.percent_agreement.value == pytest.approx(
                100 * sum(u == v for u, v in zip(tx, ty, strict=True)) / len(tx)
            )
            for name, weights in WEIGHTS.items():
                value = getattr(t, name).value
                if value is not None:
                    assert value == pytest.approx(kappa(tx, ty, labels, weights), abs=1e-9)
                else:
                    assert len(tx) < 10 or len(set(tx) | set(ty)) == 1
    sizes = Counter(len(by) for by in by_item.values() if len(by) >= 2)
    if result.fleiss.estimate.value is not None:
        raters = result.fleiss.raters_per_item
        assert sizes[raters] == max(sizes.values())
        group = [[by[a] for a in sorted(by)] for by in by_item.values() if len(by) == raters]
        counts, _ = aggregate_raters(np.array(group) - min(labels), n_cat=len(labels))
        assert result.fleiss.estimate.value == pytest.approx(fleiss_kappa(counts), abs=1e-9)
    if result.krippendorff.nominal.value is not None:
        data = np.array(
            [[by.get(a, np.nan) for by in by_item.values()] for a in result.assessors], dtype=float
        )
        for level in ("nominal", "ordinal", "interval"):
            expected = krippendorff.alpha(
                reliability_data=data, value_domain=labels, level_of_measurement=level
            )
            assert getattr(result.krippendorff, level).value == pytest.approx(expected, abs=1e-9)
    counts_by = Counter((r[0], r[3]) for r in rows)
    for dist in result.distributions:
        assert dist.counts == tuple(counts_by[(dist.assessor, g)] for g in labels)


@scaled_settings(max_examples=25, deadline=None)
@given(campaigns(min_topics=10))
def test_the_topic_bootstrap_resamples_topics_as_stated(
    case: tuple[list[tuple[str, str, str, int]], list[int]],
) -> None:
    """Each resample draws topics with replacement (the pair's own generator) and pools their shared items."""
    check_bootstrap(*case)


def test_the_bootstrap_check_compares_intervals() -> None:
    rng = random.Random(3)
    rows = [
        (a, f"q{t}", f"d{d}", g if rng.random() < 0.7 else rng.randrange(4))
        for t in range(20)
        for d in range(8)
        for g in [rng.randrange(4)]
        for a in ("alice", "bob", "carol")
    ]
    assert check_bootstrap(rows, [0, 1, 2, 3]) == 3


def check_bootstrap(rows: list[tuple[str, str, str, int]], labels: list[int]) -> int:
    """How many pairs' unweighted bootstrap intervals were recomputed (and found equal)."""
    replicates = 40
    result = agree(rows, labels=labels, bootstrap=replicates, seed=7)
    by_item: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for a, q, d, g in rows:
        by_item[(q, d)][a] = g
    compared = 0
    for pair in result.pairs:
        per_topic: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for (q, _), by in by_item.items():
            if pair.a in by and pair.b in by:
                per_topic[q].append((by[pair.a], by[pair.b]))
        topics = sorted(per_topic, key=natural_key)
        ci = pair.unweighted.ci95_bootstrap
        if ci.low is None:
            continue
        draws = pair_rng(7, pair.a, pair.b).integers(0, len(topics), size=(replicates, len(topics)))
        values = []
        for draw in draws:
            items = [g for t in draw for g in per_topic[topics[t]]]
            x, y = [g[0] for g in items], [g[1] for g in items]
            if len(set(x) | set(y)) > 1:  # else both gave one grade to all: kappa undefined, resample dropped
                values.append(kappa(x, y, labels, None))
        low, high = np.quantile(values, [0.025, 0.975])
        assert (ci.low, ci.high) == pytest.approx((low, high), abs=1e-9)
        compared += 1
    return compared
