"""One pooling round into a campaign: build the pool, skip what is already judged, snapshot the docs.

What a round decides for each pooled (topic, doc):

- judged in ``--exclude`` qrels → skipped (the organiser already has a grade; no text to compare);
- judged in this campaign (a grade or unrateable) → fetched again and its content hash compared with the
  hash the assessor saw: unchanged → skipped; changed → re-queued and flagged **stale**; fetch failed →
  skipped (a failure says nothing about the text). When the doc source can tell versions (``[docs]
  versions``) and reports the version stored with the document's latest snapshot, the document is
  unchanged without being fetched at all;
- already in the pool but not judged yet → left as it is (not queued twice);
- otherwise → queued, and its snapshot stored (a failed fetch is stored as a failure, not dropped).

A round on a campaign that is already shared out assigns its new items in the same transaction, by the
policy the last ``assign`` recorded (``toolkit.judging.assign.assign_new_items``), so no new item waits
for an organiser to remember ``assign``. Without a recorded policy the new items stay unassigned and the
result says so (``unassigned``), with the ``assign`` command that would share them out.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Concatenate, ParamSpec

from toolkit.errors import StoreError, ToolkitWarning, UsageError
from toolkit.judging.assign import AssignPolicy, AssignResult, assign_new_items, recorded_policy
from toolkit.judging.progress import pool_status
from toolkit.judging.records import CampaignTopic, Document, Inclusion, OrderStep
from toolkit.judging.store import CampaignExistsError, CampaignStore, MissingCampaignError
from toolkit.model import DEFAULT_GRADES, Qrels, Run, TopicSet
from toolkit.pooling.adaptive import adaptive_pool
from toolkit.pooling.bandit import split_budget
from toolkit.pooling.depth import depth_pool
from toolkit.pooling.docsource import DocSource, fetch_documents
from toolkit.pooling.pool import Pool
from toolkit.pooling.sampling import Stratum, sample_pool, strata_for_budget

STRATEGIES = ("depth", "mtf", "maxmean", "sample")
#: The strategies that spend a budget by an adaptive walk, rebuilt under the write lock with fresh judgments.
ADAPTIVE = ("mtf", "maxmean")
#: the arguments of a round after the store (pool_round's), carried over to pool_campaign by the type checker
RoundArgs = ParamSpec("RoundArgs")


@dataclass(frozen=True)
class Design:
    """What a round needs beyond strategy, depth and budget: ``total`` — the budget is over all topics
    together, shared as their pools allow (``toolkit.pooling.bandit.split_budget``) — and, for a sampled
    round, its ``strata`` (none: derived from the budget by ``strata_for_budget``) and the draw's ``seed``."""

    total: bool = False
    strata: tuple[Stratum, ...] = ()
    seed: int = 42


@dataclass(frozen=True)
class RoundResult:
    """What a round did, for the CLI summary and tests."""

    round: int
    topics: int
    pooled: int
    queued: int
    stale: int
    skipped: int
    pending: int
    fetch_failures: tuple[str, ...]
    fetched: int = 0
    unchanged: int = 0
    assigned: AssignResult | None = None
    unassigned: int = 0
    policy: AssignPolicy | None = None
    assignees: tuple[str, ...] = ()
    #: an adaptive order's recorded steps (``order_steps``), and how many cost a judgment
    steps: int = 0
    selected: int = 0
    #: a sampled round: its strata and its population (every document with an inclusion probability)
    strata: tuple[str, ...] = ()
    population: int = 0

    def assign_command(self, location: str) -> str:
        """The ``assign`` command that shares the unassigned items out (the recorded policy's, else a
        template naming the campaign's assessors, else placeholders)."""
        if self.policy is not None:
            return self.policy.command(location)
        names = ",".join(self.assignees) or "NAME,NAME"
        return f"trec-toolkit assign {location} --assessors {names} --overlap 0.2"


def campaign_topics(topic_set: TopicSet) -> list[CampaignTopic]:
    """The topics a campaign judges: not those declared ``expect = "empty"`` (nothing is relevant to them by
    declaration; their one measure is the refusal outcome, ``toolkit.scoring.refusal``)."""
    return [
        CampaignTopic(t.query_id, t.query, t.description, t.narrative, t.query_class)
        for t in topic_set.topics
        if not t.expects_empty
    ]


def known_relevance(
    store: CampaignStore, exclude: Sequence[Qrels], *, min_rel: int = 1
) -> dict[tuple[str, str], bool | None]:
    """What MTF may treat as known: excluded qrels, campaign judgments (adjudication first, else the highest
    grade; unrateable = not relevant), and pending pool items (None)."""
    known: dict[tuple[str, str], bool | None] = {(p.query_id, p.doc_id): None for p in store.pool_items()}
    grades: dict[tuple[str, str], list[int]] = {}
    for j in store.current_judgments():
        if j.action in ("judge", "unrateable"):
            grades.setdefault((j.query_id, j.doc_id), []).append(j.grade if j.grade is not None else -1)
    for key, values in grades.items():
        known[key] = max(values) >= min_rel
    for key, adj in store.adjudications().items():
        known[key] = (adj.grade or 0) >= min_rel
    for qrels in exclude:
        for query_id, docs in qrels.judgments.items():
            for doc_id, rel in docs.items():
                known[(query_id, doc_id)] = rel >= min_rel
    return known


def build_pool(
    runs: Sequence[Run],
    topic_set: TopicSet,
    *,
    strategy: str = "depth",
    depth: int | None = 10,
    budget: int | None = None,
    known: Mapping[tuple[str, str], bool | None] | None = None,
    design: Design | None = None,
) -> Pool:
    """Depth-k, MTF, MaxMean or a stratified sample over the topic set's topics (topics in runs but not in the
    set are ignored, and so are topics declared ``expect = "empty"``: there is nothing relevant to judge)."""
    design = design or Design()
    if not runs:
        raise UsageError("no runs to pool; pass one or more run files")
    extra = sorted({q for run in runs for q in run.results} - set(topic_set.ids))
    if extra:
        shown = ", ".join(extra[:5]) + (" …" if len(extra) > 5 else "")
        warnings.warn(
            f"ignoring {len(extra)} topic(s) in the runs but not in the topic set: {shown}",
            ToolkitWarning,
            stacklevel=2,
        )
    topics = topic_set.relevance_ids
    if design.strata and strategy != "sample":
        raise UsageError(f"strata sample a pool: they do not go with --strategy {strategy}")
    if strategy == "depth":
        if budget is not None:
            raise UsageError("--budget applies to --strategy mtf, maxmean or sample only")
        return depth_pool(runs, depth=depth if depth is not None else 10, topics=topics)
    if strategy == "sample":
        strata = design.strata
        if not strata:
            if budget is None:
                raise UsageError("--strategy sample needs --sample STRATA, or --budget N to derive them")
            whole = budget if design.total else budget * len(topics)
            strata = strata_for_budget(runs, budget=whole, depth=depth or 20, topics=topics)
        return sample_pool(runs, strata=strata, topics=topics, seed=design.seed)  # the strata set the depth
    if strategy not in ADAPTIVE:
        raise UsageError(f"unknown pooling strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    if budget is None:
        scope = "over all topics" if design.total else "per topic"
        raise UsageError(f"--strategy {strategy} needs --budget N (new documents {scope})")
    budgets = None
    if design.total:
        budgets = split_budget(budget, _capacity(runs, topics, depth, known or {}))
    return adaptive_pool(
        runs, strategy, budget=budget, depth=depth, topics=topics, known=known, budgets=budgets
    )


def _capacity(
    runs: Sequence[Run],
    topics: Sequence[str],
    depth: int | None,
    known: Mapping[tuple[str, str], bool | None],
) -> dict[str, int]:
    """Per topic, the documents within ``depth`` of some run whose relevance is not known: what a budget can
    still buy there."""
    out: dict[str, int] = {}
    for q in topics:
        docs = {d for run in runs for d in (run.ranking(q)[:depth] if depth else run.ranking(q))}
        out[q] = sum(1 for d in docs if (q, d) not in known)
    return out


@dataclass(frozen=True)
class _Plan:
    """What a round would do, judged on the campaign as it is at one moment (see the module docstring)."""

    pool: Pool
    new: list[tuple[str, str]]
    recheck: list[tuple[str, str]]
    judged_hashes: dict[tuple[str, str], set[str | None]]
    skipped: int
    pending: int
    in_pool: set[tuple[str, str]]

    @property
    def doc_ids(self) -> list[str]:
        """The documents the round needs: new items and judged ones whose text is compared."""
        return list(dict.fromkeys([d for _, d in self.new] + [d for _, d in self.recheck]))


def _plan(
    store: CampaignStore,
    runs: Sequence[Run],
    topic_set: TopicSet,
    *,
    pool: Pool | None,
    strategy: str,
    depth: int | None,
    budget: int | None,
    exclude: Sequence[Qrels],
    design: Design | None = None,
) -> _Plan:
    if pool is None:
        known = known_relevance(store, exclude) if strategy in ADAPTIVE else None
        pool = build_pool(
            runs, topic_set, strategy=strategy, depth=depth, budget=budget, known=known, design=design
        )
    excluded = {(q, d) for qrels in exclude for q, docs in qrels.judgments.items() for d in docs}
    judged_hashes: dict[tuple[str, str], set[str | None]] = {}
    for j in store.current_judgments():
        if j.action in ("judge", "unrateable"):
            judged_hashes.setdefault((j.query_id, j.doc_id), set()).add(j.content_hash)
    in_pool = {(p.query_id, p.doc_id) for p in store.pool_items()}

    new: list[tuple[str, str]] = []
    recheck: list[tuple[str, str]] = []
    skipped = pending = 0
    for query_id, doc_id, _ in pool.items():
        key = (query_id, doc_id)
        if key in excluded:
            skipped += 1
        elif key in judged_hashes:
            recheck.append(key)
        elif key in in_pool:
            pending += 1
        else:
            new.append(key)
    return _Plan(pool, new, recheck, judged_hashes, skipped, pending, in_pool)


def pool_round(
    store: CampaignStore,
    runs: Sequence[Run],
    topic_set: TopicSet,
    *,
    source: DocSource,
    strategy: str = "depth",
    depth: int | None = 10,
    budget: int | None = None,
    exclude: Sequence[Qrels] = (),
    progress: Callable[[int, int], None] | None = None,
    guidelines: str | None = None,
    design: Design | None = None,
) -> RoundResult:
    """Add one round to ``store`` (a new campaign's first round or a later one); see the module docstring.

    The documents are fetched outside any transaction (it may take hours; assessors keep judging). Then the
    whole round is one write transaction: it looks at the campaign again under the write lock, decides every
    item afresh (another round or an assessor may have committed during the fetch), fetches what that fresh
    look needs and the first did not, and writes — so the counts it returns are the ones it wrote.

    ``guidelines`` (the workspace's assessor guidelines) are stored in the campaign, else the topic set's
    description, so every assessor reads the same text wherever they judge from.
    """
    grades = dict(topic_set.grades) if topic_set.grades else dict(DEFAULT_GRADES)
    chosen = design or Design()

    def plan(pool: Pool | None) -> _Plan:
        return _plan(
            store,
            runs,
            topic_set,
            pool=pool,
            strategy=strategy,
            depth=depth,
            budget=budget,
            exclude=exclude,
            design=chosen,
        )

    first = plan(None)
    fetched, vouched = fetch_changed(store, source, first.doc_ids, progress=progress)
    with store.transaction():  # topics, metadata and the round: all or nothing, on the campaign as it is now
        with warnings.catch_warnings():  # an adaptive pool is rebuilt from the same runs: warned about once
            warnings.simplefilter("ignore", ToolkitWarning)
            fresh = plan(None if strategy in ADAPTIVE else first.pool)
        latest = store.latest_hashes() if fresh.doc_ids else {}
        versions = store.latest_versions() if fresh.doc_ids else {}
        # "unchanged" holds only while the snapshot it was vouched against is still the latest one
        unchanged = {d for d, v in vouched.items() if versions.get(d) == v and latest.get(d) is not None}
        missing = [d for d in fresh.doc_ids if d not in fetched and d not in unchanged]
        if missing:
            fetched.update(fetch_documents(source, missing))
        skipped = fresh.skipped
        stale: list[tuple[str, str]] = []
        for key in fresh.recheck:
            doc = fetched.get(key[1])
            current = latest[key[1]] if doc is None else doc.content_hash  # None: unchanged, not fetched
            if (doc is None or doc.fetch_error is None) and current not in fresh.judged_hashes[key]:
                stale.append(key)
            else:
                skipped += 1
        queued = fresh.new + stale
        queued_docs = {d for _, d in queued}
        snapshots: list[Document] = []
        for doc_id in fresh.doc_ids:  # a document vouched unchanged was not fetched: its snapshot stands
            doc = fetched.get(doc_id)
            if doc is None:
                continue
            new_version = doc.version is not None and doc.version != versions.get(doc_id)
            if doc_id in queued_docs:
                if (
                    doc_id not in latest
                    or doc.content_hash != latest[doc_id]
                    or doc.fetch_error
                    or new_version
                ):
                    snapshots.append(doc)
            elif doc.fetch_error is None and new_version and doc.content_hash == latest.get(doc_id):
                snapshots.append(doc)  # the same text under a new version: remember it, not to fetch it again
        failures = tuple(d.doc_id for d in snapshots if d.fetch_error is not None)
        store.set_topics(campaign_topics(topic_set), grades)  # only now: nothing is written before the fetch
        meta = {
            "topic_set": topic_set.name,
            "topic_set_path": topic_set.path or "",
            "topic_set_sha256": topic_set.sha256 or "",
        }
        if guidelines or topic_set.description:
            meta["guidelines"] = guidelines or topic_set.description  # shown with the grade definitions
        store.set_meta(meta)
        pool = fresh.pool
        number = store.add_round(
            strategy=strategy,
            depth=pool.depth,
            budget=pool.budget,
            runs=pool.runs,
            provenance={(q, d): sources for q, d, sources in pool.items()},
            queued=queued,
            stale=stale,
            snapshots=snapshots,
            skipped=skipped,
            params={
                "docs": source.describe(),
                "exclude": [q.path or q.name for q in exclude],
                **({"total": True} if chosen.total else {}),
                **({"strata": [str(x) for x in pool.strata], "seed": chosen.seed} if pool.strata else {}),
            },
            steps=[
                OrderStep(0, st.query_id, st.number, st.run, st.rank, st.doc_id, st.cost, st.known)
                for st in pool.steps
            ],
            inclusion=[
                Inclusion(0, q, d, p, (pool.strata_of or {}).get((q, d), ""))
                for (q, d), p in (pool.inclusion or {}).items()
            ],
        )
        assigned = assign_new_items(store) if queued else None
        policy, assignees = recorded_policy(store), tuple(store.assignees())
        # Nobody assigned yet: every pool item is unassigned (no need to read the queues back).
        unassigned = pool_status(store).unassigned if assignees else len(fresh.in_pool | set(queued))
    return RoundResult(
        round=number,
        topics=len(topic_set.relevance_ids),
        pooled=len(pool),
        queued=len(queued),
        stale=len(stale),
        skipped=skipped,
        pending=fresh.pending,
        fetch_failures=failures,
        fetched=len(fetched),
        unchanged=len(unchanged),
        assigned=assigned,
        unassigned=unassigned,
        policy=policy,
        assignees=assignees,
        steps=len(pool.steps),
        selected=sum(st.cost for st in pool.steps),
        strata=tuple(str(x) for x in pool.strata),
        population=len(pool.inclusion or {}),
    )


def fetch_changed(
    store: CampaignStore,
    source: DocSource,
    doc_ids: Sequence[str],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Document], dict[str, str]]:
    """Fetch ``doc_ids`` except those the source vouches unchanged: a document whose latest snapshot has a
    content hash and a version equal to the version the source reports now is not fetched again. Returns
    the fetched documents and the vouched ones with the version they were vouched at."""
    unique = list(dict.fromkeys(doc_ids))
    latest = store.latest_hashes() if unique else {}
    stored = store.latest_versions() if any(d in latest for d in unique) else {}
    ask = [d for d in unique if stored.get(d) is not None and latest.get(d) is not None]
    now = source.versions(ask) if ask else {}
    vouched = {d: now[d] for d in ask if now.get(d) == stored[d]}
    fetched = fetch_documents(source, [d for d in unique if d not in vouched], progress=progress)
    return fetched, vouched


def _into_campaign(
    round_: Callable[Concatenate[CampaignStore, RoundArgs], RoundResult],
) -> Callable[Concatenate[str | Path, RoundArgs], RoundResult]:
    """``round_`` into the campaign at a path rather than an open store: the function made takes the path,
    then ``round_``'s own arguments — declared once, on ``pool_round``, and checked by the type checker."""

    def pool_campaign(path: str | Path, /, *args: RoundArgs.args, **kwargs: RoundArgs.kwargs) -> RoundResult:
        """``pool_round`` into the campaign at ``path`` (the other arguments are ``pool_round``'s), creating
        it when missing.

        A new campaign's first round is built out of sight (``CampaignStore.create``) and appears at ``path``
        only once complete: a first round that fails or is interrupted leaves nothing behind and never deletes
        anything — least of all a campaign another process created at ``path`` meanwhile (this round is then
        refused, and that campaign left as it is). A later round that fails has rolled back.
        """
        try:
            store = CampaignStore.open(path)
        except MissingCampaignError:
            try:
                with CampaignStore.create(path) as new:
                    return round_(new, *args, **kwargs)
            except CampaignExistsError:
                raise StoreError(
                    f"{path}: another process created this campaign while this first round was being built; "
                    "nothing was written to it: run `pool` again to add this round"
                ) from None
        with store:
            return round_(store, *args, **kwargs)

    return pool_campaign


pool_campaign = _into_campaign(pool_round)


def fetch_missing(
    store: CampaignStore, doc_ids: Iterable[str], source: Callable[[], DocSource | None]
) -> dict[str, Document] | None:
    """Snapshots of the ``doc_ids`` the campaign has none of (gold items outside the pool), from the source
    ``source()`` names — asked for only when a doc is missing; None when none is missing or there is no
    source (the caller then reports the docs it lacks)."""
    missing = sorted({d for d in doc_ids if not store.has_document(d)})
    if not missing:
        return None
    found = source()
    return fetch_documents(found, missing) if found is not None else None
