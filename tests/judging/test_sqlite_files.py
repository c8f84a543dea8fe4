"""The SQLite campaign file (docs/design.md §8, docs/reliability.md): looked at before it is touched, busy said as busy, created whole.

SQLite only: these are the file-level promises of ``toolkit.judging.sqlite`` (docs/reliability.md).
"""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import threading
from pathlib import Path

import pytest

from toolkit.errors import StoreError
from toolkit.judging.sqlite import files
from toolkit.judging.sqlite.schema import SCHEMA_VERSION
from toolkit.judging.store import BusyError, CampaignExistsError, CampaignStore, ReadOnlyError


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def other_program_db(path: Path, *, wal: bool) -> Path:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA application_id = 1234")
    conn.execute("CREATE TABLE notes (x)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("wal", [False, True], ids=["rollback-journal", "wal"])
def test_another_programs_database_is_refused_untouched(tmp_path: Path, wal: bool) -> None:
    path = other_program_db(tmp_path / "notes.db", wal=wal)
    before, mode = digest(path), path.read_bytes()[18:20]
    with pytest.raises(StoreError) as err:
        CampaignStore.open(path)
    assert (
        str(err.value)
        == f"{path}: an SQLite file but not a campaign database; pass the .sqlite file `pool` created"
    )
    assert digest(path) == before and path.read_bytes()[18:20] == mode  # not even switched to WAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]  # no -wal, no -shm beside it


def test_a_plain_sqlite_file_without_our_id_is_refused_untouched(tmp_path: Path) -> None:
    """No application id, no tables: an empty database made by someone else is not ours to fill."""
    path = tmp_path / "blank.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("VACUUM")  # writes a valid header, nothing else
    conn.close()
    before = digest(path)
    with pytest.raises(StoreError, match="an SQLite file but not a campaign database"):
        CampaignStore.open(path, create=True)
    assert digest(path) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "an empty file, not a campaign database; delete it, or pass the .sqlite file `pool` created"),
        (
            b"hello, not sqlite\n" * 100,
            "not a campaign database (not an SQLite file); pass the .sqlite file `pool` created",
        ),
        (
            b"SQLite format 3\x00",
            "not a campaign database (not an SQLite file); pass the .sqlite file `pool` created",
        ),
    ],
    ids=["empty", "text", "truncated-header"],
)
def test_files_that_are_not_databases(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "x.sqlite"
    path.write_bytes(content)
    with pytest.raises(StoreError) as err:
        CampaignStore.open(path, create=True)
    assert str(err.value) == f"{path}: {message}"
    assert path.read_bytes() == content


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "pipe.sqlite"
    os.mkfifo(path)
    with pytest.raises(StoreError, match=r"not a campaign database \(not a regular file\)"):
        CampaignStore.open(path)


def test_a_campaign_whose_header_still_waits_in_the_wal_opens(tmp_path: Path, make_campaign) -> None:
    """A writer died before its first checkpoint: the main file's header lacks our id, the -wal has it."""
    import subprocess
    import sys

    path = tmp_path / "c.sqlite"
    script = (
        "import os, sqlite3, sys\n"
        "from toolkit.judging.sqlite.schema import MIGRATIONS, APPLICATION_ID\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA journal_mode = WAL'); c.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "c.executescript(MIGRATIONS[0] + f'PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1;')\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    assert int.from_bytes(path.read_bytes()[68:72], "big") != files.APPLICATION_ID
    with CampaignStore.open(path) as store:
        assert (
            store.topics() == []
            and store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        )


@pytest.fixture
def short_busy(monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setattr(files, "BUSY_TIMEOUT_S", 0.3)
    return 0.3


def test_a_held_write_lock_is_reported_busy_and_nothing_is_written(
    tmp_path: Path, make_campaign, short_busy
) -> None:
    path = make_campaign(tmp_path / "c.sqlite")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    with CampaignStore.open(path) as store:
        with pytest.raises(BusyError) as err:
            store.record("alice", "q1", "d1", grade=1)
        assert str(err.value) == (
            f"{path}: the campaign is busy: another process has held its lock for over 0.3 s "
            "(a long import or pool round?); try again when it has finished"
        )
        holder.execute("ROLLBACK")
        store.record("alice", "q1", "d1", grade=1)  # the same store works once the lock is gone
        assert len(store.log()) == 1
    holder.close()


def legacy_rollback_campaign(tmp_path: Path, make_campaign, downgrade) -> Path:
    """A campaign still in rollback-journal mode at schema version 1, as files from before WAL-by-creation."""
    path = make_campaign(tmp_path / "c.sqlite")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    downgrade(conn, 1)
    conn.close()
    return path


def test_wal_switch_waits_for_a_reader_then_says_busy(
    tmp_path: Path, make_campaign, downgrade, short_busy
) -> None:
    path = legacy_rollback_campaign(tmp_path, make_campaign, downgrade)
    reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM topics").fetchone()  # a shared lock: no WAL switch possible
    with pytest.raises(BusyError, match="the campaign is busy"):
        CampaignStore.open(path)
    # the switch is retried, not failed at once: a reader that lets go in time is waited for
    threading.Timer(0.1, lambda: reader.execute("COMMIT")).start()
    with CampaignStore.open(path) as store:
        assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    reader.close()


def test_migration_under_a_held_write_lock_says_busy(
    tmp_path: Path, make_campaign, downgrade, short_busy
) -> None:
    path = make_campaign(tmp_path / "c.sqlite")
    conn = sqlite3.connect(path, isolation_level=None)
    downgrade(conn, 1)
    conn.execute("BEGIN IMMEDIATE")
    with pytest.raises(BusyError, match="the campaign is busy"):
        CampaignStore.open(path)
    conn.execute("ROLLBACK")
    conn.close()
    with CampaignStore.open(path) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_read_only_store_refuses_every_write_before_trying(
    tmp_path: Path, make_campaign, monkeypatch
) -> None:
    """The read-only path in one process (the subprocess tests in test_readonly.py use real permissions)."""
    path = make_campaign(tmp_path / "c.sqlite")
    monkeypatch.setattr(files, "read_only_reason", lambda p: "no write permission on the file")
    with CampaignStore.open(path) as store:
        assert store.read_only and [t.query_id for t in store.topics()] == ["q1", "401"]
        with pytest.raises(
            ReadOnlyError, match=r"the campaign is read-only \(no write permission on the file\)"
        ):
            store.record("alice", "q1", "d1", grade=1)
    monkeypatch.undo()
    with CampaignStore.open(path) as store:
        assert not store.read_only and store.log() == []


def test_create_publishes_whole_or_not_at_all(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "c.sqlite"
    with pytest.raises(RuntimeError), CampaignStore.create(path) as store:
        store.set_meta({"k": "v"})
        raise RuntimeError("interrupted")
    assert not path.exists() and list(path.parent.iterdir()) == []
    with CampaignStore.create(path) as store:
        store.set_meta({"k": "v"})
        assert not path.exists()  # built out of sight
    assert sorted(p.name for p in path.parent.iterdir()) == ["c.sqlite"]  # no -wal: checkpointed first
    with CampaignStore.open(path) as store:
        assert store.meta() == {"k": "v"}
    with pytest.raises(CampaignExistsError, match="already exists"), CampaignStore.create(path):
        pass


def test_create_never_replaces_a_campaign_published_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with pytest.raises(CampaignExistsError), CampaignStore.create(path) as store:
        store.set_meta({"who": "slow"})
        with CampaignStore.create(path) as fast:
            fast.set_meta({"who": "fast"})
    with CampaignStore.open(path) as store:
        assert store.meta() == {"who": "fast"}
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == ["c.sqlite"]


def test_create_without_hard_links_renames_without_replacing(tmp_path: Path, monkeypatch) -> None:
    """File systems without hard links: renameat2(RENAME_NOREPLACE), which also refuses to replace."""

    def no_links(src, dst) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "c.sqlite"
    try:
        with CampaignStore.create(path) as store:
            store.set_meta({"who": "first"})
    except StoreError as exc:
        pytest.skip(f"no renameat2 here: {exc}")
    with pytest.raises(CampaignExistsError), CampaignStore.create(tmp_path / "d.sqlite") as store:
        store.set_meta({"who": "second"})
        os.rename(path, tmp_path / "d.sqlite")  # someone else's campaign appears at the name
    with CampaignStore.open(tmp_path / "d.sqlite") as store:
        assert store.meta() == {"who": "first"}
