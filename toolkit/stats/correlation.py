"""Do two sets of qrels rank the systems the same? Rank correlations, swapped pairs and their significance.

An organiser who judges less — a budget, a sample, a later round, another group of assessors — needs to know
whether the cheaper qrels lead to the same conclusions as the full ones. The usual check (Voorhees 2000;
Buckley & Voorhees 2004) ranks the systems by their mean score under each set of qrels and correlates the two
rankings:

* **Kendall's τ** (τ-b: pairs tied in either ranking count in neither numerator nor that side's denominator,
  the definition of ``scipy.stats.kendalltau``);
* **τ_AP** (Yilmaz, Aslam & Robertson, SIGIR 2008): Kendall's τ weighted towards the top, so a swap among
  the best systems costs more than one among the worst. It is not symmetric: ``A`` is the reference (the
  full judgments), ``B`` the ranking checked against it. Ties in either ranking are broken by the order the
  runs were given in (τ_AP has no tie rule of its own), so identical rankings give 1; like τ-b it does not
  exist when a ranking is all ties;
* **Spearman's ρ** on mid-ranks.

**Intervals.** The systems are the ones at hand, not a sample of systems: what would change with another
sample is the *topics*. So each coefficient's 95 % interval is a topic bootstrap — resample topics with
replacement, rank the systems under both qrels on the same resampled topics, recompute — with scipy's BCa
interval (``scipy.stats.bootstrap``, seeded), which corrects the percentile interval's bias and skew. An
interval needs at least 10 topics (``toolkit.minimum``); when every resample gives the same value (τ = 1 for
identical qrels) the interval is that value and says so.

**Swapped pairs.** A pair of systems ordered one way under ``A`` and the other way under ``B`` is listed with
each qrels' mean difference and the paired test of that pair under each qrels (the declared test of
``toolkit.stats.paired``, unadjusted, at ``alpha``): a swap between two systems that neither qrels tells
apart is noise; a swap where either order is significant changes a conclusion.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from toolkit.errors import ToolkitError, UsageError
from toolkit.minimum import shortfall

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

    from toolkit.model import Qrels, Run, TopicSet

#: Bootstrap resamples of the topics for the intervals.
DEFAULT_RESAMPLES = 10_000

#: The coefficients, in the order they are reported: key, label.
COEFFICIENTS: tuple[tuple[str, str], ...] = (
    ("tau", "Kendall's τ"),
    ("tau_ap", "τ_AP"),
    ("rho", "Spearman's ρ"),
)


@dataclass(frozen=True)
class Coefficient:
    """One rank correlation with its 95 % interval (``low``/``high`` None with a ``reason``)."""

    name: str
    statistic: float | None
    low: float | None
    high: float | None
    method: str
    reason: str | None = None


@dataclass(frozen=True)
class RunShift:
    """One run's mean score and rank (1 = best; ties share the best rank) under each qrels."""

    run: str
    score_a: float
    score_b: float
    rank_a: int
    rank_b: int

    @property
    def delta(self) -> float:
        """``score_b − score_a``: how much the run's mean moves from ``A`` to ``B``."""
        return self.score_b - self.score_a


@dataclass(frozen=True)
class SwappedPair:
    """Two systems in opposite order under ``A`` and ``B``: ``first`` is ahead under ``A``.

    ``delta_a`` (> 0) and ``delta_b`` (< 0) are ``mean(first) − mean(second)``; ``pvalue_a``/``pvalue_b`` the
    paired test of the pair under each qrels (None when undefined), unadjusted for multiplicity.
    """

    first: str
    second: str
    delta_a: float
    delta_b: float
    pvalue_a: float | None
    pvalue_b: float | None
    alpha: float

    @property
    def significant_a(self) -> bool:
        """``A``'s order (``first`` ahead) is significant at ``alpha``."""
        return self.pvalue_a is not None and self.pvalue_a < self.alpha

    @property
    def significant_b(self) -> bool:
        """``B``'s order (``second`` ahead) is significant at ``alpha``."""
        return self.pvalue_b is not None and self.pvalue_b < self.alpha


@dataclass(frozen=True)
class RankAgreement:
    """τ, τ_AP and ρ between two score vectors over the same systems, without intervals (e.g. the
    leave-one-run-out scores of ``score --pool-bias`` against the full ones)."""

    runs: tuple[str, ...]
    tau: float | None
    tau_ap: float | None
    rho: float | None
    swapped: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class CorrelationOptions:
    """How the rankings are compared: the tests' ``alpha`` and ``test`` (on each swapped pair), the ``seed``
    of the bootstrap and the tests, the bootstrap's ``resamples`` (0: no intervals) and the tests' resamples
    (None: the randomization test's default). ``correlate`` and ``correlate_scores`` take it, and the result
    records it, so the three say these settings once."""

    alpha: float = 0.05
    test: str = "randomization"
    seed: int = 42
    resamples: int = DEFAULT_RESAMPLES
    test_resamples: int | None = None


@dataclass(frozen=True)
class CorrelationResult:
    """The system rankings under two qrels on one measure, over ``n`` topics."""

    measure: str
    qrels_a: str
    qrels_b: str
    n: int
    topics: tuple[str, ...]
    runs: tuple[RunShift, ...]
    coefficients: tuple[Coefficient, ...]
    swapped: tuple[SwappedPair, ...]
    options: CorrelationOptions
    notes: tuple[str, ...] = ()

    def coefficient(self, key: str) -> Coefficient:
        """``tau``, ``tau_ap`` or ``rho``."""
        labels = dict(COEFFICIENTS)
        return next(c for c in self.coefficients if c.name == labels[key])


# --------------------------------------------------------------------------------------------- coefficients


def _pair_signs(x: np.ndarray) -> np.ndarray:
    """sign(x_i − x_j) for every pair i < j, along the last axis (works on a batch of rows)."""
    i, j = np.triu_indices(x.shape[-1], k=1)
    return np.sign(x[..., i] - x[..., j])


def kendall_tau(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of each row of ``a`` with the same row of ``b`` (NaN where a ranking is all ties).

    τ-b = Σ sᵃ sᵇ / √(Σ (sᵃ)² · Σ (sᵇ)²) over the pairs' signs: concordant minus discordant pairs over the
    geometric mean of the pairs untied in each ranking — the definition scipy's ``kendalltau`` uses; written on
    sign arrays so a whole bootstrap batch is one array operation.
    """
    sa, sb = _pair_signs(np.asarray(a, float)), _pair_signs(np.asarray(b, float))
    num = (sa * sb).sum(axis=-1)
    den = np.sqrt((sa * sa).sum(axis=-1) * (sb * sb).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _order_positions(x: np.ndarray) -> np.ndarray:
    """Each item's 0-based position when ranked by ``x`` descending, ties in column order (a stable sort)."""
    order = np.argsort(-np.asarray(x, float), axis=-1, kind="stable")
    return np.argsort(order, axis=-1, kind="stable")  # the inverse permutation


def tau_ap(reference: np.ndarray, other: np.ndarray) -> Any:
    """τ_AP of ``other``'s ranking against ``reference``'s (rows of a batch, or one vector).

    With the items in ``other``'s order, C(i) counts the items above position i that ``reference`` also puts
    above the item at i; τ_AP = 2/(N − 1) · Σ_{i=2..N} C(i)/(i − 1) − 1 (Yilmaz, Aslam & Robertson 2008).
    Higher score = better rank; ties are broken by column order in both rankings. Like τ-b, it does not exist
    (NaN) when either ranking is all ties.
    """
    ref = np.atleast_2d(np.asarray(reference, float))
    oth = np.atleast_2d(np.asarray(other, float))
    n = ref.shape[-1]
    if n < 2:
        return np.full(ref.shape[0], np.nan) if np.ndim(reference) > 1 else np.float64(np.nan)
    pos_ref = _order_positions(ref)
    pos_oth = _order_positions(oth)
    above_oth = pos_oth[:, None, :] < pos_oth[:, :, None]  # [r, x, y]: y above x in `other`
    above_ref = pos_ref[:, None, :] < pos_ref[:, :, None]
    correct = (above_oth & above_ref).sum(axis=-1)  # C for each item x
    depth = pos_oth  # i − 1 for the item at 1-based position i
    terms = np.where(depth > 0, correct / np.where(depth > 0, depth, 1), 0.0)
    out = 2.0 / (n - 1) * terms.sum(axis=-1) - 1.0
    all_tied = (np.ptp(ref, axis=-1) == 0) | (np.ptp(oth, axis=-1) == 0)
    out = np.where(all_tied, np.nan, out)
    return out if np.ndim(reference) > 1 else out[0]


def spearman_rho(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's ρ (Pearson on mid-ranks) of each row of ``a`` with the same row of ``b``."""
    from scipy.stats import rankdata

    ra = rankdata(np.asarray(a, float), axis=-1)
    rb = rankdata(np.asarray(b, float), axis=-1)
    ra = ra - ra.mean(axis=-1, keepdims=True)
    rb = rb - rb.mean(axis=-1, keepdims=True)
    den = np.sqrt((ra * ra).sum(axis=-1) * (rb * rb).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ra * rb).sum(axis=-1) / np.where(den > 0, den, 1), np.nan)


_FUNCTIONS = {"tau": kendall_tau, "tau_ap": tau_ap, "rho": spearman_rho}


def _finite(x: Any) -> float | None:
    value = float(x)
    return value if np.isfinite(value) else None


def rank_agreement(a: Mapping[str, float], b: Mapping[str, float]) -> RankAgreement:
    """τ, τ_AP (``a`` the reference) and ρ between two scores of the same systems, and the pairs that swap."""
    runs = tuple(r for r in a if r in b)
    if len(runs) < 2:
        raise UsageError(f"a ranking agreement needs at least 2 runs scored both ways (found {len(runs)})")
    x = np.array([a[r] for r in runs], float)
    y = np.array([b[r] for r in runs], float)
    return RankAgreement(
        runs=runs,
        tau=_finite(kendall_tau(x, y)),
        tau_ap=_finite(tau_ap(x, y)),
        rho=_finite(spearman_rho(x, y)),
        swapped=tuple((first, second) for first, second, _, _ in _swaps(runs, x, y)),
    )


class _BiasRow(Protocol):
    @property
    def run(self) -> str: ...
    @property
    def measure(self) -> str: ...
    @property
    def full(self) -> float: ...
    @property
    def without_own(self) -> float: ...


def leave_one_out_agreement(rows: Iterable[_BiasRow]) -> dict[str, RankAgreement]:
    """Per measure, the ranking of the runs by their leave-one-run-out scores (each scored without the
    documents only it pooled, ``score --pool-bias``) against the ranking by their full scores: τ near 1 says
    the pool would rank a new system like its contributors fairly (Zobel 1998; Voorhees 2001)."""
    full: dict[str, dict[str, float]] = {}
    without: dict[str, dict[str, float]] = {}
    for row in rows:
        full.setdefault(row.measure, {})[row.run] = row.full
        without.setdefault(row.measure, {})[row.run] = row.without_own
    return {m: rank_agreement(full[m], without[m]) for m in full if len(full[m]) >= 2}


def _swaps(runs: Sequence[str], x: np.ndarray, y: np.ndarray) -> list[tuple[str, str, int, int]]:
    """Pairs strictly ordered one way by ``x`` and the other way by ``y``: (ahead under x, other, i, j)."""
    out = []
    for i, j in itertools.combinations(range(len(runs)), 2):
        if (x[i] - x[j]) * (y[i] - y[j]) < 0:
            first, second = (i, j) if x[i] > x[j] else (j, i)
            out.append((runs[first], runs[second], first, second))
    return out


def _ranks(x: np.ndarray) -> list[int]:
    """1 = best; tied scores share the best rank among them (competition ranking)."""
    from scipy.stats import rankdata

    return [int(r) for r in rankdata(-x, method="min")]


# --------------------------------------------------------------------------------------------- intervals


def _intervals(
    values_a: np.ndarray, values_b: np.ndarray, *, seed: int, resamples: int
) -> dict[str, tuple[float | None, float | None, str, str | None]]:
    """BCa topic-bootstrap interval of each coefficient: (low, high, method, reason)."""
    from scipy.stats import bootstrap

    n = values_a.shape[0]
    method = f"topic bootstrap, BCa, {resamples} resamples, seed {seed}"
    short = shortfall(n, "topics")
    out: dict[str, tuple[float | None, float | None, str, str | None]] = {}
    for key, function in _FUNCTIONS.items():
        if short or resamples <= 0:
            out[key] = (None, None, method, short or "bootstrap disabled (0 resamples)")
            continue

        def statistic(idx: np.ndarray, axis: int = -1, f: Any = function) -> np.ndarray:
            rows = np.asarray(idx, dtype=np.intp)
            batch = rows.reshape(-1, rows.shape[-1])
            means_a = values_a[batch].mean(axis=1)
            means_b = values_b[batch].mean(axis=1)
            return np.asarray(f(means_a, means_b)).reshape(rows.shape[:-1])

        rng = np.random.default_rng(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bootstrap(
                (np.arange(n),),
                statistic,
                n_resamples=resamples,
                batch=min(resamples, 1000),
                vectorized=True,
                method="BCa",
                confidence_level=0.95,
                random_state=rng,
            )
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        dist = np.asarray(res.bootstrap_distribution, float)
        if np.isfinite(low) and np.isfinite(high):
            out[key] = (low, high, method, None)
        elif dist.size and np.all(dist == dist[0]):
            value = float(dist[0])  # every resample agrees: BCa's acceleration is 0/0
            out[key] = (value, value, f"{method} (every resample gave {value:g})", None)
        else:
            out[key] = (
                None,
                None,
                method,
                "the bootstrap distribution is degenerate (a ranking is all ties)",
            )
    return out


# --------------------------------------------------------------------------------------------- correlate


def correlate_scores(
    scores_a: Mapping[str, Mapping[str, float]],
    scores_b: Mapping[str, Mapping[str, float]],
    *,
    measure: Measure | str,
    qrels_a: str = "A",
    qrels_b: str = "B",
    options: CorrelationOptions = CorrelationOptions(),
) -> CorrelationResult:
    """Correlate the system rankings of per-topic scores: ``scores_x[run][query_id]`` under each qrels.

    Runs and topics are those of ``scores_a``; every run must have every topic under both (score the runs
    against one topic set — ``correlate`` does). See the module docstring for what is computed.
    """
    from toolkit.scoring.measures import measure_object
    from toolkit.stats.paired import PairedOptions, PairSpec, Panel, paired_tests
    from toolkit.stats.randomization import DEFAULT_RESAMPLES as TEST_RESAMPLES

    m = measure_object(measure)
    runs = tuple(scores_a)
    if len(runs) < 2:
        raise UsageError(
            f"correlate needs at least 2 runs (found {len(runs)}): a ranking of one is no ranking"
        )
    missing = [r for r in runs if r not in scores_b]
    if missing:
        raise ToolkitError(f"runs {', '.join(missing)} have no scores under {qrels_b}")
    topics = tuple(scores_a[runs[0]])
    if not topics:
        raise ToolkitError("no topics to rank the systems on")
    try:
        va = np.array([[float(scores_a[r][q]) for r in runs] for q in topics])
        vb = np.array([[float(scores_b[r][q]) for r in runs] for q in topics])
    except KeyError as exc:
        raise ToolkitError(
            f"a run has no score for topic {exc.args[0]!r}; score every run on the same topics"
        ) from None
    mean_a, mean_b = va.mean(axis=0), vb.mean(axis=0)
    ranks_a, ranks_b = _ranks(mean_a), _ranks(mean_b)
    shifts = tuple(
        RunShift(r, float(mean_a[k]), float(mean_b[k]), ranks_a[k], ranks_b[k]) for k, r in enumerate(runs)
    )
    bounds = _intervals(va, vb, seed=options.seed, resamples=options.resamples)
    coefficients = tuple(
        Coefficient(label, _finite(_FUNCTIONS[key](mean_a, mean_b)), *bounds[key])
        for key, label in COEFFICIENTS
    )
    swaps = _swaps(runs, mean_a, mean_b)
    pvalues: dict[tuple[int, int, str], float | None] = {}
    if swaps:
        panels = {"a": Panel.of(m, topics, runs, va), "b": Panel.of(m, topics, runs, vb)}
        specs = [PairSpec(panels[side], j, i) for _, _, i, j in swaps for side in ("a", "b")]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            battery = PairedOptions(
                alpha=options.alpha,
                seed=options.seed,
                test=options.test,
                bootstrap=0,
                resamples=options.test_resamples or TEST_RESAMPLES,
            )
            tested = paired_tests(specs, battery)
        for k, (_, _, i, j) in enumerate(swaps):
            pvalues[(i, j, "a")] = tested[2 * k].pvalue
            pvalues[(i, j, "b")] = tested[2 * k + 1].pvalue
    swapped = tuple(
        SwappedPair(
            first,
            second,
            float(mean_a[i] - mean_a[j]),
            float(mean_b[i] - mean_b[j]),
            pvalues[(i, j, "a")],
            pvalues[(i, j, "b")],
            options.alpha,
        )
        for first, second, i, j in swaps
    )
    notes = []
    if len(runs) < 3:
        notes.append("with 2 runs every coefficient is +1 or −1")
    return CorrelationResult(
        measure=str(m),
        qrels_a=qrels_a,
        qrels_b=qrels_b,
        n=len(topics),
        topics=topics,
        runs=shifts,
        coefficients=coefficients,
        swapped=swapped,
        options=options,
        notes=tuple(notes),
    )


def correlate(
    runs: Sequence[Run],
    qrels_a: Qrels,
    qrels_b: Qrels,
    *,
    measure: Measure | str,
    topics: TopicSet | None = None,
    options: CorrelationOptions = CorrelationOptions(),
) -> CorrelationResult:
    """Score ``runs`` under both qrels on one denominator and correlate the rankings (module docstring).

    The topics that count are the topic set's, else ``qrels_a``'s (the reference): a topic ``qrels_b`` does not
    judge scores 0 under it, as it would in any evaluation with those qrels.
    """
    from toolkit.model import Topic
    from toolkit.model import TopicSet as TopicSetType
    from toolkit.scoring.evaluate import evaluate_many
    from toolkit.scoring.measures import measure_object

    m = measure_object(measure)
    denominator = topics or TopicSetType(
        topics=tuple(Topic(q, q) for q in qrels_a.query_ids), name=qrels_a.name
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # topics a sampled qrels lacks: they score 0, by design
        under_a = evaluate_many(runs, qrels_a, topics=denominator, measures=[m])
        under_b = evaluate_many(runs, qrels_b, topics=denominator, measures=[m])
    name = str(m)

    def table(results: Sequence[Any]) -> dict[str, dict[str, float]]:
        return {s.run: {q: s.per_query[q][name] for q in s.query_ids} for s in results}

    return correlate_scores(
        table(under_a),
        table(under_b),
        measure=m,
        qrels_a=qrels_a.name,
        qrels_b=qrels_b.name,
        options=options,
    )
