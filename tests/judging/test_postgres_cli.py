"""A campaign on PostgreSQL through the real CLI: pool -o URL, assign, two assessors at once, export, and
``campaign copy`` back to SQLite with a byte-identical ``judgments export --log``."""

from __future__ import annotations

import json
import multiprocessing as mp
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.judging.store import CampaignStore


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("topics.tsv").write_text("q-1\tapple pie\n202\tbanana bread\n")
    Path("a.run").write_text(
        "q-1 Q0 d1 1 3.0 a\nq-1 Q0 d2 2 2.0 a\nq-1 Q0 d3 3 1.0 a\n202 Q0 d4 1 2.0 a\n202 Q0 d5 2 1.0 a\n"
    )
    Path("b.run").write_text("q-1 Q0 d3 1 3.0 b\nq-1 Q0 d6 2 2.0 b\n202 Q0 d5 1 2.0 b\n202 Q0 d7 2 1.0 b\n")
    Path("docs.jsonl").write_text(
        "".join(
            json.dumps({"doc_id": d, "title": f"T {d}", "text": f"text of {d}"}) + "\n"
            for d in ["d1", "d2", "d3", "d4", "d5", "d6", "d7"]
        )
    )
    return tmp_path


def cli(*args: str | Path):
    return CliRunner().invoke(main, [str(a) for a in args])


def _assessor(url: str, name: str, seed: int, barrier, out) -> None:  # runs in a child process
    from toolkit.judging.session import JudgingSession

    rng = random.Random(seed)
    with CampaignStore.open(url) as store:
        session = JudgingSession(store, name)
        barrier.wait()
        while not session.done:
            if rng.random() < 0.15:
                session.skip()
            else:
                session.grade(rng.randrange(4))
        if name == "alice":
            session.undo()
            session.grade(3)
    out.put(name)


def test_pool_judge_twice_at_once_export_copy_back(ws: Path, pg_location: str) -> None:
    url = pg_location
    r = cli(
        "pool", "a.run", "b.run", "--topics", "topics.tsv", "--depth", "2", "--docs", "docs.jsonl", "-o", url
    )
    assert r.exit_code == 0, r.output
    assert r.stdout == (
        "Round 1: 2 topics, 7 pooled, 7 queued (0 stale), 0 already judged, 0 already queued, "
        f"0 fetch failures -> {url}\n"
    )
    r = cli("assign", url, "--assessors", "alice,bob", "--overlap", "all")
    assert r.exit_code == 0, r.output

    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=_assessor, args=(url, n, s, barrier, out)) for n, s in (("alice", 1), ("bob", 2))
    ]
    for p in procs:
        p.start()
    assert sorted(out.get(timeout=60) for _ in procs) == ["alice", "bob"]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0

    log = cli("judgments", "export", url, "--log")
    assert log.exit_code == 0, log.output
    with CampaignStore.open(url) as store:
        events = store.log()
        assert [e.event_id for e in events] == list(range(1, len(events) + 1))
        assert {e.assessor for e in events} == {"alice", "bob"}
        assert [e.action for e in events if e.assessor == "alice"][-2:] == ["undo", "judge"]
    current = cli("judgments", "export", url)
    assert current.exit_code == 0 and len(current.stdout.splitlines()) == 1 + 7 * 2  # both judged every item
    r = cli("export", url, "--policy", "max", "-o", "qrels.txt")
    assert r.exit_code == 0, r.output
    manifest = json.loads(Path("qrels.txt.json").read_text())
    assert manifest["inputs"]["campaign"] == {"path": url, "sha256": None}
    assert manifest["campaign"]["log_events"] == len(events)
    r = cli("agree", url, "--format", "json", "--bootstrap", "0")
    assert r.exit_code == 0, r.output

    r = cli("campaign", "copy", url, "archive.sqlite")
    assert r.exit_code == 0, r.output
    digest = r.stdout.splitlines()[1].split()[2]
    assert r.stdout.splitlines()[0] == (
        f"Copied 2 topics, 7 pooled items, 7 snapshots, 14 assignments and {len(events)} log events -> archive.sqlite"
    )
    back = cli("judgments", "export", "archive.sqlite", "--log")
    assert back.exit_code == 0 and back.stdout == log.stdout  # the same bytes, times and event ids included
    assert cli("judgments", "export", "archive.sqlite").stdout == current.stdout
    hashes = {cli("campaign", "hash", where).stdout.split()[0] for where in (url, "archive.sqlite")}
    assert hashes == {digest}
    r2 = cli("export", "archive.sqlite", "--policy", "max", "-o", "qrels2.txt")
    assert r2.exit_code == 0 and Path("qrels2.txt").read_text() == Path("qrels.txt").read_text()


def test_copy_sqlite_to_postgres_and_back_keeps_everything(
    tmp_path: Path, pg_location: str, make_campaign
) -> None:
    from toolkit.judging.dump import copy_campaign

    src = make_campaign(tmp_path / "src.sqlite")
    with CampaignStore.open(src) as store:
        store.record("alice", "q1", "d1", grade=2, note="tab\there", duration_ms=5, position=0)
        store.record("bob", "q1", "d1", grade=0)
        store.undo("alice")
        store.adjudicate("judy", "q1", "d1", 1, note="settled")
        store.add_note("bob", "q1", "d1", "later")
        before = store.log()
    there = copy_campaign(src, pg_location)
    back = copy_campaign(pg_location, tmp_path / "back.sqlite")
    assert there.content_hash == back.content_hash
    with CampaignStore.open(tmp_path / "back.sqlite") as store:
        assert store.log() == before
        assert store.adjudications()[("q1", "d1")].grade == 1
    with CampaignStore.open(pg_location) as store:  # the copy goes on: ids follow the copied ones
        assert store.log() == before
        assert store.record("carol", "q1", "d2", grade=3) == before[-1].event_id + 1
        assert store.document("d1").text == "apple text"


def test_copy_never_overwrites_and_a_password_never_shows(
    tmp_path: Path, pg_location: str, make_campaign
) -> None:
    src = make_campaign(tmp_path / "src.sqlite")
    make_campaign(pg_location)
    r = cli("campaign", "copy", src, pg_location)
    assert r.exit_code == 1
    assert (
        r.output
        == f"Error: {pg_location}: already exists; copy into a new campaign (a copy never overwrites one)\n"
    )
    secret = pg_location.replace("@", ":hunter2@", 1)
    r = cli("judgments", "export", secret)
    assert r.exit_code == 1 and "hunter2" not in r.output
    assert r.output.startswith("Error: postgresql://") and "the URL contains a password" in r.output
