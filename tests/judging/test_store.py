"""The campaign store's assessor API: queue, record, undo, notes, progress, disagreements, schema checks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toolkit.errors import StoreError
from toolkit.judging.disagreements import disagreements
from toolkit.judging.progress import progress
from toolkit.judging.queue import next_item, resume_position
from toolkit.judging.records import Item
from toolkit.judging.sqlite.schema import SCHEMA_VERSION
from toolkit.judging.store import CampaignStore
from toolkit.model import DEFAULT_GRADES


@pytest.fixture
def store(location: Path | str, make_campaign):
    """A fresh campaign per test on each backend: these are the interface's tests."""
    with CampaignStore.open(make_campaign(location)) as s:
        yield s


@pytest.fixture
def sqlite_store(tmp_path: Path, make_campaign):
    with CampaignStore.open(make_campaign(tmp_path / "c.sqlite")) as s:
        yield s


def test_missing_campaign_is_an_error_with_a_fix(tmp_path: Path) -> None:
    path = tmp_path / "none.sqlite"
    with pytest.raises(StoreError) as err:
        CampaignStore.open(path)
    assert str(err.value) == f"{path}: no such campaign; create one with `trec-toolkit pool RUN… -o {path}`"
    assert not path.exists()


def test_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite"
    path.write_text("hello, not sqlite\n" * 100)
    with pytest.raises(StoreError, match="not a campaign database"):
        CampaignStore.open(path)


def test_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="an SQLite file but not a campaign database"):
        CampaignStore.open(path)


def test_newer_schema_is_refused(tmp_path: Path, make_campaign) -> None:
    path = make_campaign(tmp_path / "c.sqlite")
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this trec-toolkit supports"):
        CampaignStore.open(path)


def test_settings_wal_full_and_version(sqlite_store: CampaignStore) -> None:
    conn = sqlite_store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_topics_grades_documents(store: CampaignStore) -> None:
    assert [t.query_id for t in store.topics()] == ["q1", "401"]
    assert store.topic("401").query_class == "prose"
    assert store.grades() == DEFAULT_GRADES
    doc = store.document("d1")
    assert (doc.title, doc.text, doc.fetch_error) == ("Apple", "apple text", None)
    with pytest.raises(StoreError, match="no snapshot of document 'zz'"):
        store.document("zz")
    with pytest.raises(StoreError, match="no topic 'q9'"):
        store.topic("q9")


def test_items_and_documents_are_blind(store: CampaignStore) -> None:
    fields = set(Item.__dataclass_fields__) | set(type(store.document("d1")).__dataclass_fields__)
    assert not fields & {"run", "rank", "runs", "provenance", "score"}
    assert [(p.run, p.rank) for p in store.provenance("q1")] == [("runA", 1), ("runA", 2)]


def test_queue_next_item_and_resume(store: CampaignStore) -> None:
    queue = store.queue("alice")
    assert [(i.query_id, i.doc_id, i.position) for i in queue] == [
        ("q1", "d1", 0),
        ("q1", "d2", 1),
        ("401", "d3", 2),
        ("401", "d1", 3),
    ]
    assert next_item(store, "alice") == queue[0]
    store.record("alice", "q1", "d1", grade=2, duration_ms=1200, position=0)
    assert resume_position(store, "alice") == 1
    store.record("alice", "q1", "d2", action="skip")
    assert next_item(store, "alice") == queue[2]  # skipped items come back last
    store.record("alice", "401", "d3", action="unrateable")
    store.record("alice", "401", "d1", grade=0)
    assert next_item(store, "alice") == queue[1]
    assert resume_position(store, "alice") == 1
    store.record("alice", "q1", "d2", grade=1)
    assert next_item(store, "alice") is None
    assert resume_position(store, "alice") == 4


def test_skip_and_unrateable_are_never_grades(store: CampaignStore) -> None:
    with pytest.raises(StoreError, match="carries no grade"):
        store.record("alice", "q1", "d1", grade=1, action="skip")
    with pytest.raises(StoreError, match="grade None is not on this campaign's scale"):
        store.record("alice", "q1", "d1")
    with pytest.raises(StoreError, match=r"grade 4 is not on this campaign's scale \(0, 1, 2, 3\)"):
        store.record("alice", "q1", "d1", grade=4)
    with pytest.raises(StoreError, match="unknown action 'maybe'"):
        store.record("alice", "q1", "d1", action="maybe")
    store.record("alice", "q1", "d1", action="unrateable")
    j = store.current("alice", "q1", "d1")
    assert j is not None and (j.action, j.grade) == ("unrateable", None)
    assert store.log()[-1].grade is None


def test_unknown_topic_doc_and_bad_assessor(store: CampaignStore) -> None:
    with pytest.raises(StoreError, match="no topic 'q9'"):
        store.record("alice", "q9", "d1", grade=1)
    with pytest.raises(StoreError, match="document 'd9' is not in this campaign"):
        store.record("alice", "q1", "d9", grade=1)
    with pytest.raises(StoreError, match="invalid assessor name 'a b\\\\t'"):
        store.record("a b\t", "q1", "d1", grade=1)
    assert store.log() == []


def test_undo_appends_and_restores_earlier_grade(store: CampaignStore) -> None:
    store.record("alice", "q1", "d1", grade=1)
    store.record("alice", "q1", "d2", grade=3)
    store.record("alice", "q1", "d1", grade=2)  # re-judged
    undone = store.undo("alice")
    assert undone is not None and (undone.query_id, undone.doc_id, undone.position) == ("q1", "d1", 0)
    assert store.current("alice", "q1", "d1").grade == 1  # type: ignore[union-attr]
    assert store.undo("alice").doc_id == "d2"  # type: ignore[union-attr]
    assert store.current("alice", "q1", "d2") is None
    assert store.undo("alice").doc_id == "d1"  # type: ignore[union-attr]
    assert store.undo("alice") is None
    actions = [e.action for e in store.log()]
    assert actions == ["judge", "judge", "judge", "undo", "undo", "undo"]
    assert [e.undoes for e in store.log()[3:]] == [3, 2, 1]
    assert store.undo("bob") is None  # bob's undo never touches alice's work


_LOG_ROW = "time, assessor, query_id, doc_id, action, grade"
_OVERWRITES = [
    "UPDATE judgment_log SET grade = 3",
    "UPDATE OR REPLACE judgment_log SET grade = 3 WHERE id = 1",
    "DELETE FROM judgment_log",
    "DELETE FROM judgment_log WHERE id = 1",
    f"INSERT OR REPLACE INTO judgment_log (id, {_LOG_ROW}) VALUES (1, 't', 'mallory', 'q1', 'd1', 'judge', 3)",
    f"REPLACE INTO judgment_log (id, {_LOG_ROW}) VALUES (1, 't', 'mallory', 'q1', 'd1', 'judge', 3)",
    f"INSERT OR IGNORE INTO judgment_log (id, {_LOG_ROW}) VALUES (1, 't', 'mallory', 'q1', 'd1', 'judge', 3)",
    f"INSERT INTO judgment_log (id, {_LOG_ROW}) VALUES (1, 't', 'mallory', 'q1', 'd1', 'judge', 3) "
    "ON CONFLICT (id) DO UPDATE SET grade = excluded.grade, assessor = excluded.assessor",
    f"INSERT INTO judgment_log (id, {_LOG_ROW}) VALUES (1, 't', 'mallory', 'q1', 'd1', 'judge', 3) "
    "ON CONFLICT DO NOTHING",
    f"INSERT OR REPLACE INTO judgment_log (id, {_LOG_ROW}) SELECT id, time, 'mallory', query_id, doc_id, "
    "action, 3 FROM judgment_log",
]


@pytest.mark.parametrize("sql", _OVERWRITES)
def test_log_is_append_only_against_every_sql_form(tmp_path: Path, make_campaign, sql: str) -> None:
    """SQLite only: a raw sqlite3 connection of its own, as any other program on the machine would use."""
    path = make_campaign(tmp_path / "c.sqlite")
    with CampaignStore.open(path) as store:
        store.record("alice", "q1", "d1", grade=1)
        store.record("alice", "q1", "d2", grade=2)
        before = store.log()
    raw = sqlite3.connect(path, isolation_level=None)
    try:
        raw.execute(sql)
    except sqlite3.DatabaseError as exc:
        assert "append-only" in str(exc)
    raw.close()
    with CampaignStore.open(path) as store:
        assert store.log() == before  # whatever the statement did, no event changed or went away


def test_log_still_takes_new_events_through_raw_sql(tmp_path: Path, make_campaign) -> None:
    """The guard refuses only an existing id: appending (with or without an explicit new id) still works."""
    path = make_campaign(tmp_path / "c.sqlite")
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute(f"INSERT INTO judgment_log ({_LOG_ROW}) VALUES ('t', 'alice', 'q1', 'd1', 'judge', 1)")
    raw.execute(
        f"INSERT OR REPLACE INTO judgment_log (id, {_LOG_ROW}) VALUES (7, 't', 'bob', 'q1', 'd1', 'judge', 2)"
    )
    raw.close()
    with CampaignStore.open(path) as store:
        assert [(e.event_id, e.assessor, e.grade) for e in store.log()] == [(1, "alice", 1), (7, "bob", 2)]


def test_a_version_1_campaign_gets_the_insert_guard(tmp_path: Path) -> None:
    """Migration 2 adds the guard to campaigns made before it (SQLite only: builds a version-1 file by hand)."""
    from toolkit.judging.sqlite.schema import APPLICATION_ID, MIGRATIONS

    path = tmp_path / "old.sqlite"
    raw = sqlite3.connect(path, isolation_level=None)
    raw.executescript(f"{MIGRATIONS[0]}\nPRAGMA application_id = {APPLICATION_ID};\nPRAGMA user_version = 1;")
    raw.execute("INSERT INTO topics (query_id, ord, query) VALUES ('q1', 0, 'apple')")
    raw.execute(f"INSERT INTO judgment_log ({_LOG_ROW}) VALUES ('t', 'alice', 'q1', 'd1', 'judge', 1)")
    raw.execute(
        f"REPLACE INTO judgment_log (id, {_LOG_ROW}) VALUES (1, 't', 'alice', 'q1', 'd1', 'judge', 3)"
    )
    assert raw.execute("SELECT grade FROM judgment_log").fetchall() == [(3,)]  # the hole version 1 had
    raw.close()
    with CampaignStore.open(path) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [e.grade for e in store.log()] == [3]
    raw = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute(
            f"REPLACE INTO judgment_log (id, {_LOG_ROW}) VALUES (1, 't', 'alice', 'q1', 'd1', 'judge', 0)"
        )
    raw.close()


def test_notes(store: CampaignStore) -> None:
    store.record("alice", "q1", "d1", grade=2, note="first")
    assert store.current("alice", "q1", "d1").note == "first"  # type: ignore[union-attr]
    store.add_note("alice", "q1", "d1", "on second thought")
    j = store.current("alice", "q1", "d1")
    assert j is not None and (j.grade, j.note) == (2, "on second thought")


def test_progress(store: CampaignStore) -> None:
    store.record("alice", "q1", "d1", grade=2, duration_ms=1000)
    store.record("alice", "q1", "d2", action="skip", duration_ms=50)
    store.record("alice", "401", "d3", action="unrateable", duration_ms=3000)
    rows = {(r.assessor, r.query_id): r for r in progress(store)}
    a = rows[("alice", "q1")]
    assert (a.assigned, a.judged, a.skipped, a.unrateable, a.remaining, a.median_ms) == (
        2,
        1,
        1,
        0,
        1,
        1000.0,
    )
    b = rows[("alice", "401")]
    assert (b.assigned, b.judged, b.unrateable, b.remaining, b.median_ms) == (2, 0, 1, 1, 3000.0)
    assert rows[("bob", "q1")].remaining == 2 and rows[("bob", "q1")].median_ms is None
    assert [k for k in rows] == [("alice", "q1"), ("alice", "401"), ("bob", "q1"), ("bob", "401")]


def test_disagreements_and_adjudication(location: Path | str, make_campaign) -> None:
    with CampaignStore.open(make_campaign(location, assessors=("alice", "bob", "carol"))) as store:
        store.record("alice", "q1", "d1", grade=0, note="off topic")
        store.record("bob", "q1", "d1", grade=3)
        store.record("alice", "q1", "d2", grade=1)
        store.record("bob", "q1", "d2", grade=2)
        store.record("carol", "q1", "d2", grade=2)
        store.record("alice", "401", "d3", grade=2)
        store.record("bob", "401", "d3", grade=2)  # agreement: not listed
        store.record("carol", "401", "d3", action="unrateable")  # never a grade
        found = disagreements(store)
        assert [(d.query_id, d.doc_id, d.spread) for d in found] == [("q1", "d1", 3), ("q1", "d2", 1)]
        assert [(g.assessor, g.grade, g.note) for g in found[0].grades] == [
            ("alice", 0, "off topic"),
            ("bob", 3, None),
        ]
        store.adjudicate("judy", "q1", "d1", 2, note="partly relevant")
        assert disagreements(store)[0].adjudicated == 2
        assert store.adjudications()[("q1", "d1")].assessor == "judy"
        assert "judy" not in store.assessors()
        store.undo("judy")
        assert store.adjudications() == {}
        assert all(j.action != "adjudicate" for j in store.current_judgments())


def test_reopen_keeps_everything(location: Path | str, make_campaign) -> None:
    path = make_campaign(location)
    with CampaignStore.open(path) as store:
        store.record("alice", "q1", "d1", grade=3)
    with CampaignStore.open(path) as store:
        assert store.current("alice", "q1", "d1").grade == 3  # type: ignore[union-attr]
        assert len(store.log()) == 1


def test_sql_lives_in_the_backend_only() -> None:
    """The store interface and the read models are backend-neutral: no SQL outside the backends and the SQL
    they share (toolkit/judging/sqlite/, postgres/, sql/)."""
    import re

    import toolkit.judging

    root = Path(toolkit.judging.__file__).parent
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "sqlite3" not in text, path
        assert not re.search(r"\b(SELECT|INSERT|UPDATE|DELETE|PRAGMA)\s", text), path


def test_open_gives_the_sqlite_backend_of_the_interface(sqlite_store: CampaignStore) -> None:
    from toolkit.judging.sqlite import SQLiteStore

    assert isinstance(sqlite_store, SQLiteStore) and isinstance(sqlite_store, CampaignStore)
    assert sqlite_store.location == str(sqlite_store.path)
    with pytest.raises(TypeError, match="abstract"):
        CampaignStore()  # type: ignore[abstract]
