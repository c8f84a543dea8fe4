"""Inferred measures: equal to trec_eval (built from source) where the sample is the whole pool, infAP equal to
trec_eval's on a uniform sample, unbiasedness and the jackknife variance checked by enumerating every sample
of a small stratified design, and the one-line refusals."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from toolkit.errors import UsageError
from toolkit.model import Qrels, Run, SampledQrels
from toolkit.scoring.inferred import (
    TopicSample,
    estimate_run,
    estimate_topic,
    parse_estimator,
    topic_samples,
)


def collection(seed: int = 3, topics: int = 8, runs: int = 6, depth: int = 30):
    """Runs of graded quality over a synthetic collection: per topic 120 docs, 15 with grades 1–3."""
    rng = np.random.default_rng(seed)
    grades: dict[str, dict[str, int]] = {}
    out: list[Run] = []
    for t in range(topics):
        q = f"q{t}"
        rel = {f"{q}-d{i}": int(rng.integers(1, 4)) for i in range(15)}
        grades[q] = rel
    for k in range(runs):
        results: dict[str, dict[str, float]] = {}
        for t in range(topics):
            q = f"q{t}"
            docs = [f"{q}-d{i}" for i in range(120)]
            quality = 0.5 + k * 0.4
            score = {d: rng.normal(quality * grades[q].get(d, 0), 1.0) for d in docs}
            top = sorted(docs, key=lambda d: -score[d])[:depth]
            results[q] = {d: float(depth - i) for i, d in enumerate(top)}
        out.append(Run(results=results, name=f"run{k}"))
    return out, grades


def pooled(runs: list[Run], grades: dict[str, dict[str, int]], depth: int) -> dict[str, dict[str, int]]:
    pool: dict[str, dict[str, int]] = {}
    for q in grades:
        for run in runs:
            for d in run.ranking(q)[:depth]:
                pool.setdefault(q, {})[d] = grades[q].get(d, 0)
    return pool


def write_run(path: Path, runs: list[Run]) -> list[Path]:
    paths = []
    for run in runs:
        p = path / f"{run.name}.run"
        p.write_text(
            "".join(
                f"{q} Q0 {d} {i} {30 - i} {run.name}\n"
                for q in run.results
                for i, d in enumerate(run.ranking(q), start=1)
            )
        )
        paths.append(p)
    return paths


def trec_eval_per_topic(
    trec_eval, qrels_text: str, run_path: Path, measure: str, tmp: Path
) -> dict[str, float]:
    qrels = tmp / "oracle.qrels"
    qrels.write_text(qrels_text)
    done = trec_eval("-q", "-m", measure, str(qrels), str(run_path))
    assert done.returncode == 0, done.stderr
    out = {}
    for line in done.stdout.decode().splitlines():
        name, topic, value = line.split()
        if topic != "all":
            out[topic] = float(value)
    return out


def test_whole_pool_estimates_equal_trec_eval(trec_eval, tmp_path: Path) -> None:
    runs, grades = collection()
    pool = pooled(runs, grades, 20)
    qrels_text = "".join(f"{q} 0 {d} {g}\n" for q, docs in pool.items() for d, g in docs.items())
    sampled = SampledQrels(Qrels(pool), {q: {d: 1.0 for d in docs} for q, docs in pool.items()})
    pairs = [
        ("infAP", "infAP"),
        ("statAP", "map"),
        ("infNDCG@10", "ndcg_cut.10"),
        ("P@10", "P.10"),
        ("infNDCG", "ndcg"),
    ]
    for run, path in zip(runs, write_run(tmp_path, runs), strict=True):
        for ours, theirs in pairs:
            expected = trec_eval_per_topic(trec_eval, qrels_text, path, theirs, tmp_path)
            assert len(expected) == 8
            result = estimate_run(run, sampled, ours)
            for q, value in expected.items():
                assert result.per_topic[q].value == pytest.approx(value, abs=5e-5), (run.name, ours, q)
                assert result.per_topic[q].variance == 0.0


def test_infap_on_a_uniform_sample_equals_trec_eval_to_the_last_digit(trec_eval, tmp_path: Path) -> None:
    """One stratum, 40 % of the pool judged, the rest listed as −1: trec_eval's infAP (m_infap.c) on the same
    qrels, topic by topic, at the 4 decimals trec_eval prints."""
    runs, grades = collection(seed=5, topics=10)
    pool = pooled(runs, grades, 20)
    rng = np.random.default_rng(9)
    judged: dict[str, dict[str, int]] = {}
    probs: dict[str, dict[str, float]] = {}
    for q, docs in pool.items():
        names = sorted(docs)
        n = round(0.4 * len(names))
        chosen = set(rng.choice(len(names), size=n, replace=False).tolist())
        judged[q] = {d: (docs[d] if k in chosen else -1) for k, d in enumerate(names)}
        probs[q] = {d: n / len(names) for d in names}
    qrels_text = "".join(f"{q} 0 {d} {g}\n" for q, docs in judged.items() for d, g in docs.items())
    sampled = SampledQrels(Qrels(judged), probs)
    for run, path in zip(runs, write_run(tmp_path, runs), strict=True):
        expected = trec_eval_per_topic(trec_eval, qrels_text, path, "infAP", tmp_path)
        assert len(expected) == 10
        result = estimate_run(run, sampled, "infAP")
        for q, value in expected.items():
            assert result.per_topic[q].value == pytest.approx(value, abs=5e-5), (run.name, q)


def _design(n_top: int, n_deep: int, take: int, deep_grades: list[int], top_grades: list[int]):
    """A two-stratum design: the top stratum judged in full, the deep one sampled ``take`` of ``n_deep``."""
    top = {f"t{i}": top_grades[i] for i in range(n_top)}
    deep = {f"x{i}": deep_grades[i] for i in range(n_deep)}
    return top, deep


def _sample(top: dict[str, int], deep: dict[str, int], chosen: tuple[str, ...]) -> TopicSample:
    p = len(chosen) / len(deep)
    judgments = {**top, **{d: (g if d in chosen else -1) for d, g in deep.items()}}
    probs = {**{d: 1.0 for d in top}, **{d: p for d in deep}}
    return topic_samples(SampledQrels(Qrels({"q": judgments}), {"q": probs}))["q"]


def _truth(top: dict[str, int], deep: dict[str, int]) -> TopicSample:
    judgments = {**top, **deep}
    return topic_samples(SampledQrels(Qrels({"q": judgments}), {"q": {d: 1.0 for d in judgments}}))["q"]


@pytest.mark.parametrize("measure", ["P@5", "P@10"])
def test_ht_precision_is_unbiased_and_its_jackknife_is_the_exact_srs_variance(measure: str) -> None:
    """Every one of the C(9, 4) = 126 samples of the deep stratum: the mean estimate is the full-pool value;
    the jackknife variance equals the textbook (1 − f)·N²·s²/(n·k²) in each sample, and its mean over samples is
    the true sampling variance (it is unbiased for an SRS)."""
    top, deep = _design(3, 9, 4, [1, 0, 0, 2, 0, 1, 0, 0, 3], [1, 0, 2])
    ranking = ["t0", "x0", "x1", "t1", "x3", "x4", "x5", "t2", "x8", "x2", "x6", "x7"]
    est = parse_estimator(measure)
    k = est.cutoff
    assert k is not None
    true = estimate_topic(est, ranking, _truth(top, deep)).value
    values, variances = [], []
    for chosen in itertools.combinations(sorted(deep), 4):
        s = _sample(top, deep, chosen)
        got = estimate_topic(est, ranking, s)
        values.append(got.value)
        variances.append(got.variance)
        z = [(1 if deep[d] >= 1 and d in ranking[:k] else 0) / k for d in chosen]
        textbook = (1 - 4 / 9) * 81 * np.var(z, ddof=1) / 4
        assert got.variance == pytest.approx(textbook, abs=1e-12)
    assert np.mean(values) == pytest.approx(true, abs=1e-12)
    assert np.mean(variances) == pytest.approx(np.var(values), abs=1e-12)


def test_statap_parts_are_unbiased_over_every_sample() -> None:
    """R̂ and the AP numerator of statAP are Horvitz–Thompson sums: over all C(8, 3) samples of the deep
    stratum their means are the full-pool R and Σ prec@rank(d) of the relevant documents (hand-computed)."""
    from toolkit.scoring import inferred

    top, deep = _design(2, 8, 3, [1, 0, 1, 0, 0, 1, 0, 1], [1, 0])
    ranking = ["t0", "x0", "t1", "x1", "x2", "x3", "x4", "x5", "x6", "x7"]
    # by hand: R = 1 (t0) + 4 (x0, x2, x5, x7); relevant at ranks 1 (t0), 2 (x0), 5 (x2), 8 (x5), 10 (x7)
    numerator = 1 / 1 + 2 / 2 + 3 / 5 + 4 / 8 + 5 / 10
    r_values, n_values = [], []
    for chosen in itertools.combinations(sorted(deep), 3):
        s = _sample(top, deep, chosen)
        judged = list(s.judged)
        weights = [s.weight(h) for h in range(len(judged))]
        r_values.append(sum(s.weight(s.stratum[d]) for d, g in s.grades.items() if g >= 1))
        positions = inferred._positions(ranking, s)  # noqa: SLF001
        n_values.append(inferred._stat_numerator(positions, s, judged, weights, "", 1))  # noqa: SLF001
    assert np.mean(r_values) == pytest.approx(5.0, abs=1e-12)
    assert np.mean(n_values) == pytest.approx(numerator, abs=1e-12)


@pytest.mark.parametrize("measure", ["statAP", "infAP", "infNDCG@5"])
def test_the_jackknife_bias_estimate_is_quenouilles_and_removes_most_of_the_ratio_bias(measure: str) -> None:
    """Over all C(10, 4) samples of a deep stratum holding two relevant documents in ten — the sparse case where
    a ratio's O(1/n) bias is large: the bias estimate of each sample is Quenouille's (1 − f)·(n − 1)·(θ̄ − θ̂),
    its replicates θ_(i) recomputed here from qrels with document i unjudged; and the corrected estimate θ̂ − b
    is on average much closer to the full-pool value than θ̂."""
    top, deep = _design(2, 10, 4, [1, 0, 0, 0, 0, 0, 1, 0, 0, 0], [1, 0])
    ranking = ["t0", "x0", "t1", *(f"x{i}" for i in range(1, 10))]
    est = parse_estimator(measure)
    true = estimate_topic(est, ranking, _truth(top, deep)).value
    plain, corrected = [], []
    for chosen in itertools.combinations(sorted(deep), 4):
        got = estimate_topic(est, ranking, _sample(top, deep, chosen))
        replicates = []
        for d in chosen:
            fewer = tuple(c for c in chosen if c != d)
            judgments = {**top, **{x: (g if x in fewer else -1) for x, g in deep.items()}}
            probs = {**{x: 1.0 for x in top}, **{x: 3 / 10 for x in deep}}
            s = topic_samples(SampledQrels(Qrels({"q": judgments}), {"q": probs}))["q"]
            replicates.append(estimate_topic(est, ranking, s).value)
        quenouille = (1 - 4 / 10) * 3 * (np.mean(replicates) - got.value)
        assert got.bias == pytest.approx(quenouille, abs=1e-12)
        plain.append(got.value)
        corrected.append(got.value - got.bias)
    assert abs(np.mean(plain) - true) > 0.01
    assert abs(np.mean(corrected) - true) < 0.5 * abs(np.mean(plain) - true)


def test_the_interval_is_a_t_interval_around_the_corrected_mean_with_satterthwaite_degrees_of_freedom() -> (
    None
):
    """Each topic one sampled stratum of n_t judged: the interval is θ̃ ± t(0.975, ν)·se with θ̃ the mean of
    the bias-corrected topic estimates, se² = Σ v_t/T², and ν = (Σ v_t)²/Σ v_t²/(n_t − 1) (Satterthwaite 1946;
    Cochran, Sampling Techniques, eq. 5.16); the quantile is scipy's."""
    from scipy import stats

    runs, grades = collection(topics=6)
    pool = pooled(runs, grades, 20)
    rng = np.random.default_rng(2)
    judged, probs, sizes = {}, {}, {}
    for q, docs in pool.items():
        names = sorted(docs)
        sizes[q] = len(names) // 2
        chosen = set(rng.choice(len(names), size=sizes[q], replace=False).tolist())
        judged[q] = {d: (docs[d] if k in chosen else -1) for k, d in enumerate(names)}
        probs[q] = {d: sizes[q] / len(names) for d in names}
    result = estimate_run(runs[3], SampledQrels(Qrels(judged), probs), "statAP")
    per = result.per_topic
    v = {q: per[q].variance or 0.0 for q in per}
    assert result.mean == pytest.approx(sum(t.value for t in per.values()) / 6)
    centre = sum(t.value - t.bias for t in per.values()) / 6
    assert result.variance == pytest.approx(sum(v.values()) / 36)
    df = sum(v.values()) ** 2 / sum(v[q] ** 2 / (sizes[q] - 1) for q in per)
    assert result.df == pytest.approx(df)
    half = stats.t.ppf(0.975, df) * math.sqrt(sum(v.values()) / 36)
    assert (result.low, result.high) == pytest.approx((max(0.0, centre - half), min(1.0, centre + half)))


def test_one_sampled_stratum_of_one_topic_has_n_minus_1_degrees_of_freedom() -> None:
    top, deep = _design(2, 8, 3, [1, 0, 1, 0, 0, 1, 0, 1], [1, 0])
    judgments = {**top, **{d: (g if d in ("x0", "x3", "x5") else -1) for d, g in deep.items()}}
    probs = {**{d: 1.0 for d in top}, **{d: 3 / 8 for d in deep}}
    run = Run(results={"q": {d: float(10 - i) for i, d in enumerate(["t0", "x0", "t1", "x1", "x2", "x3"])}})
    result = estimate_run(run, SampledQrels(Qrels({"q": judgments}), {"q": probs}), "P@5")
    assert result.df == pytest.approx(2.0)


def test_what_cannot_be_estimated_is_refused_in_one_line() -> None:
    with pytest.raises(UsageError) as err:
        parse_estimator("RR@10")
    assert str(err.value).startswith(
        "RR@10 cannot be estimated from a sampled pool: it depends on which documents come first"
    )
    assert "\n" not in str(err.value)
    judged_only = SampledQrels(Qrels({"q": {"a": 1, "b": 0}}), {"q": {"a": 0.5, "b": 0.5}})
    run = Run(results={"q": {"a": 2.0, "b": 1.0}}, name="r")
    with pytest.raises(UsageError, match="infAP needs the pool's unjudged documents listed"):
        estimate_run(run, judged_only, "infAP")
    # statAP needs the probabilities alone: R̂ = 1/0.5 = 2, numerator = 1/(1·0.5) → statAP 1.0
    assert estimate_run(run, judged_only, "statAP").mean == pytest.approx(1.0)


@pytest.mark.parametrize("measure", ["statAP", "infAP", "infNDCG@5"])
def test_a_ratio_whose_sample_met_no_relevant_document_is_bounded_not_estimated(measure: str) -> None:
    """A sample of the deep stratum that judged none of its two relevant documents (and a top stratum with
    none): R̂ = 0, the ratio is 0/0 and its jackknife variance a false 0 — the topic has no variance, says
    why, and is marked bounded; P@k (linear, unbiased) keeps its variance."""
    top, deep = _design(2, 10, 4, [1, 0, 0, 0, 0, 0, 1, 0, 0, 0], [0, 0])
    ranking = ["t0", "x0", "t1", *(f"x{i}" for i in range(1, 10))]
    s = _sample(top, deep, ("x1", "x2", "x3", "x4"))
    got = estimate_topic(parse_estimator(measure), ranking, s)
    assert got.variance is None and got.bounded
    assert got.reason is not None and "no relevant document" in got.reason
    assert estimate_topic(parse_estimator("P@5"), ranking, s).variance == 0.0
    whole = estimate_topic(parse_estimator(measure), ranking, _truth(top, {d: 0 for d in deep}))
    assert whole.variance == 0.0 and not whole.bounded  # nothing relevant in a pool judged in full: exactly 0


#: A topic judged in full, ranked a (rel), b, c (rel): AP = (1/1 + 2/3)/2; nDCG@5 = (1 + 1/log2 4)/(1 + 1/log2 3).
_KNOWN_VALUE = {
    "statAP": (1 + 2 / 3) / 2,
    "infAP": (1 + 2 / 3) / 2,
    "infNDCG@5": (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)),
}


@pytest.mark.parametrize("measure", sorted(_KNOWN_VALUE))
def test_the_interval_gives_a_topic_it_cannot_estimate_its_whole_range(measure: str) -> None:
    """Two topics: one judged in full (its value by hand, no variance), one whose sample met no relevant
    document. The mean counts the second as 0 (as NIST's statAP script does); the interval is [v/2, (v + 1)/2]:
    the second topic's value is anywhere in [0, 1], so the interval holds the whole-pool mean whatever it is.
    The note names the topic."""
    top, deep = _design(2, 10, 4, [1, 0, 0, 0, 0, 0, 1, 0, 0, 0], [0, 0])
    judgments = {
        "k": {"a": 1, "b": 0, "c": 1},
        "u": {**top, **{d: (g if d in ("x1", "x2", "x3", "x4") else -1) for d, g in deep.items()}},
    }
    probs = {"k": {"a": 1.0, "b": 1.0, "c": 1.0}, "u": {**{d: 1.0 for d in top}, **{d: 0.4 for d in deep}}}
    run = Run(
        results={
            "k": {"a": 3.0, "b": 2.0, "c": 1.0},
            "u": {
                d: float(20 - i) for i, d in enumerate(["t0", "x0", "t1", *(f"x{i}" for i in range(1, 10))])
            },
        },
        name="r",
    )
    result = estimate_run(run, SampledQrels(Qrels(judgments), probs), measure)
    v = _KNOWN_VALUE[measure]
    assert result.mean == pytest.approx(v / 2)
    assert (result.low, result.high) == pytest.approx((v / 2, (v + 1) / 2))
    assert result.reason is None and result.bounded == ("u",)
    assert result.note is not None and result.note.startswith(
        "1 of 2 topics met no relevant document in the sample (u)"
    )


def test_a_stratum_with_one_judged_document_still_refuses_the_interval() -> None:
    """Qrels from elsewhere may sample a stratum with one judged document: no variance can be estimated, and
    the interval is refused with the reason (unlike a topic with nothing relevant, it is not bounded)."""
    judgments = {"q": {"t0": 1, "x0": 1, "x1": -1, "x2": -1}}
    probs = {"q": {"t0": 1.0, "x0": 1 / 3, "x1": 1 / 3, "x2": 1 / 3}}
    run = Run(results={"q": {"t0": 4.0, "x0": 3.0, "x1": 2.0, "x2": 1.0}}, name="r")
    result = estimate_run(run, SampledQrels(Qrels(judgments), probs), "statAP")
    assert result.low is None and result.high is None
    assert result.reason is not None and "single judged document" in result.reason
    assert result.note == result.reason


@pytest.mark.parametrize("measure", ["statAP", "infAP", "infNDCG@5"])
def test_the_jackknife_variance_of_the_ratios_matches_the_exact_design_variance(measure: str) -> None:
    """Every sample of a deep stratum of 12 documents (5 relevant) beside a top stratum judged in full: the
    exact design variance of the estimate is the variance over all C(12, n) samples (enumerated here). The
    mean jackknife variance, with the finite-population factor (1 − n/12), is within 10 % of it at n = 9 and
    within 0.8–1.4× at n = 6 (a little conservative with few documents); without the factor — the
    with-replacement formula — it would be 2× (n = 6) and 4× (n = 9) too large."""
    top = {"t0": 1, "t1": 0}
    deep = {f"x{i}": g for i, g in enumerate([1, 0, 1, 0, 0, 1, 0, 2, 0, 0, 1, 0])}
    ranking = ["t0", "x0", "x1", "t1", *(f"x{i}" for i in range(2, 12))]
    est = parse_estimator(measure)
    for n, tolerance in ((9, (0.9, 1.1)), (6, (0.8, 1.4))):
        values, variances = [], []
        for chosen in itertools.combinations(sorted(deep), n):
            got = estimate_topic(est, ranking, _sample(top, deep, chosen))
            assert got.variance is not None
            values.append(got.value)
            variances.append(got.variance)
        exact = float(np.var(values))
        ratio = float(np.mean(variances)) / exact
        assert tolerance[0] < ratio < tolerance[1], (n, ratio)
        assert ratio / (1 - n / 12) > 1.9  # the with-replacement formula is far off
