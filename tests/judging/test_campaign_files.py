"""A campaign file among other people and on bad days: a folder others may write, a full disk, a bad page.

- **Shared folders** (mode 1777): another user's read commands must not leave ``-wal``/``-shm`` files it owns
  beside the campaign, after which every write of the campaign's owner failed "read-only". Run as two
  unprivileged users (``setpriv`` with arbitrary uids; CI runs as root).
- **A full disk**: reads of an existing campaign work and writes say the disk is full — on a real, small
  file system (a tmpfs mounted for the test; root only).
- **A damaged campaign** (a bad page): reported as damaged, with the command that checks it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkit.errors import StoreError
from toolkit.judging.store import CampaignStore

OWNER, READER = 61001, 61002
SCRIPT = Path(sys.executable).parent / "trec-toolkit"


def _as(uid: int | None, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``args`` (a command line) as ``uid`` (None: as this process), stdin closed."""
    prefix = [] if uid is None else ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    env = dict(os.environ, HOME=str(cwd), PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1")
    return subprocess.run(
        [*prefix, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def _python(uid: int, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return _as(uid, sys.executable, "-c", textwrap.dedent(code), cwd=cwd)


@pytest.fixture
def shared() -> Iterator[Path]:
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        if os.environ.get("CI") == "true":
            pytest.fail("the shared-folder tests run as root with setpriv under CI")
        pytest.skip("needs root and setpriv to act as two other users")
    path = Path(tempfile.mkdtemp(prefix="trec-shared-"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path)


_BUILD = f"""
    import os, sys
    sys.path.insert(0, {str(Path(__file__).parent)!r})
    from conftest import build
    from toolkit.judging.store import CampaignStore
    build("c.sqlite")
    os.chmod("c.sqlite", 0o644)  # the owner shares it for reading
    with CampaignStore.open("c.sqlite") as store:
        for assessor, grade in (("alice", 2), ("bob", 3)):
            store.record(assessor, "q1", "d1", grade=grade)
            store.record(assessor, "q1", "d2", grade=1)
            store.record(assessor, "401", "d3", grade=0)
    """
_PROGRESS_SCREEN = """
    import asyncio, sys
    from toolkit.tui.progress import ProgressApp

    async def main():
        app = ProgressApp(sys.argv[1], interval=0)
        async with app.run_test() as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            print(sorted((t.assessor, t.judged) for t in app.report.totals))

    asyncio.run(main())
    """
_RECORD = """
    from toolkit.judging.store import CampaignStore
    with CampaignStore.open("c.sqlite") as store:
        print(store.read_only, store.record("alice", "401", "d1", grade=1))
    """


def _foreign_files(folder: Path) -> list[str]:
    return sorted(
        p.name for p in folder.iterdir() if p.name.startswith("c.sqlite") and p.stat().st_uid != OWNER
    )


def test_another_users_reads_leave_the_campaign_writable_for_its_owner(shared: Path) -> None:
    assert _python(OWNER, _BUILD, shared).returncode == 0
    out = shared / "out"
    out.mkdir()
    out.chmod(0o777)
    reads = [
        [str(SCRIPT), "judgments", "export", "c.sqlite"],
        [str(SCRIPT), "export", "c.sqlite", "--policy", "max", "-o", str(out / "max.qrels")],
        [str(SCRIPT), "agree", "c.sqlite"],
        [sys.executable, "-c", textwrap.dedent(_PROGRESS_SCREEN), "c.sqlite"],  # `progress`, headless
    ]
    for command in reads:
        result = _as(READER, *command, cwd=shared)
        assert result.returncode == 0, (command, result.stderr)
        assert _foreign_files(shared) == [], command  # no -wal, no -shm of the reader's
    assert (out / "max.qrels").read_text() == "q1 0 d1 3\nq1 0 d2 1\n401 0 d3 0\n"
    assert result.stdout == "[('alice', 3), ('bob', 3)]\n"  # the progress screen counted every decision
    wrote = _python(OWNER, _RECORD, shared)
    assert wrote.returncode == 0, wrote.stderr
    assert wrote.stdout.startswith("False ")  # the owner writes, as before the reads


def test_a_reader_sees_the_owners_uncheckpointed_commits_and_creates_nothing(shared: Path) -> None:
    assert _python(OWNER, _BUILD, shared).returncode == 0
    holder = subprocess.Popen(  # the owner judging: commits wait in its -wal, its connection open
        [
            "setpriv",
            f"--reuid={OWNER}",
            f"--regid={OWNER}",
            "--clear-groups",
            sys.executable,
            "-c",
            "import sys\nfrom toolkit.judging.store import CampaignStore\n"
            "s = CampaignStore.open('c.sqlite')\ns.record('carol', 'q1', 'd1', grade=0)\n"
            "print('held', flush=True)\nsys.stdin.readline()\ns.record('carol', 'q1', 'd2', grade=3)\ns.close()\n",
        ],
        cwd=shared,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert (shared / "c.sqlite-wal").stat().st_size > 32  # the commit is in the -wal only
        result = _as(READER, str(SCRIPT), "judgments", "export", "c.sqlite", cwd=shared)
        assert result.returncode == 0, result.stderr
        assert "carol\tq1\td1\t0" in result.stdout
        assert _foreign_files(shared) == []
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        assert holder.wait(timeout=60) == 0  # the owner's next write works
    assert _python(OWNER, _RECORD, shared).returncode == 0


# ---------------------------------------------------------------------------------------------- a full disk


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A 2 MiB tmpfs: a real file system that fills up (mounting needs root)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    path = Path(tempfile.mkdtemp(prefix="trec-full-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(path)], capture_output=True
    )
    if mounted.returncode != 0:
        shutil.rmtree(path)
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot mount a tmpfs: {mounted.stderr!r}")
        pytest.skip("cannot mount a tmpfs here")
    yield path
    subprocess.run(["umount", str(path)], check=True)
    path.rmdir()


def _fill(folder: Path) -> None:
    with open(folder / "filler", "wb", buffering=0) as file:
        try:
            while True:
                file.write(b"\0" * 4096)
        except OSError:
            pass
    assert os.statvfs(folder).f_bavail == 0


def test_on_a_full_disk_reads_work_and_writes_say_the_disk_is_full(small_disk: Path, make_campaign) -> None:
    path = make_campaign(small_disk / "c.sqlite")
    with CampaignStore.open(path) as store:
        store.record("alice", "q1", "d1", grade=2)
        store.record("bob", "q1", "d1", grade=3)
    _fill(small_disk)
    result = _as(None, str(SCRIPT), "export", "c.sqlite", "--policy", "max", cwd=small_disk)
    assert (result.returncode, result.stdout, result.stderr) == (0, "q1 0 d1 3\n", "")
    result = _as(None, str(SCRIPT), "judgments", "export", "c.sqlite", cwd=small_disk)
    assert result.returncode == 0 and result.stdout.count("\n") == 3
    with CampaignStore.open(path) as store:
        assert store.read_only
        with pytest.raises(StoreError) as err:
            store.record("alice", "q1", "d2", grade=1)
    assert (
        str(err.value)
        == f"{path}: cannot write: the disk is full; reading works; free some space and try again"
    )
    (small_disk / "filler").unlink()
    with CampaignStore.open(path) as store:  # space again: the campaign is writable as before
        assert not store.read_only
        store.record("alice", "q1", "d2", grade=1)
        assert len(store.log()) == 3


# ---------------------------------------------------------------------------------------------- a bad page


def test_a_damaged_campaign_is_reported_as_damaged_with_the_check_to_run(
    tmp_path: Path, make_campaign
) -> None:
    path = make_campaign(tmp_path / "c.sqlite")
    with CampaignStore.open(path) as store:
        store.record("alice", "q1", "d1", grade=2)
    conn = sqlite3.connect(path)
    page = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'judgment_log'").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(path, "r+b") as file:  # the log's page overwritten: a bad sector, a torn copy
        file.seek((page - 1) * size)
        file.write(b"\xff" * size)
    result = _as(None, str(SCRIPT), "judgments", "export", "c.sqlite", "--log", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (
        "Error: c.sqlite: the campaign is damaged (database disk image is malformed); check it with "
        "`sqlite3 c.sqlite 'PRAGMA integrity_check'` and restore it from a copy (a backup, or one made earlier "
        "with `trec-toolkit campaign copy`)\n"
    )
    if shutil.which("sqlite3"):  # the advice works: the check finds the damage
        check = subprocess.run(
            ["sqlite3", str(path), "PRAGMA integrity_check"], capture_output=True, text=True
        )
        assert check.stdout.strip() != "ok"
