"""``-o PATH`` never replaces what is not a file, and its temporary file cannot be redirected (docs/reliability.md).

The real CLI in a subprocess: as root, and as the unprivileged user ``nobody`` (``setpriv``, else
``runuser``). Targets: a FIFO (read by a thread), a character device made in the test's folder (``mknod``
1:3, what ``/dev/null`` is — the machine's own is never touched), a symlink. The redirection attack: another
user plants a symlink where the old writer put its temporary file (``.NAME.tmpPID``, PID known) pointing at
a file only the victim may write. And a writer killed between a file and its manifest: the pair is refused
on read ("manifest does not match"), never taken as consistent.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "tui"))
from tui_helpers import build_campaign  # noqa: E402

from toolkit.errors import FormatError  # noqa: E402
from toolkit.formats.manifest import read_manifest  # noqa: E402
from toolkit.judging.store import CampaignStore  # noqa: E402

NOBODY = 65534
EXPORTED = "t1 0 doc-a 2\nt1 0 doc-b 0\n"


def nobody() -> list[str]:
    """The command prefix that runs as user nobody (root only)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as another user")
    if setpriv := shutil.which("setpriv"):
        prefix = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    elif runuser := shutil.which("runuser"):
        prefix = [runuser, "-u", "nobody", "--"]
    else:
        pytest.skip("neither setpriv nor runuser is installed")
    probe = subprocess.run([*prefix, sys.executable, "-c", "import toolkit"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"user nobody cannot run this Python: {probe.stderr.strip()[-200:]}")
    return prefix


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder every user may use (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="trec-output-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def campaign(folder: Path) -> Path:
    path = build_campaign(folder / "camp.sqlite")
    with CampaignStore.open(path) as store:
        store.record("alice", "t1", "doc-a", grade=2, duration_ms=10)
        store.record("alice", "t1", "doc-b", grade=0, duration_ms=10)
    for p in (path, *path.parent.glob("camp.sqlite*")):
        p.chmod(0o666)
    return path


def toolkit(*args: str, cwd: Path, user: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HOME=str(cwd))
    return subprocess.run(
        [*(user or []), sys.executable, "-m", "toolkit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def read_fifo(path: Path) -> tuple[threading.Thread, list[bytes]]:
    got: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as fifo:
            got.append(fifo.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, got


@pytest.mark.parametrize("as_nobody", [False, True], ids=["root", "nobody"])
@pytest.mark.parametrize(
    "command",
    [["export", "camp.sqlite", "--policy", "max"], ["judgments", "export", "camp.sqlite"]],
    ids=["export", "judgments export"],
)
def test_a_fifo_target_is_written_not_replaced(
    folder: Path, campaign: Path, command: list[str], as_nobody: bool
) -> None:
    user = nobody() if as_nobody else None
    expected = toolkit(*command, cwd=folder).stdout  # what the command prints to stdout
    fifo = folder / "out.qrels"
    os.mkfifo(fifo)
    fifo.chmod(0o666)
    reader, got = read_fifo(fifo)
    done = toolkit(*command, "-o", "out.qrels", cwd=folder, user=user)
    reader.join(30)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a FIFO
    assert got == [expected.encode()] and expected.count("\n") >= 2
    assert not (folder / "out.qrels.json").exists()  # nothing beside a non-file
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_a_character_device_is_written_not_replaced(folder: Path, campaign: Path) -> None:
    """What ``-o /dev/null`` does as root, on a device node of our own (1:3, as /dev/null), never the real one."""
    if os.geteuid() != 0:
        pytest.skip("mknod needs root")
    device = folder / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    for command in (["export", "camp.sqlite", "--policy", "max"], ["judgments", "export", "camp.sqlite"]):
        done = toolkit(*command, "-o", "null", cwd=folder)
        assert done.returncode == 0, done.stderr
        mode = os.lstat(device).st_mode
        assert stat.S_ISCHR(mode) and os.lstat(device).st_rdev == os.makedev(1, 3)
        assert not (folder / "null.json").exists()


def test_a_symlinked_target_is_written_through_the_link(folder: Path, campaign: Path) -> None:
    (folder / "real").mkdir()
    link = folder / "out.qrels"
    link.symlink_to("real/q.qrels")
    done = toolkit("export", "camp.sqlite", "--policy", "max", "-o", "out.qrels", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == "real/q.qrels"  # the link stays
    assert (folder / "real" / "q.qrels").read_text() == EXPORTED
    assert read_manifest(link) is not None  # its manifest matches what the link leads to


def test_a_planted_symlink_cannot_redirect_the_temporary_file(folder: Path) -> None:
    """Another user (nobody) who can write the folder plants ``.out.qrels.tmpPID`` → a file only the victim
    (root) may write, knowing the victim's PID: the victim's write must not go there."""
    user = nobody()
    secret = Path(tempfile.mkdtemp(prefix="trec-victim-")) / "secret"
    secret.write_text("only root writes this\n")
    secret.chmod(0o600)
    victim = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; sys.stdin.readline()\n"
            "from toolkit.formats.textfile import atomic_write_text\n"
            "atomic_write_text(sys.argv[1], 'exported\\n')",
            str(folder / "out.qrels"),
        ],
        stdin=subprocess.PIPE,
        text=True,
        cwd=folder,
    )
    try:
        planted = subprocess.run(
            [*user, "ln", "-s", str(secret), str(folder / f".out.qrels.tmp{victim.pid}")],
            capture_output=True,
            text=True,
        )
        assert planted.returncode == 0, planted.stderr
        assert victim.stdin is not None
        victim.stdin.write("go\n")
        victim.stdin.close()
        assert victim.wait(60) == 0
    finally:
        if victim.poll() is None:
            victim.kill()
    assert secret.read_text() == "only root writes this\n"
    assert (folder / "out.qrels").read_text() == "exported\n"
    shutil.rmtree(secret.parent)


def test_the_temporary_file_has_an_unpredictable_name_made_exclusively(tmp_path: Path) -> None:
    """Every name the old writer could have used is taken by a symlink elsewhere: the write still lands."""
    from toolkit.formats.output import write_output

    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("untouched\n")
    (tmp_path / f".out.txt.tmp{os.getpid()}").symlink_to(elsewhere)
    write_output(tmp_path / "out.txt", b"data\n")
    assert (tmp_path / "out.txt").read_bytes() == b"data\n"
    assert elsewhere.read_text() == "untouched\n"
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(tmp_path / "out.txt").st_mode) == 0o666 & ~mask  # as open() would make it


KILLED_BETWEEN = """
import os, signal, sys
import toolkit.formats.output as output
real = output.write_output
def write_output(path, data):
    if str(path).endswith(".qrels"):  # the manifest went first; die before the qrels
        os.kill(os.getpid(), signal.SIGKILL)
    real(path, data)
output.write_output = write_output
sys.argv = ["trec-toolkit", *sys.argv[1:]]
from toolkit.cli import main
main()
"""


def test_a_writer_killed_between_the_qrels_and_the_manifest_leaves_a_pair_that_is_refused(
    folder: Path, campaign: Path
) -> None:
    first = toolkit("export", "camp.sqlite", "--policy", "max", "-o", "out.qrels", cwd=folder)
    assert first.returncode == 0, first.stderr
    assert read_manifest(folder / "out.qrels") is not None  # a consistent pair
    with CampaignStore.open(campaign) as store:
        store.record("alice", "t2", "doc-d", grade=3, duration_ms=10)
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_BETWEEN, "export", "camp.sqlite", "--policy", "max", "-o", "out.qrels"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL
    assert (folder / "out.qrels").read_text() == EXPORTED  # the old qrels …
    assert (
        json.loads((folder / "out.qrels.json").read_text())["campaign"]["log_events"] == 3
    )  # … new manifest
    with pytest.raises(FormatError, match=r"manifest does not match out\.qrels: the file's sha256 is not"):
        read_manifest(folder / "out.qrels")
