"""Simulation: judging less — budgeted orders and sampled pools against complete judgments.

**Collection.** The example workspace's topics (61 that have relevant documents) and its regex truth, which
covers every one of the corpus's documents (``[docs] ids``: 6,632 on CPython 3.11): a document the truth does
not list is not relevant, so the judgments are complete. **Systems**: 22 — the two committed runs (bm25, bm25f,
depth 10) and 20 synthetic systems of graded quality. A synthetic system ranks, per topic, a candidate set (the
relevant documents, the real runs' documents and 300 random corpus documents) by
``quality·grade + 0.8·a(d) + noise`` — ``a(d)`` a per-(topic, document) attractiveness shared by every system
(systems make correlated mistakes, as real ones do), quality from 0.15 to 2.0 — and returns its top 100.

**What is simulated.** The depth-20 pool of the 22 systems, and per topic a budget of 10 %, 25 % and 50 % of
its size. Each order spends the budget; judged documents get their true grade, the rest count as not relevant:

* ``depth-k`` — the pool judged rank by rank (every run's rank 1, then rank 2 …) until the budget is spent;
* ``maxmean (rounds of 5)`` — ``toolkit.pooling.bandit`` in rounds of 5 new documents a topic, each round
  re-ranking with the judgments of the rounds before (several assessors working at once);
* ``maxmean (1 a round)`` — the same bandit one judgment at a time (the paper's setting).

For each: relevant documents found, and Kendall's τ / τ_AP between the systems' MAP (and nDCG@10) under these
qrels and under the complete judgments.

**Sampled pools.** Two designs spending the same total budget: *uniform* — one stratum, the whole depth-20 pool
sampled at one rate (infAP's design, Yilmaz & Aslam 2006) — and *stratified* — strata by best rank (1, 2–3,
4–7, 8–12, 13–20), the rate falling by 0.7 from band to band (``toolkit.pooling.sampling.strata_for_budget``,
the design ``pool --strategy sample --budget N`` proposes); each
drawn ``--samples`` times with different seeds (``--jobs`` processes at once). Each inferred measure's 95 %
interval of the mean over topics (``toolkit.scoring.inferred``) is checked against the value with the whole
depth-20 pool judged — what a sample of that pool estimates — and the coverage (share of samples whose interval
holds it) is reported per measure over the systems' intervals that were given (the worst system beside it),
with the share of intervals refused, the share of topics *bounded* (a ratio whose sample met no relevant
document on that topic: not estimable, so the interval takes the topic's whole range [0, 1]) and the mean width
of the intervals. τ of the estimates against the complete judgments is reported for the first sample.

Usage: ``.venv/bin/python bench/bench_judging_less.py [--samples 100] [--seed 7] [--budgets 0.1,0.25,0.5]
[--collection example|trec-like|both] [--jobs 2]`` (``--samples 0``: the budget orders only).
Deterministic for a seed; CPU-bound (no timing is claimed).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from toolkit.formats import read_qrels, read_run, read_topics  # noqa: E402
from toolkit.model import Qrels, Run, SampledQrels, Topic, TopicSet  # noqa: E402
from toolkit.pooling.adaptive import maxmean_pool  # noqa: E402
from toolkit.pooling.bandit import maxmean_walk  # noqa: E402
from toolkit.pooling.depth import depth_pool  # noqa: E402
from toolkit.pooling.sampling import Stratum, sample_pool, strata_for_budget  # noqa: E402
from toolkit.scoring.evaluate import evaluate_many  # noqa: E402
from toolkit.scoring.inferred import estimate_many, estimate_run, topic_samples  # noqa: E402
from toolkit.stats.correlation import kendall_tau, tau_ap  # noqa: E402

DEPTH = 20
ROUND = 5
ESTIMATORS = ("infAP", "statAP", "infNDCG@10", "P@10")
MEASURES = ("AP", "nDCG@10")


def corpus_ids() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "toolkit.example", "ids"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def synthetic_runs(
    topics: list[str], truth: Qrels, real: list[Run], ids: list[str], *, seed: int, systems: int = 20
) -> list[Run]:
    rng = np.random.default_rng(seed)
    qualities = np.linspace(0.15, 2.0, systems)
    candidates: dict[str, list[str]] = {}
    attraction: dict[str, np.ndarray] = {}
    for q in topics:
        pool = set(truth.judgments.get(q, {}))
        for run in real:
            pool.update(run.ranking(q))
        pool.update(ids[int(i)] for i in rng.choice(len(ids), size=300, replace=False))
        docs = sorted(pool)
        candidates[q] = docs
        attraction[q] = rng.normal(0, 1, len(docs))
    runs = []
    for k, quality in enumerate(qualities):
        results: dict[str, dict[str, float]] = {}
        for q in topics:
            docs = candidates[q]
            grades = np.array([max(0, truth.judgments.get(q, {}).get(d, 0)) for d in docs], float)
            score = quality * grades + 0.8 * attraction[q] + rng.normal(0, 1, len(docs))
            top = np.argsort(-score, kind="stable")[:100]
            results[q] = {docs[i]: float(100 - r) for r, i in enumerate(top)}
        runs.append(Run(results=results, name=f"sys{k:02d}"))
    return runs


def means(runs: list[Run], qrels: Qrels, topics: TopicSet, measure: str) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = evaluate_many(runs, qrels, topics=topics, measures=[measure])
    return np.array([s.aggregate[s.measures[0]] for s in scores])


def judged_qrels(judged: dict[str, set[str]], truth: Qrels, topics: list[str]) -> Qrels:
    out = {q: {d: max(0, truth.judgments.get(q, {}).get(d, 0)) for d in judged.get(q, set())} for q in topics}
    return Qrels({q: docs for q, docs in out.items()} or {topics[0]: {}}, name="budget")


def taus(
    runs: list[Run], qrels: Qrels, topics: TopicSet, complete: dict[str, np.ndarray]
) -> dict[str, tuple[float, float]]:
    out = {}
    for m in MEASURES:
        got = means(runs, qrels, topics, m)
        out[m] = (float(kendall_tau(complete[m], got)), float(tau_ap(complete[m], got)))
    return out


def depth_order(pool_docs: dict[str, list[str]], budgets: dict[str, int]) -> dict[str, set[str]]:
    """The depth pool is listed best rank first: its first B documents are depth-k cut at the budget."""
    return {q: set(docs[: budgets[q]]) for q, docs in pool_docs.items()}


def maxmean_sequential(runs: list[Run], truth: Qrels, budgets: dict[str, int]) -> dict[str, set[str]]:
    out = {}
    for q, b in budgets.items():
        rankings = [run.ranking(q)[:DEPTH] for run in runs]
        oracle = {d: g >= 1 for d, g in truth.judgments.get(q, {}).items()}
        walk = maxmean_walk(rankings, budget=b, known={}, oracle=oracle)
        out[q] = {d for d, _arm, _rank, cost, _known in walk if cost}
    return out


def maxmean_rounds(runs: list[Run], truth: Qrels, budgets: dict[str, int]) -> dict[str, set[str]]:
    judged: dict[str, set[str]] = {q: set() for q in budgets}
    while True:
        share = {q: min(ROUND, b - len(judged[q])) for q, b in budgets.items()}
        share = {q: s for q, s in share.items() if s > 0}
        if not share:
            break
        known = {
            (q, d): truth.judgments.get(q, {}).get(d, 0) >= 1 for q, docs in judged.items() for d in docs
        }
        pool = maxmean_pool(runs, budget=ROUND, depth=DEPTH, topics=list(share), known=known, budgets=share)
        added = 0
        for s in pool.steps:
            if s.cost:
                judged[s.query_id].add(s.doc_id)
                added += 1
        if added == 0:
            break
    return judged


def sampled_qrels(pool, truth: Qrels) -> SampledQrels:
    judgments: dict[str, dict[str, int]] = {}
    probs: dict[str, dict[str, float]] = {}
    for (q, d), p in pool.inclusion.items():
        drawn = d in pool.entries.get(q, {})
        judgments.setdefault(q, {})[d] = max(0, truth.judgments.get(q, {}).get(d, 0)) if drawn else -1
        probs.setdefault(q, {})[d] = p
    return SampledQrels(Qrels(judgments, name="sample"), probs)


def example_collection(seed: int) -> tuple[str, list[str], Qrels, list[Run], int]:
    """The example's topics with relevant documents, its complete regex truth, its two runs + 20 synthetic."""
    topic_set = read_topics(ROOT / "topics" / "stdlib.toml")
    topics = list(topic_set.relevance_ids)
    truth = read_qrels(ROOT / "qrels" / "stdlib.qrels")
    real = [read_run(ROOT / "runs" / "bm25.run"), read_run(ROOT / "runs" / "bm25f.run")]
    ids = corpus_ids()
    runs = real + synthetic_runs(topics, truth, real, ids, seed=seed)
    return "example (regex truth, 22 systems)", topics, truth, runs, len(ids)


def trec_like_collection(seed: int, *, topics: int = 50, docs: int = 3000, systems: int = 25):
    """A synthetic TREC-like collection: per topic 3,000 documents of which 30–150 are relevant (grades 1, 2, 3
    in proportions 6:3:1), and 25 systems of graded quality (the same scoring model as the example's)."""
    rng = np.random.default_rng(seed + 1)
    judgments: dict[str, dict[str, int]] = {}
    names = [f"t{t:02d}" for t in range(topics)]
    for q in names:
        count = int(rng.integers(30, 151))
        chosen = rng.choice(docs, size=count, replace=False)
        grades = rng.choice([1, 2, 3], size=count, p=[0.6, 0.3, 0.1])
        judgments[q] = {f"{q}-d{int(i)}": int(g) for i, g in zip(chosen, grades, strict=True)}
    truth = Qrels(judgments, name="trec-like")
    qualities = np.linspace(0.1, 1.5, systems)
    attraction = {q: rng.normal(0, 1, docs) for q in names}
    runs = []
    for k, quality in enumerate(qualities):
        results: dict[str, dict[str, float]] = {}
        for q in names:
            ids = [f"{q}-d{i}" for i in range(docs)]
            grades_arr = np.array([judgments[q].get(d, 0) for d in ids], float)
            score = quality * grades_arr + 0.8 * attraction[q] + rng.normal(0, 1, docs)
            top = np.argsort(-score, kind="stable")[:100]
            results[q] = {ids[i]: float(100 - r) for r, i in enumerate(top)}
        runs.append(Run(results=results, name=f"sys{k:02d}"))
    return f"synthetic TREC-like ({topics} topics, {systems} systems)", names, truth, runs, topics * docs


def simulate(name: str, topics: list[str], truth: Qrels, runs: list[Run], documents: int, args) -> None:
    started = time.time()
    relevance = TopicSet(topics=tuple(Topic(q, q) for q in topics), name=name)
    complete = {m: means(runs, truth, relevance, m) for m in MEASURES}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pool = depth_pool(runs, depth=DEPTH, topics=topics)
    pool_docs = {q: pool.docs(q) for q in topics}
    size = sum(len(d) for d in pool_docs.values())
    rel_in_pool = sum(1 for q in topics for d in pool_docs[q] if truth.judgments.get(q, {}).get(d, 0) >= 1)
    rel_total = sum(1 for q in topics for g in truth.judgments.get(q, {}).values() if g >= 1)
    full_pool = judged_qrels({q: set(d) for q, d in pool_docs.items()}, truth, topics)
    full_taus = taus(runs, full_pool, relevance, complete)
    print(f"\n### {name}\n")
    print(
        f"{len(runs)} systems, {len(topics)} topics, {documents} documents; depth-{DEPTH} pool {size} documents "
        f"({size / len(topics):.1f} a topic) holding {rel_in_pool} of the {rel_total} relevant documents; the "
        f"whole pool judged gives τ MAP {full_taus['AP'][0]:.3f}, τ nDCG@10 {full_taus['nDCG@10'][0]:.3f} "
        "against complete judgments."
    )

    # full-pool values of the inferred measures: the whole pool judged, π = 1
    whole = SampledQrels(full_pool, {q: {d: 1.0 for d in docs} for q, docs in full_pool.judgments.items()})
    whole_design = topic_samples(whole)
    target = {
        m: np.array([estimate_run(r, whole, m, samples=whole_design).mean for r in runs]) for m in ESTIMATORS
    }

    rows: list[str] = []
    coverage_rows: list[str] = []
    for fraction in (float(f) for f in args.budgets.split(",")):
        budgets = {q: max(1, round(fraction * len(pool_docs[q]))) for q in topics}
        spent = sum(budgets.values())
        orders = {
            "depth-k": depth_order(pool_docs, budgets),
            f"maxmean (rounds of {ROUND})": maxmean_rounds(runs, truth, budgets),
            "maxmean (1 a round)": maxmean_sequential(runs, truth, budgets),
        }
        for label, judged in orders.items():
            used = sum(len(v) for v in judged.values())
            found = sum(
                1 for q, docs in judged.items() for d in docs if truth.judgments.get(q, {}).get(d, 0) >= 1
            )
            t = taus(runs, judged_qrels(judged, truth, topics), relevance, complete)
            rows.append(
                f"| {fraction:.0%} | {label} | {used} | {found} ({found / rel_in_pool:.0%}) | "
                f"{t['AP'][0]:.3f} | {t['AP'][1]:.3f} | {t['nDCG@10'][0]:.3f} |"
            )
        if args.samples:
            coverage_rows += sampled(
                runs, truth, topics, pool_docs, size, spent, fraction, target, complete, args
            )
        print(f"budget {fraction:.0%} done ({time.time() - started:.0f} s)", file=sys.stderr)

    print()
    print(
        "| budget | order | judgments | relevant found (share of the pool's) | τ MAP | τ_AP MAP | τ nDCG@10 |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    if coverage_rows:
        print()
        print(
            "| budget | design (best rank: rate) | judgments (mean) | inferred measure | interval refused "
            "| topics bounded | mean width | 95 % interval coverage (where given) | worst system "
            "| τ vs complete (sample 1) |"
        )
        print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
        print("\n".join(coverage_rows))
    print(f"\n{args.samples} samples a budget, seed {args.seed}; {time.time() - started:.0f} s")


#: What a worker process needs (set before the pool forks, so nothing big is pickled per task).
_SHARED: dict[str, object] = {}


def _one_sample(
    task: tuple[tuple[Stratum, ...], int],
) -> tuple[int, list[list[tuple[float, float | None, float | None, int]]]]:
    strata, seed = task
    runs, truth, topics = _SHARED["runs"], _SHARED["truth"], _SHARED["topics"]
    drawn = sample_pool(runs, strata=strata, topics=topics, seed=seed)  # type: ignore[arg-type]
    sq = sampled_qrels(drawn, truth)  # type: ignore[arg-type]
    every = estimate_many(runs, sq, ESTIMATORS, samples=topic_samples(sq))  # type: ignore[arg-type]
    return len(drawn), [[(r.mean, r.low, r.high, len(r.bounded)) for r in row] for row in every]


def sampled(runs, truth, topics, pool_docs, size, spent, fraction, target, complete, args) -> list[str]:
    """Samples at the same total budget in two designs; coverage of each inferred measure's interval."""
    designs = {
        "uniform": (Stratum(1, DEPTH, round(min(1.0, spent / size), 6)),),
        "stratified": strata_for_budget(runs, budget=spent, depth=DEPTH, topics=topics),
    }
    _SHARED.update(runs=runs, truth=truth, topics=topics)
    out = []
    for design_name, strata in designs.items():
        hits = {m: np.zeros(len(runs)) for m in ESTIMATORS}
        given = {m: np.zeros(len(runs)) for m in ESTIMATORS}
        bounded = {m: 0.0 for m in ESTIMATORS}
        width = {m: 0.0 for m in ESTIMATORS}
        first_tau: dict[str, float] = {}
        judged_total = []
        tasks = [(strata, args.seed * 1000 + k) for k in range(args.samples)]
        if args.jobs > 1:
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(args.jobs) as workers:
                answers = workers.map(_one_sample, tasks, chunksize=1)
        else:
            answers = [_one_sample(t) for t in tasks]
        for k, (judged, rows) in enumerate(answers):
            judged_total.append(judged)
            for j, m in enumerate(ESTIMATORS):
                low = np.array([np.nan if row[j][1] is None else row[j][1] for row in rows], float)
                high = np.array([np.nan if row[j][2] is None else row[j][2] for row in rows], float)
                hits[m] += (low <= target[m] + 1e-12) & (target[m] <= high + 1e-12)
                given[m] += ~np.isnan(low)
                bounded[m] += sum(row[j][3] for row in rows)
                width[m] += float(np.nansum(high - low))
                if k == 0:
                    est = np.array([row[j][0] for row in rows])
                    first_tau[m] = float(kendall_tau(complete["AP" if "AP" in m else "nDCG@10"], est))
        text = ",".join(str(x) for x in strata)
        for m in ESTIMATORS:
            refused = 1 - given[m].sum() / (args.samples * len(runs))
            topics_bounded = bounded[m] / (args.samples * len(runs) * len(topics))
            mean_width = f"{width[m] / given[m].sum():.3f}" if given[m].sum() else "—"
            if given[m].sum() == 0:
                cover, worst = "—", "—"
            else:
                cover = f"{hits[m].sum() / given[m].sum():.1%}"
                with np.errstate(invalid="ignore"):
                    worst = f"{np.nanmin(hits[m] / np.where(given[m] > 0, given[m], np.nan)):.0%}"
            out.append(
                f"| {fraction:.0%} | {design_name} `{text}` | {statistics.mean(judged_total):.0f} | {m} | "
                f"{refused:.0%} | {topics_bounded:.1%} | {mean_width} | {cover} | {worst} | {first_tau[m]:.3f} |"
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--budgets", default="0.1,0.25,0.5")
    parser.add_argument("--collection", choices=["example", "trec-like", "both"], default="both")
    parser.add_argument("--jobs", type=int, default=1, help="processes drawing samples at once")
    args = parser.parse_args()
    if args.collection in ("example", "both"):
        simulate(*example_collection(args.seed), args)
    if args.collection in ("trec-like", "both"):
        simulate(*trec_like_collection(args.seed), args)


if __name__ == "__main__":
    main()
