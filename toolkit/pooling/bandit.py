"""MaxMean: a bandit order for spending a judging budget (Losada, Parapar & Barreiro, IP&M 53(5), 2017).

Judging is cast as a multi-armed bandit: each run is an arm, pulling it means judging its next unjudged
document, and the reward is 1 when that document is relevant. MaxMean (MM in the paper, the stationary
Bayesian bandit that with its non-stationary sibling MM-NS the paper found best, and a variant of which NIST
used for the TREC 2017 Common Core track) keeps a Beta(1 + r, 1 + n) posterior per run — r relevant and n
non-relevant documents seen from it — and always pulls the run with the highest posterior mean
(1 + r)/(2 + r + n). Runs that keep finding relevant documents are followed deeper; runs that do not are
dropped early, so the relevant documents of a pool are found with far fewer judgments than depth-k needs.

The variant implemented, exactly (per topic):

1. every run starts at r = n = 0 (mean 1/2); its cursor at its first document (trec_eval order), within
   ``depth`` when given;
2. pick the run with the highest mean among those with documents left; ties go to the run pulled fewest
   times, then to the run given first;
3. take that run's next document not yet visited in this topic's walk (a document another run already led to
   is passed over, as in the paper: it is judged once);
4. if its relevance is **known** — judged in an earlier round, or in qrels the organiser excluded — it costs
   nothing and updates the run's r or n; a document pending from an earlier round (in the pool, not judged
   yet) costs nothing and counts as not relevant;
5. otherwise it is **selected** for judging and costs 1. Its relevance is not known until an assessor judges
   it, so within the round it counts as not relevant (spreading a round over the runs rather than draining
   one); the next round replays the walk with the real judgments.

**Rounds.** An adaptive order needs judgments to adapt. ``pool --strategy maxmean --budget N`` selects N new
documents per topic per round; assessors judge them (several at once, in any order); the next round re-ranks
what is left with what they found. The smaller the rounds, the closer the order comes to the paper's
one-judgment-at-a-time bandit.

**Every step recorded.** The walk is deterministic given the rankings, the budget and the known relevance of
the documents it visits, and each ``Step`` records the document, the run and rank that led to it, its cost
and the relevance known at that moment. ``replay`` walks again from the recorded steps alone: a pool whose
replay differs from its record was not built by this order (a test holds every pool to its replay).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolkit.errors import UsageError
from toolkit.model import Run

#: The paper's prior: Beta(1, 1), uniform.
PRIOR_RELEVANT = 1.0
PRIOR_NONRELEVANT = 1.0


@dataclass(frozen=True)
class Step:
    """One step of an adaptive walk over a topic.

    ``run``/``rank`` name the run pulled and the rank (1-based, trec_eval order) of the document it led to;
    ``cost`` is 1 when the document was selected for judging, 0 when its relevance was already known (or it
    was pending); ``known`` is that relevance (True/False), None for a selected or pending document.
    """

    query_id: str
    number: int
    run: str
    rank: int
    doc_id: str
    cost: int
    known: bool | None


def posterior_mean(relevant: int, nonrelevant: int) -> float:
    """The mean of Beta(1 + relevant, 1 + nonrelevant): the run's expected chance that its next document is
    relevant."""
    return (PRIOR_RELEVANT + relevant) / (PRIOR_RELEVANT + PRIOR_NONRELEVANT + relevant + nonrelevant)


def maxmean_walk(
    rankings: Sequence[Sequence[str]],
    *,
    budget: float,
    known: Mapping[str, bool | None],
    oracle: Mapping[str, bool] | None = None,
) -> list[tuple[str, int, int, int, bool | None]]:
    """The MaxMean walk over one topic: ``(doc_id, run index, rank, cost, known)`` per step (module docstring).

    ``known`` maps a doc id to its relevance (True/False) or None when pending; a doc not in it is selected
    (cost 1). The walk stops when ``budget`` documents are selected or no run has a document left.

    ``oracle`` (simulation and planning only) reveals a selected document's relevance at once — the paper's
    one-judgment-at-a-time bandit, as if every round held a single judgment; a document it does not name is
    not relevant. The step still records ``known`` as None: nothing was known before it was judged.
    """
    arms = len(rankings)
    relevant = [0] * arms
    nonrelevant = [0] * arms
    pulls = [0] * arms
    cursor = [0] * arms
    visited: set[str] = set()
    walk: list[tuple[str, int, int, int, bool | None]] = []
    spent = 0
    while spent < budget:
        live = []
        for i in range(arms):
            ranking = rankings[i]
            while cursor[i] < len(ranking) and ranking[cursor[i]] in visited:
                cursor[i] += 1
            if cursor[i] < len(ranking):
                live.append(i)
        if not live:
            break
        arm = max(live, key=lambda i: (posterior_mean(relevant[i], nonrelevant[i]), -pulls[i], -i))
        doc_id = rankings[arm][cursor[arm]]
        rank = cursor[arm] + 1
        cursor[arm] += 1
        pulls[arm] += 1
        visited.add(doc_id)
        if doc_id in known:
            state = known[doc_id]
            cost = 0
        else:
            state = None
            cost = 1
            spent += 1
        seen = state if oracle is None or cost == 0 else oracle.get(doc_id, False)
        if seen:
            relevant[arm] += 1
        else:  # not relevant, pending, or selected now (unknown until judged): see the module docstring
            nonrelevant[arm] += 1
        walk.append((doc_id, arm, rank, cost, state))
    return walk


def replay(runs: Sequence[Run], steps: Sequence[Step], *, depth: int | None, budget: int) -> tuple[Step, ...]:
    """Walk again from what the recorded ``steps`` knew (module docstring): the result equals ``steps`` when
    they were made by ``maxmean_pool`` over ``runs`` with this ``depth`` and ``budget``."""
    known: dict[tuple[str, str], bool | None] = {}
    budgets: dict[str, int] = {}
    for s in steps:
        if s.cost == 0:
            known[(s.query_id, s.doc_id)] = s.known
        budgets[s.query_id] = budgets.get(s.query_id, 0) + s.cost
    from toolkit.pooling.adaptive import maxmean_pool  # it walks by this module's maxmean_walk

    topics = list(dict.fromkeys(s.query_id for s in steps))
    rebuilt = maxmean_pool(runs, budget=budget, depth=depth, topics=topics, known=known, budgets=budgets)
    return rebuilt.steps


def split_budget(total: int, capacity: Mapping[str, int]) -> dict[str, int]:
    """Share a total budget over topics as evenly as their capacity (new documents they can still offer)
    allows: equal shares, the remainder to the topics first in order, and what a topic cannot use handed on to
    the others (water-filling)."""
    if total < 1:
        raise UsageError(f"--budget must be at least 1, got {total}")
    share = {q: 0 for q in capacity}
    left = total
    open_topics = [q for q, c in capacity.items() if c > 0]
    while left > 0 and open_topics:
        each, extra = divmod(left, len(open_topics))
        given = 0
        for k, q in enumerate(open_topics):
            want = each + (1 if k < extra else 0)
            take = min(want, capacity[q] - share[q])
            share[q] += take
            given += take
        left -= given
        open_topics = [q for q in open_topics if share[q] < capacity[q]]
        if given == 0:
            break
    return share
