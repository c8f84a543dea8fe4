"""The pool: per topic, the documents to judge and which runs put each there at which rank (provenance)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.errors import UsageError
from toolkit.model import Run

if TYPE_CHECKING:
    from toolkit.pooling.bandit import Step
    from toolkit.pooling.sampling import Stratum

#: (run name, rank) — rank is the 1-based position in trec_eval's order, not the run file's rank column.
Source = tuple[str, int]


@dataclass(frozen=True)
class Pool:
    """``entries[query_id][doc_id]`` = the (run, rank) pairs that pooled the doc, best rank first.

    Topic order follows the topic set; doc order within a topic is the order the strategy selected them
    (depth: best rank first; MTF: the order of the walk), which is organiser information only — assessors
    see a seeded shuffle.
    """

    entries: Mapping[str, Mapping[str, tuple[Source, ...]]]
    strategy: str
    runs: tuple[str, ...]
    depth: int | None = None
    budget: int | None = None
    #: an adaptive order's every step, in order (``toolkit.pooling.bandit``); empty for depth-k and MTF
    steps: tuple[Step, ...] = ()
    #: a sampled pool's inclusion probability of every pooled (topic, doc) (``toolkit.pooling.sampling``)
    inclusion: Mapping[tuple[str, str], float] | None = None
    #: a sampled pool's strata (``toolkit.pooling.sampling``), and the stratum of every document of its
    #: population (``first-last``)
    strata: tuple[Stratum, ...] = ()
    strata_of: Mapping[tuple[str, str], str] | None = None

    def __len__(self) -> int:
        return sum(len(docs) for docs in self.entries.values())

    def docs(self, query_id: str) -> list[str]:
        return list(self.entries.get(query_id, {}))

    def items(self) -> Iterator[tuple[str, str, tuple[Source, ...]]]:
        for query_id, docs in self.entries.items():
            for doc_id, sources in docs.items():
                yield query_id, doc_id, sources


def run_names(runs: Sequence[Run]) -> tuple[str, ...]:
    """Run names must be distinct: provenance is keyed by them."""
    names = tuple(r.name for r in runs)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise UsageError(
                f"two runs are named {name!r}; rename one file so provenance can tell them apart"
            )
        seen.add(name)
    return names


def topic_order(runs: Sequence[Run], topics: Iterable[str] | None) -> list[str]:
    """The topics to pool: the topic set's (it defines the denominator), else every topic in any run."""
    if topics is not None:
        return list(dict.fromkeys(topics))
    return list(dict.fromkeys(q for run in runs for q in run.results))


def provenance(runs: Sequence[Run], query_id: str, doc_id: str, *, depth: int | None) -> tuple[Source, ...]:
    """Every run that has the doc within ``depth`` (any depth when None), as (run, rank), best rank first."""
    found: list[Source] = []
    for run in runs:
        ranking = run.ranking(query_id)
        limit = ranking if depth is None else ranking[:depth]
        if doc_id in limit:
            found.append((run.name, limit.index(doc_id) + 1))
    return tuple(sorted(found, key=lambda s: (s[1], s[0])))
