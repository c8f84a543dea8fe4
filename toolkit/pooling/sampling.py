"""Stratified sampling of a pool: judge the top ranks in full, sample deeper ranks at declared rates.

The design of the TREC sampling tracks (Yilmaz, Kanoulas & Aslam, SIGIR 2008; TREC Legal, Million Query,
Web 2012–2014): a document's **stratum** is fixed by its best rank over the pooled runs (the highest any run
put it at), strata are contiguous rank ranges from rank 1 (``1-10:1,11-50:0.2``), and each stratum is sampled
without replacement at its declared rate. Every document of the population — every document some run ranks
within the last stratum — therefore has a known **inclusion probability** π = n_h/N_h (N_h documents in its
stratum, n_h of them drawn), stored with the pool and written as the fifth column of the exported qrels; the
inferred measures (``toolkit.scoring.inferred``) weigh each judged document by 1/π.

Sample sizes: a stratum at rate 1 is judged in full; otherwise n_h = round(rate·N_h), but at least 2 (or all
N_h when fewer), because a stratum's variance cannot be estimated from one document. π is the realised
n_h/N_h, not the declared rate. The draw is seeded per topic and stratum (sha256 of seed, topic id and
stratum), so adding a topic or a run elsewhere never changes another topic's sample.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toolkit.errors import UsageError
from toolkit.model import Run
from toolkit.pooling.pool import Pool, Source, run_names, topic_order

_STRATUM = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*:\s*([0-9]*\.?[0-9]+)\s*$")


@dataclass(frozen=True)
class Stratum:
    """Documents whose best rank is in ``first``–``last`` (inclusive), sampled at ``rate`` (0 < rate ≤ 1)."""

    first: int
    last: int
    rate: float

    def __str__(self) -> str:
        return f"{self.first}-{self.last}:{self.rate:g}"


def parse_strata(spec: str) -> tuple[Stratum, ...]:
    """``1-10:1,11-50:0.2`` → strata; contiguous from rank 1, rates in (0, 1]; a ``UsageError`` says what is
    wrong and shows the form."""
    form = "give contiguous rank ranges from 1 with a rate each, e.g. --sample 1-10:1,11-50:0.2"
    strata: list[Stratum] = []
    for part in spec.split(","):
        found = _STRATUM.match(part)
        if found is None:
            raise UsageError(f"--sample {spec!r}: cannot read {part.strip()!r}; {form}")
        first, last, rate = int(found[1]), int(found[2]), float(found[3])
        expected = strata[-1].last + 1 if strata else 1
        if first != expected or last < first:
            raise UsageError(f"--sample {spec!r}: {part.strip()!r} should start at rank {expected}; {form}")
        if not 0 < rate <= 1:
            raise UsageError(f"--sample {spec!r}: rate {found[3]} must be in (0, 1]; {form}")
        strata.append(Stratum(first, last, rate))
    return tuple(strata)


#: Rank bands of ``strata_for_budget`` (the last band ends at the pool depth) and how fast the rate falls from
#: band to band: by 0.7, not by half — with halving, a 10 % budget left the deepest band two or three documents a
#: topic, whose jackknife variance is too unstable (infAP's interval covered 87–88 % in the simulation; with
#: 0.7, 93 %, see docs/judging-less.md).
BUDGET_BANDS = (1, 3, 7, 12)
BUDGET_DECAY = 0.7


def strata_for_budget(
    runs: Sequence[Run],
    *,
    budget: int,
    depth: int,
    topics: Iterable[str] | None = None,
    bands: Sequence[int] = BUDGET_BANDS,
    decay: float = BUDGET_DECAY,
) -> tuple[Stratum, ...]:
    """Strata that spend about ``budget`` judgments (over all topics) on the depth-``depth`` pool, the rate
    falling by ``decay`` from band to band (ranks 1, 2–3, 4–7, 8–12, 13–``depth``): relevant documents crowd the
    top ranks,
    so judging the top more densely leaves less of the estimate to the sparse deep sample — a coarse form of
    sampling in proportion to a rank prior (Aslam, Pavlu & Yilmaz, SIGIR 2006). The scale is found by
    bisection; a band whose rate reaches 1 is judged in full. A budget at least the pool's size judges it all.
    """
    if budget < 1:
        raise UsageError(f"the sample budget must be at least 1, got {budget}")
    edges = [b for b in bands if b < depth] + [depth]
    strata_bounds = list(zip([1, *(b + 1 for b in edges[:-1])], edges, strict=True))
    sizes = [0] * len(strata_bounds)
    for query_id in topic_order(runs, topics):
        for rank in best_ranks(runs, query_id, depth=depth).values():
            for h, (first, last) in enumerate(strata_bounds):
                if first <= rank <= last:
                    sizes[h] += 1
                    break
    base = [decay**h for h in range(len(strata_bounds))]

    def spent(scale: float) -> float:
        return sum(n * min(1.0, scale * b) for n, b in zip(sizes, base, strict=True))

    if spent(1.0 / base[-1]) <= budget:
        return tuple(Stratum(first, last, 1.0) for first, last in strata_bounds)
    low, high = 0.0, 1.0 / base[-1]
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if spent(mid) < budget else (low, mid)
    return tuple(
        Stratum(first, last, max(1e-6, round(min(1.0, high * b), 6)))
        for (first, last), b in zip(strata_bounds, base, strict=True)
    )


def sample_size(population: int, rate: float) -> int:
    """n_h for a stratum of ``population`` documents at ``rate`` (module docstring)."""
    if population == 0:
        return 0
    if rate >= 1:
        return population
    return min(population, max(2, int(rate * population + 0.5)))


def _rng_seed(seed: int, query_id: str, stratum: int) -> int:
    digest = hashlib.sha256(f"{seed}\0{query_id}\0{stratum}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def best_ranks(runs: Sequence[Run], query_id: str, *, depth: int) -> dict[str, int]:
    """Each document's best rank over the runs within ``depth``, best first (ties by doc id)."""
    best: dict[str, int] = {}
    for run in runs:
        for rank, doc_id in enumerate(run.ranking(query_id)[:depth], start=1):
            if rank < best.get(doc_id, depth + 1):
                best[doc_id] = rank
    return dict(sorted(best.items(), key=lambda item: (item[1], item[0])))


def _by_rank(source: Source) -> tuple[int, str]:
    return source[1], source[0]


def sample_pool(
    runs: Sequence[Run],
    *,
    strata: Sequence[Stratum],
    topics: Iterable[str] | None = None,
    seed: int = 42,
) -> Pool:
    """The sampled pool (module docstring): ``entries`` holds the documents drawn for judging, ``inclusion``
    the probability of every document of the population, drawn or not."""
    import numpy as np

    if not strata:
        raise UsageError("--sample needs at least one stratum, e.g. 1-10:1,11-50:0.2")
    names = run_names(runs)
    depth = strata[-1].last
    entries: dict[str, dict[str, tuple[Source, ...]]] = {}
    inclusion: dict[tuple[str, str], float] = {}
    strata_of: dict[tuple[str, str], str] = {}
    for query_id in topic_order(runs, topics):
        ranks = [{d: r for r, d in enumerate(run.ranking(query_id)[:depth], start=1)} for run in runs]
        best: dict[str, int] = {}
        for found in ranks:
            for d, r in found.items():
                if r < best.get(d, depth + 1):
                    best[d] = r
        best = dict(sorted(best.items(), key=lambda item: (item[1], item[0])))
        drawn: list[str] = []
        for h, stratum in enumerate(strata):
            members = [d for d, r in best.items() if stratum.first <= r <= stratum.last]
            n = sample_size(len(members), stratum.rate)
            if not members:
                continue
            if n == len(members):
                chosen = members
            else:
                rng = np.random.default_rng(_rng_seed(seed, query_id, h))
                picked = set(rng.choice(len(members), size=n, replace=False).tolist())
                chosen = [d for k, d in enumerate(members) if k in picked]
            probability = n / len(members)
            label = f"{stratum.first}-{stratum.last}"
            for d in members:
                inclusion[(query_id, d)] = probability
                strata_of[(query_id, d)] = label
            drawn.extend(chosen)
        entries[query_id] = {
            d: tuple(
                sorted(((names[k], found[d]) for k, found in enumerate(ranks) if d in found), key=_by_rank)
            )
            for d in drawn
        }
    return Pool(
        entries=entries,
        strategy="sample",
        runs=names,
        depth=depth,
        inclusion=inclusion,
        strata=tuple(strata),
        strata_of=strata_of,
    )
