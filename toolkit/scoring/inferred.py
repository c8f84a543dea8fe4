"""Inferred measures: estimates of a measure's full-pool value from a sampled pool, with their variance.

A sampled pool (``toolkit.pooling.sampling``) judges a random part of the pool, each document with a known
inclusion probability π (the fifth column of the qrels, ``toolkit.formats.sampled``). What is estimated is the
value the measure would take **had every pooled document been judged** — documents outside the pool are
non-relevant, as with any pooled qrels. Documents with the same π form one stratum (the sampler gives each
stratum its own π); in a stratum listing its unjudged documents too (relevance < 0), π is the realised
n_h/N_h — judged over listed — so a sampled document nobody judged counts as not sampled.

* **P@k** (estimated) — the Horvitz–Thompson estimate (1/k)·Σ y_i/π_i over the judged relevant documents in
  the top k: unbiased for any design. Exact (variance 0) where the top k are judged in full.
* **statAP** (Pavlu & Aslam 2007) — AP = (1/R)·Σ_i y_i·prec@i written as a sum over single documents and
  pairs, each estimated by Horvitz–Thompson with the exact joint inclusion probabilities of sampling without
  replacement (π_ij = n_h(n_h − 1)/(N_h(N_h − 1)) within a stratum, π_i·π_j across), divided by the
  Horvitz–Thompson estimate of R.
* **infAP** (Yilmaz & Aslam, CIKM 2006), in the stratified form of Yilmaz, Kanoulas & Aslam (SIGIR 2008):
  the expected precision above a judged relevant document at rank k is 1/k + (1/k)·Σ_h p_h·(r_h + ε)/(j_h +
  2ε) — p_h documents of stratum h pooled above it, j_h of them judged, r_h relevant, ε = 0.00001 — and the
  estimate is the π-weighted sum of those over the π-weighted number of relevant documents. With one stratum
  (a uniform sample, or the whole pool judged) this is trec_eval's ``infAP`` (m_infap.c) to the last digit.
  With several strata, a stratum with no judged document above rank k (j_h = 0) would get ½ per pooled
  document from the ε rule — in a design that samples deep strata sparsely that is most strata, and infAP is
  then biased upward (the simulation measured interval coverage of 34–64 %); such a stratum takes instead the
  share of relevant documents among the run's judged documents of that stratum (anywhere in its ranking),
  else among the stratum's judged documents. Needs the unjudged pooled documents listed (relevance −1): a
  file of judged documents only cannot say where they are.
* **infNDCG@k** (Yilmaz, Kanoulas & Aslam 2008) — DCG is a sum of gains, so its estimate is the sum of the
  judged documents' discounted gains weighted by 1/π; the ideal DCG is built from the estimated number of
  documents of each grade (Σ 1/π over the judged documents of that grade), fractional counts filling
  fractional positions. Gains and discounts are trec_eval's (``ndcg_cut``: gain = grade, 1/log2(rank + 1)),
  so with the whole pool judged it equals ``ndcg_cut.k``.

**Variance, bias and interval.** Each topic's estimate gets the stratified jackknife variance (delete one
judged document at a time within its stratum: v = Σ_h (1 − f_h)·(n_h − 1)/n_h · Σ_i (θ_(hi) − θ̄_h)², f_h the
stratum's sampling fraction). For the linear estimates (P@k) it is exactly the textbook variance of a
stratified sample without replacement; for the ratios it is the standard large-sample estimate. The ratios
(statAP, infAP, infNDCG) are biased by O(1/n_h), and the mean over topics adds the topics' biases while its
standard error shrinks as 1/√topics: on 50 topics the bias alone put the normal interval's coverage at 76–88 %
in the simulation. Each topic therefore also gets Quenouille's jackknife bias estimate b = Σ_h (1 − f_h)·(n_h −
1)·(θ̄_h − θ̂) (zero for P@k), and the interval is centred on the mean of θ̂ − b. Its half-width is Student's t
at Satterthwaite's effective degrees of freedom ν = (Σ v)² / Σ v²/(n − 1) over every sampled stratum of every
topic (Cochran, *Sampling Techniques*, 3rd ed., §5.4), which widens it when a few small strata carry the
variance; the interval is clipped to [0, 1]. The reported estimate stays the published estimator (so infAP
stays trec_eval's); ``corrected`` and ``df`` are given beside it. The interval is for the **judging sample
only**: it says where the full-pool mean of *these* topics lies, not how another set of topics would score
(``compare``'s t interval covers that). A stratum with a single judged document has no variance estimate: the
interval is refused and says why. A ratio on a topic whose sample met no relevant document is 0/0 with a false
zero variance: not estimable, so the topic is **bounded** — it counts 0 in the shown estimate (as NIST's statAP
script does) and its whole range [0, 1] in the interval, which then covers whenever the other topics' interval
does; the result's ``note`` says so in one line. Refusing the whole interval for one such topic left a uniform
10 % sample of 50 TREC-like topics with no interval at all; dropping the topic would change what is estimated.

Measures that depend on *which* document comes first (RR, R-Prec, success) cannot be estimated from a sample
— an unjudged document above the first judged relevant one may be relevant — and are refused in one line,
unless the run's top k is judged in full, when the ordinary measure is exact.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from toolkit.errors import UsageError

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

    from toolkit.model import Run, SampledQrels, TopicSet

#: infAP's smoothing constant (trec_eval's ``INFAP_EPSILON``).
INFAP_EPSILON = 0.00001

#: Estimators by name (family), with the paper each implements.
ESTIMATORS: dict[str, str] = {
    "infAP": "Yilmaz & Aslam 2006; stratified form of Yilmaz, Kanoulas & Aslam 2008",
    "statAP": "Pavlu & Aslam 2007",
    "infNDCG": "Yilmaz, Kanoulas & Aslam 2008",
    "P": "Horvitz–Thompson estimate of P@k",
}

_NAME = re.compile(r"^(infAP|statAP|infNDCG|P)(?:@(\d+))?$")


@dataclass(frozen=True)
class Estimator:
    """One inferred measure: ``family`` in ``ESTIMATORS``, ``cutoff`` k (None = the whole ranking)."""

    family: str
    cutoff: int | None = None

    def __str__(self) -> str:
        return self.family if self.cutoff is None else f"{self.family}@{self.cutoff}"

    @property
    def needs_listing(self) -> bool:
        """infAP imputes the unjudged documents above a rank, so it must know where they are."""
        return self.family == "infAP"


def parse_estimator(name: str) -> Estimator:
    """``infAP``, ``statAP``, ``infNDCG@10``, ``P@10`` → ``Estimator``; anything else is refused in one line."""
    found = _NAME.match(name.strip())
    if found is None:
        raise UsageError(not_estimable(name))
    family, cutoff = found[1], found[2]
    if family == "P" and cutoff is None:
        raise UsageError(
            "P needs a cutoff from a sample (P@10): precision over the whole ranking is not estimated"
        )
    if family in ("infAP", "statAP") and cutoff is not None:
        raise UsageError(f"{family} has no cutoff; use {family}")
    k = int(cutoff) if cutoff is not None else None
    if k is not None and k < 1:
        raise UsageError(f"{name}: the cutoff must be at least 1")
    return Estimator(family, k)


def not_estimable(name: str) -> str:
    """The one-line refusal for a measure a sample cannot estimate."""
    return (
        f"{name} cannot be estimated from a sampled pool: it depends on which documents come first, and an "
        "unjudged one may be relevant; use infAP, statAP, infNDCG@k or P@k, or judge the top ranks in full "
        "(a stratum 1-k:1) to score it exactly"
    )


# --------------------------------------------------------------------------------------------- the design


@dataclass(frozen=True)
class TopicSample:
    """One topic's sample: the grade of every judged document, the listed unjudged ones, each document's
    stratum, and per stratum N_h (listed, or n_h/π when only judged documents are listed), n_h and f_h."""

    grades: Mapping[str, int]
    unjudged: frozenset[str]
    stratum: Mapping[str, int]
    population: tuple[float, ...]
    judged: tuple[int, ...]
    fraction: tuple[float, ...]
    listed: bool

    @functools.cached_property
    def grade_counts(self) -> list[dict[int, int]]:
        """Per stratum, how many judged documents have each grade (read by every run and measure)."""
        return _counts(self)

    @functools.cached_property
    def members(self) -> dict[int, list[str]]:
        """The judged documents of each stratum."""
        out: dict[int, list[str]] = {}
        for d in self.grades:
            out.setdefault(self.stratum[d], []).append(d)
        return out

    def weight(self, h: int, judged: int | None = None) -> float:
        """1/π of a judged document of stratum ``h`` (with ``judged`` documents judged in it)."""
        n = self.judged[h] if judged is None else judged
        if self.listed:
            return self.population[h] / n
        return 1.0 / self.fraction[h]


def topic_samples(sampled: SampledQrels) -> dict[str, TopicSample]:
    """Each topic's design read from sampled qrels (strata = equal inclusion probabilities; module docstring)."""
    out: dict[str, TopicSample] = {}
    for query_id, docs in sampled.qrels.judgments.items():
        probs = sampled.probabilities.get(query_id, {})
        keys: dict[float, int] = {}
        stratum: dict[str, int] = {}
        grades: dict[str, int] = {}
        unjudged: set[str] = set()
        for doc_id, grade in docs.items():
            p = round(float(probs.get(doc_id, 1.0)), 12)
            h = keys.setdefault(p, len(keys))
            stratum[doc_id] = h
            if grade >= 0:
                grades[doc_id] = grade
            else:
                unjudged.add(doc_id)
        count = len(keys)
        rows = [0] * count
        judged = [0] * count
        for doc_id, h in stratum.items():
            rows[h] += 1
            judged[h] += doc_id in grades
        declared = sorted(keys, key=keys.__getitem__)
        # listed: every stratum shows its unjudged documents (or is judged in full)
        listed = all(rows[h] > judged[h] or declared[h] >= 1.0 for h in range(count))
        population = tuple(float(rows[h]) if listed else judged[h] / declared[h] for h in range(count))
        fraction = tuple(
            (judged[h] / rows[h] if rows[h] else 1.0) if listed else declared[h] for h in range(count)
        )
        out[query_id] = TopicSample(
            grades, frozenset(unjudged), stratum, population, tuple(judged), fraction, listed
        )
    return out


# --------------------------------------------------------------------------------------------- estimators


def _ideal_dcg(counts: Mapping[int, float], k: int | None) -> float:
    """The ideal DCG@k from (possibly fractional) numbers of documents per grade: the sorted gains as a step
    function over positions, each position [p − 1, p) taking the mean gain over it."""
    total = 0.0
    x = 0.0
    limit = math.inf if k is None else float(k)
    for grade in sorted((g for g in counts if g > 0), reverse=True):
        end = x + counts[grade]
        p = int(math.floor(x))
        while p < end and p < limit:
            overlap = min(end, p + 1.0) - max(x, float(p))
            if overlap > 0:
                total += grade * overlap / math.log2(p + 2)
            p += 1
        x = end
        if x >= limit:
            break
    return total


#: One pooled document of a ranking: (1-based rank, doc id, stratum, grade; −1 when unjudged).
Position = tuple[int, str, int, int]


def _positions(ranking: Sequence[str], s: TopicSample) -> list[Position]:
    """The pooled documents of ``ranking`` in rank order (ranks count every document, pooled or not)."""
    out: list[Position] = []
    for i, d in enumerate(ranking, start=1):
        h = s.stratum.get(d)
        if h is not None:
            out.append((i, d, h, s.grades.get(d, -1)))
    return out


def _counts(s: TopicSample) -> list[dict[int, int]]:
    """Per stratum, how many judged documents have each grade."""
    out: list[dict[int, int]] = [{} for _ in s.population]
    for d, g in s.grades.items():
        counts = out[s.stratum[d]]
        counts[g] = counts.get(g, 0) + 1
    return out


def _evaluate(
    est: Estimator,
    positions: Sequence[Position],
    length: int,
    s: TopicSample,
    counts: Sequence[Mapping[int, int]],
    *,
    rel_level: int,
    drop: tuple[str, int, int] | None = None,
) -> float:
    """One topic's estimate; ``drop`` = (doc, stratum, grade) takes that judged document out of the sample (it
    becomes unjudged) for the jackknife."""
    judged = list(s.judged)
    dropped = ""
    if drop is not None:
        dropped, dh, _ = drop
        judged[dh] -= 1
    w = [(s.weight(h, judged[h]) if judged[h] > 0 else 0.0) for h in range(len(judged))]

    def grade_counts(h: int) -> Mapping[int, int]:
        if drop is None or drop[1] != h:
            return counts[h]
        fewer = dict(counts[h])
        fewer[drop[2]] -= 1
        return fewer

    family = est.family
    if family == "P":
        k = est.cutoff or length
        total = sum(w[h] for i, d, h, g in positions if i <= k and g >= rel_level and d != dropped)
        return total / k
    if family == "infNDCG":
        cut = est.cutoff
        dcg = sum(
            g * w[h] / math.log2(i + 1)
            for i, d, h, g in positions
            if (cut is None or i <= cut) and g > 0 and d != dropped
        )
        ideal_counts: dict[int, float] = {}
        for h in range(len(judged)):
            for g, c in grade_counts(h).items():
                if g > 0 and c:
                    ideal_counts[g] = ideal_counts.get(g, 0.0) + c * w[h]
        ideal = _ideal_dcg(ideal_counts, cut)
        return dcg / ideal if ideal > 0 else 0.0
    # AP family: R estimated by Horvitz–Thompson
    r_hat = sum(
        w[h] * sum(c for g, c in grade_counts(h).items() if g >= rel_level) for h in range(len(judged))
    )
    if r_hat <= 0:
        return 0.0
    if family == "statAP":
        return _stat_numerator(positions, s, judged, w, dropped, rel_level) / r_hat
    rates = None
    if (
        len(judged) > 1
    ):  # several strata: a stratum with nothing judged above a rank takes the run's rate in it
        stratum_rate = [
            (sum(c for g, c in grade_counts(h).items() if g >= rel_level) / judged[h]) if judged[h] else 0.5
            for h in range(len(judged))
        ]
        seen = [0] * len(judged)
        hit = [0] * len(judged)
        for _, d, h, g in positions:
            if g >= 0 and d != dropped:
                seen[h] += 1
                hit[h] += g >= rel_level
        rates = [hit[h] / seen[h] if seen[h] else stratum_rate[h] for h in range(len(judged))]
    return _inf_numerator(positions, len(judged), w, dropped, rel_level, rates) / r_hat


def _stat_numerator(
    positions: Sequence[Position],
    s: TopicSample,
    judged: Sequence[int],
    w: Sequence[float],
    dropped: str,
    rel_level: int,
) -> float:
    """Σ_i y_i/(i·π_i) + Σ_{j<i} y_i·y_j/(i·π_ij) over the judged relevant documents of the ranking."""
    same: list[float] = []
    for h, n in enumerate(judged):
        big = s.population[h]
        if not s.listed or n < 2:
            same.append(w[h] * w[h])  # N_h unknown (independent draws), or no pair within the stratum
        else:
            same.append(big * (big - 1) / (n * (n - 1)))
    total = 0.0
    above_weight = 0.0  # Σ w over the judged relevant documents above, for pairs across strata
    above_by_stratum: dict[int, int] = {}
    for i, d, h, g in positions:
        if g < rel_level or d == dropped:
            continue
        within = above_by_stratum.get(h, 0)
        across = above_weight - within * w[h]
        term = w[h] + w[h] * across + within * same[h]
        total += term / i
        above_weight += w[h]
        above_by_stratum[h] = within + 1
    return total


def _inf_numerator(
    positions: Sequence[Position],
    strata: int,
    w: Sequence[float],
    dropped: str,
    rel_level: int,
    rates: Sequence[float] | None = None,
) -> float:
    """Σ over judged relevant documents of 1/π times the expected precision above them (module docstring)."""
    pooled = [0] * strata
    judged = [0] * strata
    relevant = [0] * strata
    total = 0.0
    for i, d, h, g in positions:
        if g < 0 or d == dropped:
            pooled[h] += 1
            continue
        rel = g >= rel_level
        if rel:
            if i == 1:
                expected = 1.0
            else:
                inferred = 0.0
                for k in range(strata):
                    if not pooled[k]:
                        continue
                    if judged[k] == 0 and rates is not None:
                        inferred += pooled[k] * rates[k]
                    else:
                        inferred += (
                            pooled[k] * (relevant[k] + INFAP_EPSILON) / (judged[k] + 2 * INFAP_EPSILON)
                        )
                expected = 1.0 / i + inferred / i
            total += w[h] * expected
        pooled[h] += 1
        judged[h] += 1
        relevant[h] += rel
    return total


# --------------------------------------------------------------------------------------------- variance

#: Why a ratio's topic is bounded rather than estimated when its sample met no relevant document.
NO_RELEVANT = (
    "the sample judged no relevant document and left documents unjudged: the estimate is 0/0 (shown as 0), "
    "its jackknife variance a false 0, and relevant documents may be among the unjudged — the interval takes "
    "this topic's whole range [0, 1]; judge the top ranks in full (a stratum 1-k:1) to avoid it"
)


@dataclass(frozen=True)
class TopicEstimate:
    """One topic's estimate, its jackknife variance (None with ``reason`` when it has none) and jackknife bias
    estimate; ``components`` holds each sampled stratum's share of the variance with its n_h, for the
    degrees of freedom of the interval. ``bounded``: a ratio whose sample met no relevant document — not
    estimable, so the interval of the mean gives it its whole range [0, 1] instead of refusing."""

    value: float
    variance: float | None
    reason: str | None = None
    bias: float = 0.0
    components: tuple[tuple[float, int], ...] = ()
    bounded: bool = False


def estimate_topic(
    est: Estimator,
    ranking: Sequence[str],
    s: TopicSample,
    *,
    rel_level: int = 1,
    counts: Sequence[Mapping[int, int]] | None = None,
    positions: Sequence[Position] | None = None,
) -> TopicEstimate:
    """The estimate and its stratified jackknife variance (module docstring); ``positions`` may pass
    ``_positions(ranking, s)`` when several measures read the same ranking."""
    if est.needs_listing and not s.listed:
        raise UsageError(
            f"{est} needs the pool's unjudged documents listed (relevance -1 rows with their probability); "
            "these qrels list judged documents only — statAP and P@k need the probabilities alone"
        )
    found = _positions(ranking, s) if positions is None else positions
    if est.cutoff is not None:  # documents below the cutoff change only the weights (and R̂, the ideal DCG)
        found = [p for p in found if p[0] <= est.cutoff]
    grade_counts = counts if counts is not None else s.grade_counts
    length = len(ranking)

    def value(drop: tuple[str, int, int] | None = None) -> float:
        return _evaluate(est, found, length, s, grade_counts, rel_level=rel_level, drop=drop)

    estimate = value()
    if est.family != "P" and any(f < 1.0 for f in s.fraction):
        relevant = sum(1 for g in s.grades.values() if g >= (rel_level if est.family != "infNDCG" else 1))
        if relevant == 0:
            return TopicEstimate(estimate, None, NO_RELEVANT, bounded=True)
    in_ranking = {d for _, d, _, _ in found}
    variance = 0.0
    bias = 0.0
    components: list[tuple[float, int]] = []
    for h, members in s.members.items():
        n = s.judged[h]
        f = s.fraction[h]
        if f >= 1.0:
            continue
        if n < 2:
            return TopicEstimate(estimate, None, "a sampled stratum has a single judged document")
        # documents outside the ranking differ only by their grade: one replicate per grade
        replicates: list[float] = []
        cache: dict[int, float] = {}
        for d in members:
            g = s.grades[d]
            if d in in_ranking:
                replicates.append(value((d, h, g)))
            else:
                if g not in cache:
                    cache[g] = value((d, h, g))
                replicates.append(cache[g])
        mean = sum(replicates) / n
        part = (1 - f) * (n - 1) / n * sum((v - mean) ** 2 for v in replicates)
        variance += part
        components.append((part, n))
        bias += (1 - f) * (n - 1) * (mean - estimate)
    return TopicEstimate(estimate, variance, bias=bias, components=tuple(components))


@dataclass(frozen=True)
class EstimateResult:
    """One run, one inferred measure over ``n`` topics: the mean estimate, its variance and 95 % interval
    (``low``/``high`` None with ``reason`` when some topic has no variance). The interval is centred on
    ``corrected``, the mean of the jackknife bias-corrected topic estimates, with Student's t at ``df``
    (Satterthwaite) degrees of freedom (module docstring)."""

    run: str
    measure: str
    n: int
    mean: float
    variance: float | None
    low: float | None
    high: float | None
    per_topic: Mapping[str, TopicEstimate] = field(default_factory=dict)
    reason: str | None = None
    estimate: bool = True
    corrected: float | None = None
    df: float | None = None
    bounded: tuple[str, ...] = ()

    @property
    def note(self) -> str | None:
        """One line for the reader: why there is no interval, or which topics it bounds instead of estimating."""
        if self.reason is not None:
            return self.reason
        if not self.bounded:
            return None
        shown = ", ".join(self.bounded[:5]) + (" …" if len(self.bounded) > 5 else "")
        return (
            f"{len(self.bounded)} of {self.n} topics met no relevant document in the sample ({shown}): not "
            "estimable, each counted 0 in the estimate and over its whole range [0, 1] in the interval"
        )


def estimate_run(
    run: Run,
    sampled: SampledQrels,
    measure: Estimator | str,
    *,
    topics: TopicSet | None = None,
    rel_level: int = 1,
    samples: Mapping[str, TopicSample] | None = None,
) -> EstimateResult:
    """Estimate ``measure`` for ``run`` over the topic set's topics, else the qrels' (a topic without qrels
    counts as 0 with no variance, as in ``score``)."""
    (result,) = estimate_many([run], sampled, [measure], topics=topics, rel_level=rel_level, samples=samples)[
        0
    ]
    return result


def estimate_many(
    runs: Sequence[Run],
    sampled: SampledQrels,
    measures: Sequence[Estimator | str],
    *,
    topics: TopicSet | None = None,
    rel_level: int = 1,
    samples: Mapping[str, TopicSample] | None = None,
) -> list[list[EstimateResult]]:
    """Every run's estimate of every measure (``[run][measure]``), reading each ranking once."""
    estimators = [parse_estimator(m) if isinstance(m, str) else m for m in measures]
    design = samples if samples is not None else topic_samples(sampled)
    query_ids = list(topics.relevance_ids) if topics is not None else list(sampled.query_ids)
    if not query_ids:
        raise UsageError("no topics to estimate on")
    out: list[list[EstimateResult]] = []
    for run in runs:
        per: list[dict[str, TopicEstimate]] = [{} for _ in estimators]
        for q in query_ids:
            s = design.get(q)
            if s is None:
                for table in per:
                    table[q] = TopicEstimate(0.0, 0.0)
                continue
            ranking = run.ranking(q)
            positions = _positions(ranking, s)
            for est, table in zip(estimators, per, strict=True):
                table[q] = estimate_topic(est, ranking, s, rel_level=rel_level, positions=positions)
        out.append(
            [_summarise(run.name, str(est), table) for est, table in zip(estimators, per, strict=True)]
        )
    return out


def _summarise(run: str, measure: str, per_topic: dict[str, TopicEstimate]) -> EstimateResult:
    """The mean over topics and its interval. A topic that is ``bounded`` (no relevant document sampled) adds
    its whole range: the interval is [Σ θ̃_known/n − half, (Σ θ̃_known + u)/n + half], u such topics — it
    covers whenever the known topics' interval does, whatever their true values."""
    n = len(per_topic)
    mean = sum(t.value for t in per_topic.values()) / n
    missing = next(
        (f"{q}: {t.reason}" for q, t in per_topic.items() if t.variance is None and not t.bounded), None
    )
    if missing is not None:
        return EstimateResult(run, measure, n, mean, None, None, None, per_topic, missing)
    known = [t for t in per_topic.values() if not t.bounded]
    bounded = tuple(q for q, t in per_topic.items() if t.bounded)
    variance = sum(t.variance or 0.0 for t in known) / n**2
    corrected = sum(t.value - t.bias for t in known) / n
    parts = [(v, k) for t in known for v, k in t.components if v > 0]
    df = sum(v for v, _ in parts) ** 2 / sum(v * v / (k - 1) for v, k in parts) if parts else None
    half = _t975(df) * math.sqrt(variance) if df is not None else 0.0
    if not parts and not bounded:  # every topic exact, or nothing to vary: the interval is the value
        return EstimateResult(run, measure, n, mean, variance, mean, mean, per_topic, corrected=mean)
    low = min(1.0, max(0.0, corrected - half))
    high = min(1.0, max(0.0, corrected + len(bounded) / n + half))
    return EstimateResult(
        run, measure, n, mean, variance, low, high, per_topic, corrected=corrected, df=df, bounded=bounded
    )


def _t975(df: float) -> float:
    """Student's t quantile 0.975 at (fractional) ``df`` degrees of freedom."""
    from scipy import stats

    return float(stats.t.ppf(0.975, df))


# --------------------------------------------------------------------------------------------- score's route

#: What ``score`` estimates from sampled qrels when no measures are named.
DEFAULT_ESTIMATES = ("infAP", "statAP", "infNDCG@10", "P@10")


@dataclass(frozen=True)
class Route:
    """How one requested measure is scored from sampled qrels: an ``estimator``; or ``exact`` (the ordinary
    measure, exact for a run whose top ``cutoff`` is judged in full); or ``refused`` with the one-line reason."""

    name: str
    estimator: Estimator | None = None
    exact: Measure | None = None
    cutoff: int | None = None
    refused: str | None = None


def route(token: str) -> Route:
    """``infAP``, ``statAP``, ``infNDCG@k``, ``P@k`` are estimated; ``nDCG@k`` (or ``ndcg_cut.k``) becomes
    ``infNDCG@k`` and trec_eval's ``P.k`` ``P@k``; another measure with a cutoff (``RR@10``) is exact where the
    run's top k is judged in full; anything else is refused in one line."""
    try:
        return Route(token, estimator=parse_estimator(token))
    except UsageError:
        pass
    from toolkit.scoring.measures import measure_object

    try:
        measure = measure_object(token)
    except UsageError as exc:
        return Route(token, refused=str(exc))
    name = getattr(measure, "NAME", "")
    params = dict(measure.params)
    cutoff = params.get("cutoff")
    plain = params.get("rel", 1) == 1 and not params.get("judged_only")
    if name == "infAP" and plain:
        return Route(str(measure), estimator=Estimator("infAP"))
    if name == "P" and isinstance(cutoff, int) and plain:
        return Route(str(measure), estimator=Estimator("P", cutoff))
    if name == "nDCG" and isinstance(cutoff, int) and not params.get("gains") and not params.get("judged"):
        return Route(str(measure), estimator=Estimator("infNDCG", cutoff))
    if isinstance(cutoff, int):
        return Route(str(measure), exact=measure, cutoff=cutoff)
    return Route(str(measure), refused=not_estimable(str(measure)))


def judged_in_full(run: Run, sampled: SampledQrels, cutoff: int, query_ids: Sequence[str]) -> bool:
    """No pooled document left unjudged (a negative grade) in the run's top ``cutoff`` of any topic."""
    for q in query_ids:
        grades = sampled.qrels.judgments.get(q, {})
        if any(grades.get(d, 0) < 0 for d in run.ranking(q)[:cutoff]):
            return False
    return True


def score_sampled(
    runs: Sequence[Run],
    sampled: SampledQrels,
    tokens: Sequence[str],
    *,
    topics: TopicSet | None = None,
) -> tuple[list[list[EstimateResult]], list[str]]:
    """``score`` with sampled qrels: per run, a result per measure it can give (estimates first, in the order
    asked, then exact ones), and the one-line refusals (``route``)."""
    import warnings

    from toolkit.model import Topic
    from toolkit.model import TopicSet as TopicSetType
    from toolkit.scoring.evaluate import evaluate_many

    routes = [route(t) for t in tokens]
    refused = [r.refused for r in routes if r.refused is not None]
    estimators = [r.estimator for r in routes if r.estimator is not None]
    results = estimate_many(runs, sampled, estimators, topics=topics) if estimators else [[] for _ in runs]
    query_ids = list(topics.relevance_ids) if topics is not None else list(sampled.query_ids)
    denominator = topics or TopicSetType(topics=tuple(Topic(q, q) for q in query_ids), name=sampled.name)
    for k, run in enumerate(runs):
        for r in routes:
            if r.exact is None or r.cutoff is None:
                continue
            if not judged_in_full(run, sampled, r.cutoff, query_ids):
                refused.append(
                    f"{r.name} for {run.name}: its top {r.cutoff} is not judged in full on every topic, and a "
                    f"sample cannot estimate it (an unjudged document may come first); judge ranks 1-{r.cutoff} "
                    "in full to score it exactly"
                )
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                (scores,) = evaluate_many([run], sampled.qrels, topics=denominator, measures=[r.exact])
            name = scores.measures[0]
            per = {q: TopicEstimate(scores.per_query[q][name], 0.0) for q in scores.query_ids}
            mean = scores.aggregate[name]
            results[k].append(
                EstimateResult(run.name, name, len(per), mean, 0.0, mean, mean, per, None, estimate=False)
            )
    return results, refused
