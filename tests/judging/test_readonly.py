"""Read-only campaigns (docs/reliability.md): read commands work, writes say "read-only", and nothing is touched.

CI runs as root, and root writes through file modes; so the commands run as the unprivileged user
``nobody`` (``setpriv``, else ``runuser``) in a subprocess — the real CLI, on a campaign in a folder that
user may read. Run without root, the current user's own file modes apply and the commands run directly.
SQLite only: file and folder permissions are this backend's business.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkit.judging.store import CampaignStore

NOBODY = 65534
JUDGMENTS = [
    ("alice", "q1", "d1", 2),
    ("bob", "q1", "d1", 3),
    ("alice", "401", "d3", 1),
    ("bob", "401", "d3", 1),
]
EXPORT_MAX = "q1 0 d1 3\n401 0 d3 1\n"  # max of 2 and 3; 1 and 1
JUDGMENTS_TSV = (
    "assessor\tquery_id\tdoc_id\tgrade\tnote\tduration_ms\n"
    "alice\tq1\td1\t2\t\t\nbob\tq1\td1\t3\t\t\nalice\t401\td3\t1\t\t\nbob\t401\td3\t1\t\t\n"
)


def _drop_privileges() -> list[str]:
    if os.geteuid() != 0:
        return []  # file modes already apply to this user
    if setpriv := shutil.which("setpriv"):
        prefix = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    elif runuser := shutil.which("runuser"):
        prefix = [runuser, "-u", "nobody", "--"]
    else:
        pytest.skip("running as root without setpriv or runuser: cannot test file modes as another user")
    probe = subprocess.run([*prefix, sys.executable, "-c", "import toolkit"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"user nobody cannot run this Python or import toolkit: {probe.stderr.strip()[-200:]}")
    return prefix


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder under the system temp dir that user nobody can reach (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="trec-readonly-"))
    path.chmod(0o755)
    yield path
    for p in [path, *path.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    shutil.rmtree(path)


def as_user(prefix: list[str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HOME=str(cwd), NO_COLOR="1", COLUMNS="200")
    return subprocess.run(
        [*prefix, sys.executable, "-m", "toolkit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def campaign(folder: Path, make_campaign) -> Path:
    path = make_campaign(folder / "c.sqlite")
    with CampaignStore.open(path) as store:
        for assessor, query_id, doc_id, grade in JUDGMENTS:
            store.record(assessor, query_id, doc_id, grade=grade)
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_read_only(folder: Path, path: Path, how: str) -> None:
    """``file``: the campaign file is read-only; ``folder``: its folder is; ``both``. Owned by nobody, so the
    modes are all that stops a write (the folder's -wal and -shm files cannot be created in a read-only one)."""
    if os.geteuid() == 0:
        for p in [folder, *folder.iterdir()]:
            os.chown(p, NOBODY, NOBODY)
    if how in ("file", "both"):
        path.chmod(0o444)
    if how in ("folder", "both"):
        folder.chmod(0o555)


@pytest.mark.parametrize("how", ["file", "folder", "both"])
def test_read_commands_work_and_writes_say_read_only(folder: Path, make_campaign, how: str) -> None:
    prefix = _drop_privileges()
    path = campaign(folder, make_campaign)
    (folder / "j.tsv").write_text("carol\tq1\td1\t1\n")
    before = digest(path)
    make_read_only(folder, path, how)

    r = as_user(prefix, folder, "export", "c.sqlite", "--policy", "max")
    assert (r.returncode, r.stdout, r.stderr) == (0, EXPORT_MAX, "")
    r = as_user(prefix, folder, "judgments", "export", "c.sqlite")
    assert (r.returncode, r.stdout, r.stderr) == (0, JUDGMENTS_TSV, "")
    r = as_user(prefix, folder, "agree", "c.sqlite", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert {p["n"] for p in json.loads(r.stdout)["pairs"]} == {2}  # alice and bob share two graded items

    why = {"file": "no write permission on the file", "folder": "no write permission on its folder"}
    reason = why.get(how, why["file"])
    for args in (
        ["judgments", "import", "c.sqlite", "j.tsv"],
        ["assign", "c.sqlite", "--assessors", "carol"],
    ):
        r = as_user(prefix, folder, *args)
        assert (r.returncode, r.stderr) == (
            1,
            f"Error: c.sqlite: the campaign is read-only ({reason}); reading works, writing needs write "
            "access to the file and its folder\n",
        ), args
    assert digest(path) == before


def test_progress_screen_reads_a_read_only_campaign(folder: Path, make_campaign) -> None:
    prefix = _drop_privileges()
    path = campaign(folder, make_campaign)
    make_read_only(folder, path, "both")
    script = textwrap.dedent(
        """
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
    )
    r = subprocess.run(
        [*prefix, sys.executable, "-c", script, "c.sqlite"],
        cwd=folder,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HOME=str(folder)),
        timeout=120,
    )
    assert (r.returncode, r.stdout) == (0, "[('alice', 2), ('bob', 2)]\n"), r.stderr


def test_read_only_folder_still_sees_commits_waiting_in_the_wal(folder: Path, make_campaign) -> None:
    """A writer left commits in the -wal file (not yet copied into the main file) and the folder became
    read-only: a reader must see them, not the stale main file."""
    prefix = _drop_privileges()
    path = make_campaign(folder / "c.sqlite")
    leave_in_wal = textwrap.dedent(
        """
        import os, sys
        from toolkit.judging.store import CampaignStore
        store = CampaignStore.open(sys.argv[1])
        store._conn.execute("PRAGMA wal_autocheckpoint = 0")
        for assessor, query_id, doc_id, grade in JUDGMENTS:
            store.record(assessor, query_id, doc_id, grade=grade)
        os._exit(0)  # no close: the commits stay in the -wal file
        """
    ).replace("JUDGMENTS", repr(JUDGMENTS))
    subprocess.run([sys.executable, "-c", leave_in_wal, str(path)], check=True)
    assert Path(f"{path}-wal").stat().st_size > 0
    make_read_only(folder, path, "both")
    r = as_user(prefix, folder, "export", "c.sqlite", "--policy", "max")
    assert (r.returncode, r.stdout, r.stderr) == (0, EXPORT_MAX, "")
