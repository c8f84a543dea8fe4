"""Move-to-front pooling under a judging budget (Cormack, Palmer & Clarke, SIGIR 1998), local (per topic).

The variant implemented, exactly:

1. Every run starts with priority 0. Per topic, repeat while budget remains and some run has docs left:
2. pick the run with the highest priority; ties go to the run picked least recently (before any pick, the
   order the runs were given in);
3. take that run's next document (trec_eval order) not yet visited in this topic's walk — a doc that
   another run already led to is passed over, as in CPC98 ("the next unjudged document");
4. if the doc's relevance is **known** (``known[(query_id, doc_id)]``: judged in this campaign or in
   ``--exclude`` qrels), it costs nothing: relevant keeps the run at the front (its next doc is taken
   next, whatever the priorities), not relevant lowers the run's priority by 1;
5. otherwise the doc is **selected** for judging and costs 1 from the topic's budget. CPC98 judge it at once
   and move on with its real relevance; a batch pool cannot, so a selected doc counts as *not relevant*
   for the walk (priority − 1). A first round is therefore round-robin over the runs by rank, and each later
   round replays the walk with the judgments made so far, so runs that found relevant documents are
   followed further — CPC98's behaviour, applied one round at a time.

``budget`` is per topic (the number of new documents selected per topic). ``depth`` optionally caps how
deep the walk goes in each run. Docs pending from an earlier round (pooled, not yet judged) pass as
``known = None``: they cost nothing and count as not relevant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def mtf_order(
    rankings: Sequence[Sequence[str]],
    *,
    budget: int,
    known: Mapping[str, bool | None],
) -> list[tuple[str, int]]:
    """The MTF walk over one topic: ``(doc_id, run index)`` of every doc visited, in order.

    Visited docs are the selected ones (not in ``known``) plus the known ones the walk passed through.
    """
    priority = [0] * len(rankings)
    last_pick = [-(len(rankings) - i) for i in range(len(rankings))]  # earlier in the list = waited longer
    cursor = [0] * len(rankings)
    visited: set[str] = set()
    walk: list[tuple[str, int]] = []
    spent = 0
    step = 0
    stay: int | None = None  # the run whose last doc was relevant: CPC98 keep judging from it
    while spent < budget:
        live = [i for i in range(len(rankings)) if _advance(rankings[i], cursor, i, visited)]
        if not live:
            break
        run = stay if stay in live else max(live, key=lambda i: (priority[i], -last_pick[i]))
        stay = None
        step += 1
        last_pick[run] = step
        doc_id = rankings[run][cursor[run]]
        cursor[run] += 1
        visited.add(doc_id)
        walk.append((doc_id, run))
        if doc_id in known:
            if known[doc_id]:
                stay = run
            else:
                priority[run] -= 1
        else:
            spent += 1
            priority[run] -= 1
    return walk


def _advance(ranking: Sequence[str], cursor: list[int], i: int, visited: set[str]) -> bool:
    """Move run ``i``'s cursor past docs already visited; True while it has a doc left."""
    while cursor[i] < len(ranking) and ranking[cursor[i]] in visited:
        cursor[i] += 1
    return cursor[i] < len(ranking)
