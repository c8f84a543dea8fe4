"""The agreement summary of a table built column-wise (``RatingTable.from_columns``, what the export manifest
uses on a campaign's grades) against the summary of the same judgments as tuples (``normalise``, a ``Rating``
per judgment: the earlier path), and against scikit-learn and krippendorff, on random campaigns."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings

from tests.agreement.test_agreement_property import campaigns, kappa
from toolkit.agreement import agreement_summary
from toolkit.agreement.ratings import RatingTable


def columns(rows: list[tuple[str, str, str, int]]) -> RatingTable:
    assessors, topics, docs, grades = zip(*rows, strict=True)
    return RatingTable.from_columns(assessors, topics, docs, grades)


def krippendorff_reference(data: np.ndarray, labels: list[int], level: str) -> float:
    """The ``krippendorff`` package's alpha of an assessors × units matrix (NaN: not rated)."""
    import krippendorff

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(
            krippendorff.alpha(reliability_data=data, value_domain=labels, level_of_measurement=level)
        )


def same(x: float | None, y: float) -> bool:
    return (x is None and math.isnan(y)) or (
        x is not None and math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    )


@settings(max_examples=25, deadline=None)
@given(campaigns())
def test_the_summary_of_columns_is_the_summary_of_tuples(
    case: tuple[list[tuple[str, str, str, int]], list[int]],
) -> None:
    rows, labels = case
    summary = agreement_summary(columns(rows), labels)
    assert summary == agreement_summary(rows, labels)  # exactly: same numbers, same reasons
    for pair in summary["pairs"]:
        grades: dict[tuple[str, str], dict[str, int]] = {}
        for a, q, d, g in rows:
            grades.setdefault((q, d), {})[a] = g
        shared = [per for per in grades.values() if pair["a"] in per and pair["b"] in per]
        assert pair["n"] == len(shared)
        x, y = [per[pair["a"]] for per in shared], [per[pair["b"]] for per in shared]
        for weights, key in ((None, "unweighted"), ("linear", "linear"), ("quadratic", "quadratic")):
            value = pair[f"kappa_{key}"]
            if value is not None:
                assert same(value, kappa(x, y, labels, weights)), key


@settings(max_examples=15, deadline=None)
@given(campaigns())
def test_alpha_of_columns_is_krippendorff(case: tuple[list[tuple[str, str, str, int]], list[int]]) -> None:
    rows, labels = case
    summary = agreement_summary(columns(rows), labels)
    assessors = sorted({a for a, *_ in rows})
    items = sorted({(q, d) for _, q, d, _ in rows})
    data = np.full((len(assessors), len(items)), np.nan)
    for a, q, d, g in rows:
        data[assessors.index(a), items.index((q, d))] = g
    for level, value in summary["krippendorff"].items():
        if value is None:
            continue
        expected = krippendorff_reference(data, labels, level)
        assert math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12), level


@settings(max_examples=25, deadline=None)
@given(campaigns())
def test_alpha_is_bit_for_bit_krippendorff_of_the_reliability_matrix(
    case: tuple[list[tuple[str, str, str, int]], list[int]],
) -> None:
    """Alpha is computed from each unit's label counts, counted once for the three levels; the package given
    the assessors × units matrix (its own counting, as the toolkit called it before) answers the very same
    floats, unit for unit in the same order."""
    from toolkit.agreement.alpha import LEVELS, krippendorff_alpha

    rows, labels = case
    table = columns(rows)
    result = krippendorff_alpha(table, labels)
    raters = np.bincount(table.item, minlength=table.n_items)
    pairable = raters >= 2
    kept = pairable[table.item]
    column = np.cumsum(pairable) - 1
    data = np.full((len(table.assessors), int(pairable.sum())), np.nan)
    data[table.assessor[kept], column[table.item[kept]]] = table.grade[kept]
    for level in LEVELS:
        value = getattr(result, level).value
        if value is None:
            continue
        expected = krippendorff_reference(data, labels, level)
        assert value == expected + 0.0, level


@settings(max_examples=15, deadline=None)
@given(campaigns())
def test_alpha_without_the_packages_helpers_is_the_same(
    case: tuple[list[tuple[str, str, str, int]], list[int]],
) -> None:
    """The coincidences computed once for the three levels (with the package's own helpers), and the
    package's public ``alpha`` called once a level (what a version without those helpers gets): the same
    floats."""
    from toolkit.agreement import alpha
    from toolkit.agreement.alpha import LEVELS, krippendorff_alpha

    rows, labels = case
    table = columns(rows)
    once = krippendorff_alpha(table, labels)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(alpha, "HELPERS", (*alpha.HELPERS, "_a_helper_this_version_lacks"))
        public = krippendorff_alpha(table, labels)
    for level in LEVELS:
        assert getattr(once, level) == getattr(public, level), level


@pytest.mark.parametrize("seed", range(40))
def test_exact_coincidences_are_the_packages_to_the_bit(seed: int) -> None:
    """Where every unit's number of values less one is a power of two (2, 3, 5, 9 values), the integer
    coincidences are ``krippendorff``'s own float sums bit for bit; with a unit of 4 values (a third in each
    term: the order of the sum matters) they decline."""
    from krippendorff.krippendorff import _coincidences

    from toolkit.agreement.alpha import exact_coincidences

    rng = np.random.default_rng(seed)
    labels = int(rng.integers(2, 7))
    sizes = rng.choice([2, 3, 5, 9] if seed % 2 else [2, 3, 4], int(rng.integers(1, 3000)))
    counts = np.zeros((len(sizes), labels), np.int64)
    for unit, size in enumerate(sizes.tolist()):
        np.add.at(counts[unit], rng.integers(labels, size=size), 1)
    exact = exact_coincidences(counts)
    if 4 in sizes.tolist():
        assert exact is None
    else:
        assert exact is not None
        assert exact.tobytes() == _coincidences(counts).tobytes()
