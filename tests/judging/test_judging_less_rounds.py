"""Budgeted and sampled rounds in a campaign: MaxMean's steps stored and replayed from the store, a total
budget shared over topics, a sample's inclusion probabilities stored and exported as the fifth column, and the
exported qrels giving trec_eval's infAP for the inferred infAP (uniform sample)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from toolkit.errors import UsageError
from toolkit.judging.export import export_qrels, parse_policy
from toolkit.judging.records import Item
from toolkit.judging.store import CampaignStore
from toolkit.model import Run, Topic, TopicSet
from toolkit.pooling.bandit import Step, replay
from toolkit.pooling.docsource import CorpusDocSource
from toolkit.pooling.rounds import Design, pool_round
from toolkit.pooling.sampling import parse_strata

TOPICS = TopicSet(topics=tuple(Topic(f"q{t}", f"query {t}") for t in range(4)), grades={0: "no", 1: "yes"})
RELEVANT = {f"q{t}": {f"q{t}-d{i}" for i in range(0, 30, 4)} for t in range(4)}


def runs() -> list[Run]:
    rng = np.random.default_rng(5)
    out = []
    for k in range(4):
        results = {}
        for t in range(4):
            docs = [f"q{t}-d{int(i)}" for i in rng.permutation(30)[:15]]
            results[f"q{t}"] = {d: float(15 - r) for r, d in enumerate(docs)}
        out.append(Run(results=results, name=f"run{k}"))
    return out


CORPUS = CorpusDocSource({f"q{t}-d{i}": (f"T{t}-{i}", "text") for t in range(4) for i in range(30)})


def judge_everything(store: CampaignStore) -> None:
    """One assessor grades every queued item by the truth (relevant = RELEVANT)."""
    pending = [p for p in store.pool_items() if not store.current("alice", p.query_id, p.doc_id)]
    store.add_assignments([Item("alice", p.query_id, p.doc_id, i) for i, p in enumerate(pending)])
    for p in pending:
        store.record("alice", p.query_id, p.doc_id, grade=int(p.doc_id in RELEVANT[p.query_id]))


def test_maxmean_rounds_store_every_step_and_replay_from_the_store(location: Path | str) -> None:
    the_runs = runs()
    with CampaignStore.open(location, create=True) as store:
        first = pool_round(store, the_runs, TOPICS, source=CORPUS, strategy="maxmean", depth=10, budget=3)
        assert (first.steps, first.selected) == (12, 12)
        judge_everything(store)
        second = pool_round(store, the_runs, TOPICS, source=CORPUS, strategy="maxmean", depth=10, budget=3)
        assert second.selected == 12 and second.queued == 12
        for number in (1, 2):
            stored = store.order_steps(number)
            steps = tuple(Step(s.query_id, s.step, s.run, s.rank, s.doc_id, s.cost, s.known) for s in stored)
            assert sum(s.cost for s in steps) == 12
            assert replay(the_runs, steps, depth=10, budget=3) == steps
        # round 2 knew the grades of round 1: its known steps carry them, free of cost
        known = [s for s in store.order_steps(2) if s.cost == 0]
        assert known and all(s.known == (s.doc_id in RELEVANT[s.query_id]) for s in known)
        info = store.rounds()
        assert [r.strategy for r in info] == ["maxmean", "maxmean"] and info[0].budget == 3


def test_a_total_budget_is_shared_over_topics(tmp_path: Path) -> None:
    with CampaignStore.open(tmp_path / "c.sqlite", create=True) as store:
        result = pool_round(
            store,
            runs(),
            TOPICS,
            source=CORPUS,
            strategy="maxmean",
            depth=10,
            budget=10,
            design=Design(total=True),
        )
        assert result.selected == 10
        per_topic = {}
        for s in store.order_steps(1):
            per_topic[s.query_id] = per_topic.get(s.query_id, 0) + s.cost
        assert sorted(per_topic.values()) == [2, 2, 3, 3]


def test_a_sample_stores_inclusion_and_exports_five_columns(location: Path | str) -> None:
    from toolkit.formats.sampled import format_sampled_qrels
    from toolkit.model import SampledQrels

    the_runs = runs()
    with CampaignStore.open(location, create=True) as store:
        result = pool_round(
            store,
            the_runs,
            TOPICS,
            source=CORPUS,
            strategy="sample",
            design=Design(strata=parse_strata("1-2:1,3-12:0.3"), seed=3),
        )
        rows = store.inclusion(1)
        assert result.population == len(rows) and result.pooled < len(rows)
        assert {r.stratum for r in rows} == {"1-2", "3-12"}
        assert all(r.probability == 1.0 for r in rows if r.stratum == "1-2")
        drawn = {(p.query_id, p.doc_id) for p in store.pool_items()}
        for q in {r.query_id for r in rows}:
            deep = [r for r in rows if r.query_id == q and r.stratum == "3-12"]
            n = sum(1 for r in deep if (q, r.doc_id) in drawn)
            assert all(r.probability == n / len(deep) for r in deep)
        judge_everything(store)
        exported = export_qrels(store, parse_policy("majority"))
    assert exported.probabilities is not None
    probs = {(r.query_id, r.doc_id): r.probability for r in rows}
    for q, docs in exported.qrels.judgments.items():
        for d, grade in docs.items():
            assert exported.probabilities[q][d] == probs[(q, d)]
            assert grade == (int(d in RELEVANT[q]) if (q, d) in drawn else -1)
    assert sum(len(v) for v in exported.qrels.judgments.values()) == len(rows)
    text = format_sampled_qrels(SampledQrels(exported.qrels, exported.probabilities))
    assert all(len(line.split()) == 5 for line in text.splitlines())


def test_sampled_export_round_trips_into_trec_evals_infap(tmp_path: Path, trec_eval) -> None:
    """A uniform sample, exported: our infAP on the five-column file equals trec_eval's infAP on the same
    qrels (four columns: trec_eval reads −1 as pooled, unjudged)."""
    from toolkit.formats.qrels import format_qrels
    from toolkit.formats.sampled import read_sampled_qrels, write_sampled_qrels
    from toolkit.model import SampledQrels
    from toolkit.scoring.inferred import estimate_run

    the_runs = runs()
    with CampaignStore.open(tmp_path / "c.sqlite", create=True) as store:
        pool_round(
            store,
            the_runs,
            TOPICS,
            source=CORPUS,
            strategy="sample",
            design=Design(strata=parse_strata("1-15:0.5"), seed=1),
        )
        judge_everything(store)
        exported = export_qrels(store, parse_policy("majority"))
    assert exported.probabilities is not None
    path = tmp_path / "sample.probs"
    write_sampled_qrels(SampledQrels(exported.qrels, exported.probabilities), path)
    sampled = read_sampled_qrels(path)
    (tmp_path / "four.qrels").write_text(format_qrels(exported.qrels))
    for run in the_runs:
        run_path = tmp_path / f"{run.name}.run"
        run_path.write_text(
            "".join(
                f"{q} Q0 {d} {i} {20 - i} {run.name}\n"
                for q in run.results
                for i, d in enumerate(run.ranking(q), 1)
            )
        )
        done = trec_eval("-q", "-m", "infAP", str(tmp_path / "four.qrels"), str(run_path))
        expected = {
            line.split()[1]: float(line.split()[2])
            for line in done.stdout.decode().splitlines()
            if "all" not in line
        }
        assert len(expected) == 4
        ours = estimate_run(run, sampled, "infAP")
        for q, value in expected.items():
            assert ours.per_topic[q].value == pytest.approx(value, abs=5e-5)


def test_bad_designs_are_refused_in_one_line(tmp_path: Path) -> None:
    with CampaignStore.open(tmp_path / "c.sqlite", create=True) as store:
        with pytest.raises(
            UsageError, match=r"--strategy maxmean needs --budget N \(new documents per topic\)"
        ):
            pool_round(store, runs(), TOPICS, source=CORPUS, strategy="maxmean")
        with pytest.raises(UsageError, match="--strategy sample needs --sample STRATA, or --budget N"):
            pool_round(store, runs(), TOPICS, source=CORPUS, strategy="sample")
        with pytest.raises(UsageError, match="strata sample a pool: they do not go with --strategy depth"):
            pool_round(store, runs(), TOPICS, source=CORPUS, design=Design(strata=parse_strata("1-5:1")))


def test_progress_reports_the_budget_spent_and_relevant_found_per_judgment(location: Path | str) -> None:
    from toolkit.judging.progress import budget_status, progress_report

    the_runs = runs()
    with CampaignStore.open(location, create=True) as store:
        assert budget_status(store) is None
        pool_round(store, the_runs, TOPICS, source=CORPUS, strategy="maxmean", depth=10, budget=3)
        empty = budget_status(store)
        assert empty is not None and (empty.selected, empty.judged, empty.per_judgment) == (12, 0, None)
        items = store.pool_items()
        store.add_assignments([Item("alice", p.query_id, p.doc_id, i) for i, p in enumerate(items)])
        for p in items[:5]:
            store.record("alice", p.query_id, p.doc_id, grade=int(p.doc_id in RELEVANT[p.query_id]))
        relevant = sum(1 for p in items[:5] if p.doc_id in RELEVANT[p.query_id])
        status = progress_report(store).budget
    assert status is not None
    assert (status.rounds, status.budget, status.selected, status.judged) == ((1,), "maxmean 3", 12, 5)
    assert status.relevant == relevant and status.per_judgment == relevant / 5
    assert status.spent == 5 / 12
