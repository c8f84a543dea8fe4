"""Coverage and size simulation: which 95% interval and which non-inferiority test hold under skew (docs/statistics.md, "The coverage and size simulation").

Per-topic differences in IR are skewed: many zeros, rare large gains or drops. This simulation draws n
per-topic differences D from five distributions (n = 10, 20, 30, 50, 100; ``--reps`` replications per cell,
4,000 by default; seeded), every one shifted so that its true mean is exactly ``−MARGIN`` (−0.05), and asks
of each method:

* **coverage** — how often its two-sided 95% interval contains the true mean (over the replications where
  the method gives an interval at all; a sample without spread gives none);
* **size** — how often its one-sided non-inferiority test at α = 0.05 claims "no regression larger than
  0.05" although the true mean is exactly −0.05 (over every replication: a withheld claim is not a false one).

The distributions (``DISTRIBUTIONS``):

| name | D (before the shift to mean −0.05) |
|---|---|
| normal | N(0, 0.1²) |
| shifted-beta | Beta(0.3, 3) (skewness +2.2) |
| zero-inflated | 0 with probability 0.7, else Beta(0.3, 1) |
| rare-large-drop | −1 with probability 0.1, else 0; plus N(0, 0.1²) on every topic (skewness −2.3) |
| rarer-drop (beyond the goal) | −1 with probability 0.05, else 0; plus N(0, 0.05²) |

The methods: the paired **t** interval and one-sided t test; **BCa** (bias-corrected and accelerated
percentile, computed here from the same resamples, for comparison only); and the **studentized bootstrap**
exactly as the product computes it — ``toolkit.stats.resampling.bootstrap_moments`` (the product's seeded
topic resamples, ``--resamples`` 10,000 by default, seed 42: the very resamples ``compare`` draws for n
topics) and ``toolkit.stats.studentized`` (T*, its order statistics, its p-value). "withheld" marks the cells
where the product withholds the interval and the claim (fewer than 30 topics).

Everything is vectorised over the replications (one matrix product per chunk of replications), so the
default run takes a few minutes on two cores. Usage: ``.venv/bin/python bench/bench_coverage.py [--reps 4000]
[--resamples 10000] [--seed 1] [--sizes 10,20,30,50,100]``. It prints a Markdown table (docs/statistics.md
shows it).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from scipy import stats
from scipy.special import ndtr, ndtri

from toolkit.stats.resampling import bootstrap_moments
from toolkit.stats.studentized import SKEW_TOPICS, t_star, tail_rank

MARGIN = 0.05
ALPHA = 0.05
#: replications per matrix product (bounds memory: resamples × CHUNK floats per matrix)
CHUNK = 500


def _normal(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return rng.normal(0.0, 0.1, shape)


def _shifted_beta(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return rng.beta(0.3, 3.0, shape) - 0.3 / 3.3


def _zero_inflated(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return rng.beta(0.3, 1.0, shape) * (rng.random(shape) >= 0.7) - 0.3 * 0.3 / 1.3


def _drop(p: float, noise: float) -> Callable[[np.random.Generator, tuple[int, int]], np.ndarray]:
    def draw(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        return np.where(rng.random(shape) < p, -1.0, 0.0) + p + rng.normal(0.0, noise, shape)

    return draw


DISTRIBUTIONS: dict[str, Callable[[np.random.Generator, tuple[int, int]], np.ndarray]] = {
    "normal": _normal,
    "shifted-beta": _shifted_beta,
    "zero-inflated": _zero_inflated,
    "rare-large-drop": _drop(0.1, 0.1),
    "rarer-drop (beyond the goal)": _drop(0.05, 0.05),
}


def _cell(x: np.ndarray, resamples: int, seed: int) -> dict[str, tuple[int, int, int]]:
    """(covered, with an interval, claims) per method for one chunk of replications (topics × reps)."""
    n, reps = x.shape
    truth = -MARGIN
    mean = x.mean(axis=0)
    sd = x.std(axis=0, ddof=1)
    spread = sd > 0
    se = np.where(spread, sd, 1.0) / np.sqrt(n)
    out: dict[str, tuple[int, int, int]] = {}

    q2, q1 = stats.t.ppf(1 - ALPHA / 2, n - 1), stats.t.ppf(1 - ALPHA, n - 1)
    low, high, lower = mean - q2 * se, mean + q2 * se, mean - q1 * se
    out["t"] = _count(low, high, lower, spread, truth)

    means, squares = bootstrap_moments(x, seed=seed, resamples=resamples)
    t, _, _ = t_star(x, means, squares)
    k2, k1 = tail_rank(ALPHA / 2, resamples), tail_rank(ALPHA, resamples)
    low, high = mean - t[resamples - k2] * se, mean - t[k2 - 1] * se
    lower = mean - t[resamples - k1] * se
    out["studentized"] = _count(low, high, lower, spread, truth)

    out["BCa"] = _count(*_bca(x, means, mean), spread, truth)
    return out


def _bca(x: np.ndarray, means: np.ndarray, mean: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BCa bounds (2.5%, 97.5%, 5%) of the mean from the same resample means (Efron 1987; scipy's formulas)."""
    n, reps = x.shape
    b = means.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = ndtri((means < mean).mean(axis=0))
        jack = (n * mean - x) / (n - 1)
        dev = jack.mean(axis=0) - jack
        a = (dev**3).sum(axis=0) / (6 * ((dev**2).sum(axis=0)) ** 1.5)
    a = np.nan_to_num(a)
    ordered = np.sort(means, axis=0)
    bounds = []
    for z in (ndtri(ALPHA / 2), ndtri(1 - ALPHA / 2), ndtri(ALPHA)):
        with np.errstate(invalid="ignore"):
            p = np.nan_to_num(ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))), nan=0.5)
        k = np.clip(np.rint(p * (b - 1)).astype(int), 0, b - 1)
        bounds.append(ordered[k, np.arange(reps)])
    return bounds[0], bounds[1], bounds[2]


def _count(
    low: np.ndarray, high: np.ndarray, lower: np.ndarray, spread: np.ndarray, truth: float
) -> tuple[int, int, int]:
    covered = int(np.count_nonzero(spread & (low <= truth) & (truth <= high)))
    claims = int(np.count_nonzero(spread & (lower > -MARGIN)))
    return covered, int(np.count_nonzero(spread)), claims


def simulate(reps: int, resamples: int, seed: int, sizes: list[int]) -> list[dict[str, object]]:
    rows = []
    for k, (name, draw) in enumerate(DISTRIBUTIONS.items()):
        for n in sizes:
            rng = np.random.default_rng([seed, k, n])
            totals: dict[str, list[int]] = {}
            started = time.perf_counter()
            done = 0
            while done < reps:
                size = min(CHUNK, reps - done)
                x = draw(rng, (n, size)) - MARGIN
                for method, counts in _cell(x, resamples, 42).items():
                    acc = totals.setdefault(method, [0, 0, 0])
                    for i, c in enumerate(counts):
                        acc[i] += c
                done += size
            row: dict[str, object] = {"distribution": name, "n": n, "seconds": time.perf_counter() - started}
            for method, (covered, given, claims) in totals.items():
                row[method] = (covered / given if given else float("nan"), claims / reps)
            rows.append(row)
            print(_line(row), flush=True)
    return rows


def _line(row: dict[str, object]) -> str:
    n = int(row["n"])  # type: ignore[call-overload]
    cells = []
    for method in ("t", "BCa", "studentized"):
        cov, size = row[method]  # type: ignore[misc]
        cells += [f"{100 * cov:.1f}", f"{100 * size:.1f}"]
    shown = "withheld" if n < SKEW_TOPICS else "reported"
    return f"| {row['distribution']} | {n} | {' | '.join(cells)} | {shown} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=4000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="10,20,30,50,100")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"{args.reps:,} replications per cell, {args.resamples:,} bootstrap resamples, seed {args.seed}; "
        f"true mean = −{MARGIN}; coverage of the 95% interval / size of the non-inferiority test (margin "
        f"{MARGIN}, α = {ALPHA}) in %\n"
    )
    print("| distribution | n | t cov. | t size | BCa cov. | BCa size | stud. cov. | stud. size | product |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    started = time.perf_counter()
    simulate(args.reps, args.resamples, args.seed, sizes)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
