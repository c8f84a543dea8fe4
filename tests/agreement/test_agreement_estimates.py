"""The point estimates a qrels manifest records, computed without importing statsmodels, are statsmodels' own
numbers to the last bit (``==``, not approximately) and scikit-learn's within rounding."""

from __future__ import annotations

import warnings

import numpy as np
from helpers.sizes import scaled_settings
from hypothesis import given
from hypothesis import strategies as st

from toolkit.agreement import agree
from toolkit.agreement.fleiss import fleiss_estimate
from toolkit.agreement.kappa import WEIGHTINGS, cohen_kappa, kappa_estimate, undefined_reason

LABELS = st.sampled_from([(0, 1), (0, 1, 2), (0, 1, 2, 3), (-1, 0, 1, 2), (0, 2, 5)])


@st.composite
def tables(draw: st.DrawFn) -> tuple[np.ndarray, tuple[int, ...]]:
    labels = draw(LABELS)
    k = len(labels)
    cells = draw(st.lists(st.integers(0, 40), min_size=k * k, max_size=k * k))
    return np.array(cells, np.int64).reshape(k, k), labels


@scaled_settings(max_examples=300, deadline=None)
@given(tables())
def test_kappa_estimate_is_statsmodels_to_the_bit_and_sklearn(
    case: tuple[np.ndarray, tuple[int, ...]],
) -> None:
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa

    table, labels = case
    if undefined_reason(table, labels) is not None:
        return
    x = [labels[i] for i in range(len(labels)) for j in range(len(labels)) for _ in range(table[i, j])]
    y = [labels[j] for i in range(len(labels)) for j in range(len(labels)) for _ in range(table[i, j])]
    for weights in WEIGHTINGS:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if weights == "unweighted":
                reference = cohens_kappa(table.astype(float)).kappa
            else:
                reference = cohens_kappa(
                    table.astype(float), wt=weights, weights=np.asarray(labels, float)
                ).kappa
            learned = cohen_kappa_score(
                x, y, labels=list(labels), weights=None if weights == "unweighted" else weights
            )
        ours = kappa_estimate(table, labels, weights)
        assert ours == float(reference)
        if np.ptp(np.diff(labels)) == 0:  # scikit-learn weighs label positions, statsmodels their values
            assert abs(ours - float(learned)) < 1e-9
        full, point = (cohen_kappa(table, labels, weights, estimate_only=e) for e in (False, True))
        assert point.estimate == full.estimate
        assert not point.se.defined and point.ci95.reason is not None


@scaled_settings(max_examples=300, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.integers(2, 6),
            st.lists(st.lists(st.integers(0, k - 1), min_size=2, max_size=2), min_size=1, max_size=30),
        )
    )
)
def test_fleiss_estimate_is_statsmodels_to_the_bit(case: tuple[int, int, list[list[int]]]) -> None:
    from statsmodels.stats.inter_rater import fleiss_kappa

    k, raters, seeds = case
    rng = np.random.default_rng(sum(map(sum, seeds)) + k * 31 + raters)
    table = np.zeros((len(seeds), k), np.int64)
    for row, (a, b) in enumerate(seeds):  # each item's raters spread over two categories or more
        for r in range(raters):
            table[row, a if r % 2 else (b if rng.random() < 0.5 else int(rng.integers(k)))] += 1
    if (table.sum(axis=0) > 0).sum() < 2:
        return  # one category used: undefined, never computed
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        assert fleiss_estimate(table) == float(fleiss_kappa(table, method="fleiss"))


@scaled_settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([[0, 1], [0, 1, 2, 3], [-1, 0, 1, 2]]))
def test_estimates_only_changes_nothing_the_estimates_say(seed: int, labels: list[int]) -> None:
    rng = np.random.default_rng(seed)
    rows = [
        (a, f"q{t}", f"d{d}", int(rng.choice(labels)))
        for t in range(int(rng.integers(1, 14)))
        for d in range(int(rng.integers(1, 14)))
        for a in ("alice", "bob", "carol")
        if rng.random() < 0.85
    ]
    full, point = (agree(rows, labels=labels, bootstrap=0, estimate_only=e) for e in (False, True))
    assert point.fleiss == full.fleiss
    assert point.krippendorff == full.krippendorff
    for p, f in zip(point.pairs, full.pairs, strict=True):
        assert p.percent_agreement == f.percent_agreement
        for w in WEIGHTINGS:
            assert p.kappa(w).estimate == f.kappa(w).estimate
        for pb, fb in zip(p.binarised, f.binarised, strict=True):
            assert pb.kappa.estimate == fb.kappa.estimate and pb.overlap == fb.overlap
