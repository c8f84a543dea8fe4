"""Cohen's kappa (unweighted, linear, quadratic) on a contingency table built over the *full* label set.

Libraries that build the table from the observed grades (scikit-learn's ``cohen_kappa_score`` without
``labels``) silently drop a grade nobody used, which changes weighted kappa. Here the square table is always
``len(labels)`` wide, and statsmodels' ``cohens_kappa`` (which also gives the asymptotic SE of weighted kappa)
computes the estimate. The topic bootstrap recomputes kappa on resampled tables with plain numpy, because
2000 replicates through statsmodels would be slow for no gain.

Undefined cases are detected *before* calling statsmodels, so a division by zero never turns into a NaN.

A point estimate alone (``estimate_only``: what a qrels manifest's agreement summary records) is computed by
``kappa_estimate``, statsmodels' arithmetic operation for operation (a test holds the two equal to the last
bit): importing ``statsmodels.stats.inter_rater`` imports scipy.stats and pandas, 1.5 s that every
``export`` would pay for a standard error it does not write.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from toolkit.agreement.result import Interval, Kappa, Value
from toolkit.minimum import shortfall

if TYPE_CHECKING:
    import numpy as np

WEIGHTINGS: tuple[str, ...] = ("unweighted", "linear", "quadratic")

#: two-sided 95% normal quantile, the one statsmodels uses for ``kappa_low`` / ``kappa_upp``.
Z95 = 1.959963984540054


def contingency(pairs: Iterable[tuple[int, int]], labels: Sequence[int]) -> np.ndarray:
    """``table[i, j]`` = number of items graded ``labels[i]`` by the first and ``labels[j]`` by the second."""
    import numpy as np

    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for ga, gb in pairs:
        table[index[ga], index[gb]] += 1
    return table


def disagreement_weights(labels: Sequence[int], weights: str) -> np.ndarray:
    """The disagreement matrix (0 on the diagonal) kappa is 1 − observed/expected of."""
    import numpy as np

    values = np.asarray(labels, dtype=float)
    diff = np.abs(values[:, None] - values[None, :])
    if weights == "unweighted":
        return (diff > 0).astype(float)
    if weights == "linear":
        return diff
    if weights == "quadratic":
        return diff**2
    raise ValueError(f"unknown weighting {weights!r}; expected one of {', '.join(WEIGHTINGS)}")


def grade_category(label: int) -> str:
    return f"grade {label}"


def undefined_reason(
    table: np.ndarray,
    labels: Sequence[int],
    *,
    category: Callable[[int], str] = grade_category,
    minimum: bool = False,
) -> str | None:
    """Why kappa does not exist for ``table`` (None if it does).

    Kappa = (p_o − p_e) / (1 − p_e) needs p_e < 1, i.e. the two assessors must not both have put every item in
    one and the same category; and one item is too few for any agreement statistic to mean something. With
    ``minimum`` (every report of ``agree``), the minimum-data rule (``toolkit.minimum``) applies first: kappa
    is estimated from at least 10 shared items.
    """
    return undefined_reasons(table[None], labels, category=category, minimum=minimum)[0]


def undefined_reasons(
    tables: np.ndarray,
    labels: Sequence[int],
    *,
    category: Callable[[int], str] = grade_category,
    minimum: bool = False,
) -> list[str | None]:
    """``undefined_reason`` of each table of a stack (shape ``(T, k, k)``: one pair's topics), at once."""
    n = tables.sum(axis=(1, 2))
    constant = (tables.sum(axis=2) == n[:, None]) & (tables.sum(axis=1) == n[:, None])
    reasons: list[str | None] = []
    for count, flat, single in zip(
        n.tolist(), constant.any(axis=1).tolist(), constant.argmax(axis=1).tolist(), strict=True
    ):
        short = shortfall(count, "shared items") if minimum else None
        if count == 0:
            reasons.append("no shared items")
        elif short:
            reasons.append(short)
        elif count == 1:
            reasons.append("only 1 shared item (kappa needs at least 2)")
        elif flat:
            reasons.append(
                f"both assessors rated all {count} shared items {category(labels[single])}: chance agreement "
                "p_e = 1, so kappa is undefined"
            )
        else:
            reasons.append(None)
    return reasons


def constant_rater(
    table: np.ndarray, labels: Sequence[int], names: tuple[str, str], category: Callable[[int], str]
) -> str | None:
    """If one assessor used a single category, kappa is exactly 0 whatever the other did, and the asymptotic
    SE collapses to 0 (or NaN): a CI of [0, 0] would claim a certainty the data do not have."""
    for name, margin in zip(names, (table.sum(axis=1), table.sum(axis=0)), strict=True):
        used = [label for label, count in zip(labels, margin, strict=True) if count > 0]
        if len(used) == 1:
            return (
                f"{name} rated every shared item {category(used[0])}: kappa is 0 by construction and its "
                "standard error is degenerate"
            )
    return None


def kappa_estimate(table: np.ndarray, labels: Sequence[int], weights: str) -> float:
    """Kappa's point estimate as statsmodels' ``cohens_kappa`` computes it (``kappa``), the same numpy operations
    in the same order, so the same bits, without importing statsmodels (see the module docstring). ``table``
    must have a defined kappa (``undefined_reason`` is None)."""
    import numpy as np

    table = np.asarray(table, float)
    nobs = table.sum()
    freq_row = table.sum(1) / nobs
    freq_col = table.sum(0) / nobs
    prob_exp = freq_col * freq_row[:, None]
    if weights == "unweighted":
        agree_exp = np.diag(prob_exp).sum()
        return float((np.diag(table).sum() / nobs - agree_exp) / (1 - agree_exp))
    values = np.asarray(labels, float)
    if weights == "linear":
        w = np.abs(values[:, None] - values) / (values[-1] - values[0])
    elif weights == "quadratic":
        w = (values[:, None] - values) ** 2 / (values[-1] - values[0]) ** 2
    else:
        raise ValueError(f"unknown weighting {weights!r}; expected one of {', '.join(WEIGHTINGS)}")
    return float(1 - (w * table).sum() / nobs / (w * prob_exp).sum())


def cohen_kappa(
    table: np.ndarray,
    labels: Sequence[int],
    weights: str,
    *,
    names: tuple[str, str] = ("a", "b"),
    category: Callable[[int], str] = grade_category,
    minimum: bool = False,
    estimate_only: bool = False,
) -> Kappa:
    """Kappa with its asymptotic SE and 95% CI (statsmodels); the bootstrap CI is filled in by the caller.

    ``minimum`` applies the minimum-data rule (``agree`` does; a live count like the organiser's may not).
    ``estimate_only``: the point estimate alone (``kappa_estimate``), the SE and CI left "not computed".
    """
    import warnings

    import numpy as np

    no_bootstrap = Interval.undefined("not computed")
    reason = undefined_reason(table, labels, category=category, minimum=minimum)
    if reason is not None:
        missing = Interval.undefined(reason)
        return Kappa(weights, Value.undefined(reason), Value.undefined(reason), missing, no_bootstrap)
    if estimate_only:
        kappa = kappa_estimate(table, labels, weights) + 0.0  # never -0.0
        if constant_rater(table, labels, names, category) is not None:
            kappa = 0.0  # exactly, by construction, as below
        skipped = "not computed (point estimate only)"
        return Kappa(
            weights, Value(kappa), Value.undefined(skipped), Interval.undefined(skipped), no_bootstrap
        )
    from statsmodels.stats.inter_rater import cohens_kappa

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        # statsmodels warns on the 0/0 of a degenerate variance; that case is reported below instead.
        warnings.simplefilter("ignore", RuntimeWarning)
        if weights == "unweighted":
            res = cohens_kappa(table.astype(float))
        else:
            res = cohens_kappa(table.astype(float), wt=weights, weights=np.asarray(labels, dtype=float))
    kappa = float(res.kappa) + 0.0  # never -0.0
    se = float(res.std_kappa)
    se_reason = constant_rater(table, labels, names, category)
    if se_reason is not None:
        kappa = 0.0  # exactly, by construction (statsmodels may leave a -1e-17)
    if se_reason is None and (not math.isfinite(se) or se < 0):
        se_reason = "the asymptotic variance of kappa is not positive for this table"
    if se_reason is not None:
        return Kappa(
            weights, Value(kappa), Value.undefined(se_reason), Interval.undefined(se_reason), no_bootstrap
        )
    if se == 0:
        reason = (
            "the asymptotic SE of kappa is 0 for this table (as under perfect agreement), so the "
            "normal-approximation CI would be a single point"
        )
        return Kappa(weights, Value(kappa), Value(0.0), Interval.undefined(reason), no_bootstrap)
    # Kappa cannot leave [-1, 1]; the normal approximation can (small n, kappa near 1), so clip the bounds.
    ci = Interval(max(-1.0, kappa - Z95 * se), min(1.0, kappa + Z95 * se))
    return Kappa(weights, Value(kappa), Value(se), ci, no_bootstrap)


def kappa_values(tables: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Kappa of each ``k×k`` table in ``tables`` (shape ``(..., k, k)``); NaN where undefined (callers mask it)."""
    import numpy as np

    tables = np.asarray(tables, dtype=float)
    n = tables.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = tables / n[..., None, None]
        rows = p.sum(axis=-1)
        cols = p.sum(axis=-2)
        observed = (p * weights).sum(axis=(-2, -1))
        expected = (rows[..., :, None] * cols[..., None, :] * weights).sum(axis=(-2, -1))
        kappa = 1.0 - observed / expected
    defined = (n >= 2) & (expected > 1e-12)
    return np.where(defined, kappa, np.nan)


def pair_rng(seed: int, a: str, b: str) -> np.random.Generator:
    """A generator that depends on the seed and the pair only, so adding an assessor changes no other pair."""
    import numpy as np

    return np.random.default_rng([seed, zlib.crc32(f"{a}\t{b}".encode())])


def bootstrap_ci(
    topic_tables: np.ndarray,
    labels: Sequence[int],
    kappas: Sequence[Kappa],
    *,
    rng: np.random.Generator,
    replicates: int,
) -> tuple[Kappa, ...]:
    """Percentile 95% CIs from resampling *topics* with replacement (items within a topic are not independent).

    One set of resamples serves every weighting. By the minimum-data rule the bootstrap needs at least 10
    topics with shared items. Replicates where kappa is undefined (e.g. a resample made of topics where both
    assessors said 0 to everything) are dropped; at least half must be defined. An interval of zero width
    (every resample gives the same kappa, as under perfect agreement) is refused like the analytic one: it
    would claim a certainty the data do not have.
    """
    import dataclasses

    import numpy as np

    if replicates <= 0:
        disabled = Interval.undefined("bootstrap disabled (bootstrap=0)")
        return tuple(dataclasses.replace(k, ci95_bootstrap=disabled) for k in kappas)
    n_topics = topic_tables.shape[0]
    tables = None
    topics_short = shortfall(n_topics, "topics with shared items", what="the topic bootstrap needs")
    if topics_short is None:
        k = len(labels)
        draws = rng.integers(0, n_topics, size=(replicates, n_topics))
        draws += np.arange(replicates)[:, None] * n_topics  # one bincount for every resample at once
        counts = np.bincount(draws.reshape(-1), minlength=replicates * n_topics).reshape(replicates, n_topics)
        del draws
        # a float product runs on BLAS and is exact: every sum of counts stays far below 2**53
        tables = (counts.astype(float) @ topic_tables.reshape(n_topics, k * k).astype(float)).reshape(
            replicates, k, k
        )
    out = []
    for kappa in kappas:
        if not kappa.estimate.defined or not kappa.se.defined:
            # undefined estimate, or a constant rater: every resample would repeat the same degenerate answer
            reason = str(kappa.estimate.reason or kappa.se.reason)
            out.append(dataclasses.replace(kappa, ci95_bootstrap=Interval.undefined(reason)))
            continue
        if tables is None:
            out.append(dataclasses.replace(kappa, ci95_bootstrap=Interval.undefined(str(topics_short))))
            continue
        values = kappa_values(tables, disagreement_weights(labels, kappa.weights))
        defined = values[~np.isnan(values)]
        if defined.size * 2 < replicates:
            ci = Interval.undefined(
                f"kappa undefined in {replicates - defined.size} of {replicates} topic resamples"
            )
        else:
            low, high = np.quantile(defined, [0.025, 0.975])
            if high - low < 1e-12:
                ci = Interval.undefined(
                    f"every topic resample gives the same kappa ({float(low):.4f}): a zero-width interval says "
                    "nothing about uncertainty"
                )
            else:
                ci = Interval(float(low), float(high))
        dropped = replicates - int(defined.size)
        out.append(dataclasses.replace(kappa, ci95_bootstrap=ci, bootstrap_dropped=dropped))
    return tuple(out)
