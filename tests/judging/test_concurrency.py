"""Nothing is lost: several writer processes at once, and a writer killed with SIGKILL mid-transaction."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sqlite3
from pathlib import Path

from toolkit.judging.store import CampaignStore

WRITERS = 4
PER_WRITER = 40
ITEMS = [("q1", "d1"), ("q1", "d2"), ("401", "d3"), ("401", "d1")]


def _writer(path: str, assessor: str, barrier, out) -> None:  # runs in a child process
    ids = []
    with CampaignStore.open(path) as store:
        barrier.wait()
        for i in range(PER_WRITER):
            query_id, doc_id = ITEMS[i % len(ITEMS)]
            ids.append(store.record(assessor, query_id, doc_id, grade=i % 4, duration_ms=i))
    out.put((assessor, ids))


def test_parallel_writer_processes_lose_nothing(tmp_path: Path, make_campaign) -> None:
    assessors = tuple(f"a{i}" for i in range(WRITERS))
    path = str(make_campaign(tmp_path / "c.sqlite", assessors=assessors))
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(WRITERS)
    out = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(path, a, barrier, out)) for a in assessors]
    for p in procs:
        p.start()
    returned = dict(out.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    with CampaignStore.open(path) as store:
        log = store.log()
        assert len(log) == WRITERS * PER_WRITER
        for assessor in assessors:
            mine = [e for e in log if e.assessor == assessor]
            assert [e.event_id for e in mine] == returned[assessor]
            assert [e.grade for e in mine] == [i % 4 for i in range(PER_WRITER)]
            assert [e.duration_ms for e in mine] == list(range(PER_WRITER))
        # the last write per item wins: i = 36..39 hit the four items with grades 0..3
        current = {(j.assessor, j.query_id, j.doc_id): j.grade for j in store.current_judgments()}
        assert current[("a0", "q1", "d1")] == 36 % 4


def _doomed(path: str, ready, committed) -> None:  # runs in a child process, killed by the parent
    with CampaignStore.open(path) as store:
        for i in range(10):
            committed.put(store.record("victim", "q1", "d1", grade=i % 4))
        with store.transaction():  # a transaction that will never commit
            store._append("victim", "q1", "d2", "judge", grade=3)
            store._append("victim", "401", "d3", "judge", grade=3)
            ready.set()
            signal.pause()


def test_sigkill_mid_transaction_loses_nothing_committed(tmp_path: Path, make_campaign) -> None:
    path = str(make_campaign(tmp_path / "c.sqlite", assessors=("victim", "other")))
    ctx = mp.get_context("fork")
    ready = ctx.Event()
    committed = ctx.SimpleQueue()  # put() writes at once: a Queue's feeder thread dies with the child
    proc = ctx.Process(target=_doomed, args=(path, ready, committed))
    proc.start()
    assert ready.wait(timeout=60)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=60)
    assert proc.exitcode == -signal.SIGKILL
    ids = [committed.get() for _ in range(10)]

    with CampaignStore.open(path) as store:
        assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        log = store.log()
        assert [e.event_id for e in log] == ids  # every committed event, none of the open transaction
        assert store.current("victim", "q1", "d2") is None
        # the file is usable: the dead writer's lock is gone and new writes commit
        store.record("other", "q1", "d2", grade=1)
        store.record("victim", "q1", "d2", grade=2)
        assert store.current("victim", "q1", "d2").grade == 2  # type: ignore[union-attr]
    plain = sqlite3.connect(path)
    assert plain.execute("SELECT count(*) FROM judgment_log").fetchone()[0] == 12
    plain.close()


def _creator(path: str, barrier, out) -> None:  # runs in a child process
    barrier.wait()
    try:
        with CampaignStore.open(path, create=True) as store:
            out.put(("ok", store.grades()))
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        out.put(("error", repr(exc)))


def test_processes_creating_one_campaign_at_once(tmp_path: Path) -> None:
    path = str(tmp_path / "new.sqlite")
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(3)
    out = ctx.Queue()
    procs = [ctx.Process(target=_creator, args=(path, barrier, out)) for _ in range(3)]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert results == [("ok", {})] * 3


def test_one_store_shared_by_threads(tmp_path: Path, make_campaign) -> None:
    """The TUI records from worker threads: one CampaignStore object, several threads, nothing lost."""
    from concurrent.futures import ThreadPoolExecutor

    with CampaignStore.open(make_campaign(tmp_path / "c.sqlite", assessors=("t0", "t1", "t2"))) as store:

        def work(assessor: str) -> list[int]:
            return [store.record(assessor, *ITEMS[i % 4], grade=i % 4) for i in range(10)]

        with ThreadPoolExecutor(max_workers=3) as pool:
            ids = [i for batch in pool.map(work, ["t0", "t1", "t2"]) for i in batch]
        assert sorted(ids) == [e.event_id for e in store.log()] and len(ids) == 30


def _window(path: str, barrier, out) -> None:  # runs in a child process: one assessor's window
    from toolkit.judging.store import NO_DECISION, ConflictError

    with CampaignStore.open(path) as store:
        seen = {item: store.current_decision("alice", *item) for item in ITEMS}
        barrier.wait()
        won = []
        for item in ITEMS:
            before = seen[item]
            try:
                won.append(
                    store.record(
                        "alice", *item, grade=2, expect_event=before.event_id if before else NO_DECISION
                    )
                )
            except ConflictError as exc:
                assert exc.current is not None  # the other window's decision, to show
        out.put(won)


def test_two_windows_of_one_assessor_never_overwrite(tmp_path: Path, make_campaign) -> None:
    """Two processes grade the same items having seen the same (empty) decisions: for each item
    exactly one write lands and the other is told about it."""
    path = str(make_campaign(tmp_path / "c.sqlite"))
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(2)
    out = ctx.Queue()
    procs = [ctx.Process(target=_window, args=(path, barrier, out)) for _ in range(2)]
    for p in procs:
        p.start()
    won = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    with CampaignStore.open(path) as store:
        log = store.log()
    assert len(log) == len(ITEMS) and sorted(won[0] + won[1]) == [e.event_id for e in log]
    assert sorted((e.query_id, e.doc_id) for e in log) == sorted(ITEMS)


def _pooler(path: str, barrier, out) -> None:  # runs in a child process: one `pool` command
    from toolkit.errors import StoreError
    from toolkit.model import Run, Topic, TopicSet
    from toolkit.pooling.docsource import CorpusDocSource
    from toolkit.pooling.rounds import pool_campaign

    topics = TopicSet(topics=(Topic("q1", "apple"), Topic("q2", "pear")))
    run = Run({q: {f"{q}-d{i}": float(50 - i) for i in range(50)} for q in ("q1", "q2")}, name="r")
    corpus = CorpusDocSource({f"{q}-d{i}": ("t", f"text {q} {i}") for q in ("q1", "q2") for i in range(50)})
    barrier.wait()
    try:
        result = pool_campaign(path, [run], topics, source=corpus, depth=50)
        out.put(("ok", result.round, result.queued, result.pending))
    except StoreError as exc:
        out.put(("refused", str(exc)))


def test_pool_commands_racing_on_one_campaign(tmp_path: Path) -> None:
    """Three `pool` runs at once on a campaign that does not exist yet. One creates it;
    a creator that loses is refused without harm; a later round sees what the first wrote (nothing queued
    twice, counts that add up)."""
    path = str(tmp_path / "c.sqlite")
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(3)
    out = ctx.Queue()
    procs = [ctx.Process(target=_pooler, args=(path, barrier, out)) for _ in range(3)]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    done = sorted(r for r in results if r[0] == "ok")
    refused = [r for r in results if r[0] == "refused"]
    assert done[0] == ("ok", 1, 100, 0)  # the creator queued all 100 items
    assert all(r[1:] == (n, 0, 100) for n, r in enumerate(done[1:], start=2))  # later rounds: all pending
    assert all("another process created this campaign" in r[1] for r in refused)
    with CampaignStore.open(path) as store:
        assert len(store.pool_items()) == 100
        assert [x.added for x in store.rounds()] == [100] + [0] * (len(done) - 1)
