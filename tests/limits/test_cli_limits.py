"""Hostile inputs through the real command line: a gzip bomb, ``/dev/zero``, an endless line (docs/reliability.md, Input limits).

Each runs ``python -m toolkit`` in a child process and checks the one-line error, the exit code, that
nothing was written, and — for the bomb — the child's peak memory (``ru_maxrss`` from ``wait4``) against the
same command's peak on a valid two-line input: a line reader must stay within 16 MiB of it, a column reader
within its working set of blocks, a reader that holds its input whole within twice the limit. A monitor kills
a child that passes 1.5 GiB, so a reader that reads a bomb whole fails the test instead of taking the machine
down.

The bomb is 1 GiB of blank lines (1.4 MB of gzip, one member repeated), read with the decompression limit
set to 64 MiB: a reader that holds the input whole would need 1 GiB, the limit lets it hold at most 64 MiB.
Every reader skips blank lines, so what stops each of them is the limit and nothing else. A column reader's
working set is larger than 64 MiB, so it is also run with 4 times the limit: a reader that streams peaks no
higher then, one that held its input would need 192 MiB more.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from toolkit.formats import tables

MIB = 1 << 20
LIMIT = 64 * MIB
BOMB = 1 << 30
LINE = b" " * 4095 + b"\n"  # a blank line of 4 KiB: 16,384 of them fill the limit
KILL_AT = 1536 * MIB

LINE_ERROR = (
    "line longer than 1 MiB, the limit for one line (TREC_TOOLKIT_MAX_LINE); check that this is the right "
    "file, or raise the limit (e.g. TREC_TOOLKIT_MAX_LINE=4MiB)"
)
DOCUMENT_ERROR = (
    "document longer than 64 MiB, the limit for one document (TREC_TOOLKIT_MAX_DOCUMENT); check that this is "
    "the right file, or raise the limit (e.g. TREC_TOOLKIT_MAX_DOCUMENT=256MiB)"
)


def bomb_error(size: str, suggested: str) -> str:
    return (
        f"decompresses to more than {size}, the limit for one input (TREC_TOOLKIT_MAX_DECOMPRESSED); check that "
        "this is the right file (a small .gz that expands this far is a decompression bomb), or raise the limit "
        f"(e.g. TREC_TOOLKIT_MAX_DECOMPRESSED={suggested})"
    )


def bomb_line(limit: int) -> int:
    """The line holding the first byte past the limit: 16,384 whole lines fit in 64 MiB."""
    return limit // len(LINE) + 1


#: Readers that hold the input whole, within the limit: the drop-in's qrels (its column path parses them from
#: their bytes, ``toolkit.treceval.fast``).
HELD_WHOLE = {"trec_eval qrels"}
#: Readers that read in big blocks: the column path of runs and qrels (``toolkit.formats.tables``) keeps
#: ``ROTATION`` buffers of ``BLOCK_BYTES`` and works on ``IN_FLIGHT`` blocks at once, each with up to four
#: block-sized arrays (two scratch masks, the block's copy and its rewrite): 12 blocks, whatever the input's size.
BLOCK_READ = {"score run", "score qrels", "trec_eval run"}
BLOCK_SLACK = (tables.ROTATION + 4 * tables.IN_FLIGHT) * tables.BLOCK_BYTES
#: Every other reader here streams, and holds a block of 1 MiB and a line at a time, so its peak is the valid
#: input's plus this slack.
STREAMED_SLACK = 16 * MIB

#: Each command with the hostile input in place of one file ({}), and with a valid file there instead.
COMMANDS = {
    "score run": (["score", "{}", "--qrels", "ok.qrels"], "ok.run"),
    "score qrels": (["score", "ok.run", "--qrels", "{}"], "ok.qrels"),
    "score --topics": (["score", "ok.run", "--qrels", "ok.qrels", "--topics", "{}"], "topics.tsv"),
    "judgments import": (["judgments", "import", "c.sqlite", "{}"], "judgments.tsv"),
    "agree": (["agree", "{}", "--bootstrap", "0"], "judgments.tsv"),
    "pool --docs": (
        ["pool", "ok.run", "--topics", "topics.tsv", "--docs", "{}", "-o", "new.sqlite"],
        "docs.jsonl",
    ),
    "trec_eval run": (["trec_eval", "ok.qrels", "{}"], "ok.run"),
    "trec_eval qrels": (["trec_eval", "{}", "ok.run"], "ok.qrels"),
}
#: The drop-in exits as trec_eval does when it cannot read a file; every other command with 1 (a data error).
EXIT = {"trec_eval run": 2, "trec_eval qrels": 2}
#: The name a hostile file gets for each command (the format is chosen by name).
SUFFIX = {
    "score run": ".run",
    "score qrels": ".qrels",
    "score --topics": ".tsv",
    "judgments import": ".tsv",
    "agree": ".tsv",
    "pool --docs": ".jsonl",
    "trec_eval run": ".run",
    "trec_eval qrels": ".qrels",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from click.testing import CliRunner

    from toolkit.cli import main

    root = tmp_path_factory.mktemp("limits")
    (root / "ok.run").write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\n")
    (root / "ok.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (root / "topics.tsv").write_text("q1\tapple pie\n")
    (root / "judgments.tsv").write_text("alice\tq1\td1\t1\nbob\tq1\td1\t1\n")
    (root / "docs.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "text": f"text of {d}"}) + "\n" for d in ("d1", "d2"))
    )
    cwd = os.getcwd()
    os.chdir(root)
    try:
        made = CliRunner().invoke(
            main, ["pool", "ok.run", "--topics", "topics.tsv", "--docs", "docs.jsonl", "-o", "c.sqlite"]
        )
    finally:
        os.chdir(cwd)
    assert made.exit_code == 0, made.output
    member = gzip.compress(LINE * ((4 * MIB) // len(LINE)), mtime=0)
    bomb = member * (BOMB // (4 * MIB))
    for name, suffix in SUFFIX.items():
        (root / f"bomb-{name.replace(' ', '_').replace('-', '')}{suffix}.gz").write_bytes(bomb)
    return root


def bomb_path(root: Path, name: str) -> Path:
    return root / f"bomb-{name.replace(' ', '_').replace('-', '')}{SUFFIX[name]}.gz"


def run(root: Path, args: list[str], **env: str) -> tuple[int, str, int]:
    """Run ``python -m toolkit ARGS`` in ``root``: exit code, stderr, peak RSS in bytes (killed past 1.5 GiB)."""
    out, err = root / "stdout", root / "stderr"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "toolkit", *args],
            cwd=root,
            env={**os.environ, **env},
            stdout=stdout,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
        )
        done = threading.Event()
        watch = threading.Thread(target=_monitor, args=(proc.pid, done), daemon=True)
        watch.start()
        _, status, usage = os.wait4(proc.pid, 0)
        done.set()
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err.read_text(), usage.ru_maxrss * 1024


def _monitor(pid: int, done: threading.Event) -> None:
    """Kill the child when it passes KILL_AT of memory or two minutes: a hostile input must not hang CI."""
    start = time.monotonic()
    while not done.wait(0.05):
        try:
            with open(f"/proc/{pid}/status") as status:
                rss = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            return
        if rss > KILL_AT or time.monotonic() - start > 120:
            os.kill(pid, signal.SIGKILL)
            return


_baselines: dict[str, int] = {}


def baseline(root: Path, name: str) -> int:
    """The command's peak memory on its valid input (measured once per command)."""
    if name not in _baselines:
        args, valid = COMMANDS[name]
        code, err, rss = run(
            root, [a.replace("{}", valid).replace("new.sqlite", "base.sqlite") for a in args]
        )
        if name == "judgments import":
            assert code == 0, err  # imports the valid file once; later runs of it would find duplicates
        _baselines[name] = rss
    return _baselines[name]


def campaign_log_size(root: Path) -> int:
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(root / "c.sqlite") as store:
        return len(store.log())


@pytest.mark.slow
@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_gzip_bomb_is_refused_in_bounded_memory(workspace: Path, name: str) -> None:
    base = baseline(workspace, name)
    before = campaign_log_size(workspace)
    path = bomb_path(workspace, name)
    args = [a.replace("{}", path.name) for a in COMMANDS[name][0]]
    code, err, rss = run(workspace, args, TREC_TOOLKIT_MAX_DECOMPRESSED="64MiB")
    assert (code, err) == (
        EXIT.get(name, 1),
        f"Error: {path.name}:{bomb_line(LIMIT)}: {bomb_error('64 MiB', '256MiB')}\n",
    )
    if name in HELD_WHOLE:
        bound = base + 2 * LIMIT
    else:
        bound = base + (BLOCK_SLACK if name in BLOCK_READ else STREAMED_SLACK)
    assert rss < bound, f"peak {rss / MIB:.0f} MiB, valid input {base / MIB:.0f} MiB"
    if name in BLOCK_READ:  # the working set is larger than the limit: it must not grow with the input
        larger = 4 * LIMIT
        code, err, more = run(workspace, args, TREC_TOOLKIT_MAX_DECOMPRESSED=f"{larger // MIB}MiB")
        assert (code, err) == (
            EXIT.get(name, 1),
            f"Error: {path.name}:{bomb_line(larger)}: {bomb_error('256 MiB', '1GiB')}\n",
        )
        assert more < rss + STREAMED_SLACK, (
            f"peak {more / MIB:.0f} MiB at 4 times the limit, {rss / MIB:.0f} MiB"
        )
    assert campaign_log_size(workspace) == before
    assert not (workspace / "new.sqlite").exists()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_dev_zero_is_refused(workspace: Path, name: str) -> None:
    before = campaign_log_size(workspace)
    args = [a.replace("{}", "/dev/zero") for a in COMMANDS[name][0]]
    code, err, rss = run(workspace, args)
    message = DOCUMENT_ERROR if name == "pool --docs" else LINE_ERROR
    assert (code, err) == (EXIT.get(name, 1), f"Error: /dev/zero:1: {message}\n")
    assert rss < KILL_AT
    assert campaign_log_size(workspace) == before
    assert not (workspace / "new.sqlite").exists()


@contextmanager
def endless_fifo(path: Path) -> Iterator[Path]:
    """A FIFO that gives ``x`` forever, without a newline, to every process that opens it (again and again)."""
    os.mkfifo(path)
    stop = threading.Event()

    def feed() -> None:
        block = b"x" * 65536
        while not stop.is_set():
            try:
                with open(path, "wb") as fifo:  # waits for a reader
                    while not stop.is_set():
                        fifo.write(block)
            except OSError:  # the reader went away (EPIPE): wait for the next one
                continue

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        yield path
    finally:
        stop.set()
        with suppress(OSError):  # let a writer waiting in open() return
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(timeout=5)
        path.unlink()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_an_endless_line_is_refused(workspace: Path, name: str) -> None:
    before = campaign_log_size(workspace)
    with endless_fifo(workspace / f"endless{SUFFIX[name]}") as path:
        args = [a.replace("{}", path.name) for a in COMMANDS[name][0]]
        code, err, rss = run(workspace, args)
    message = DOCUMENT_ERROR if name == "pool --docs" else LINE_ERROR
    assert (code, err) == (EXIT.get(name, 1), f"Error: {path.name}:1: {message}\n")
    assert rss < KILL_AT
    assert campaign_log_size(workspace) == before
    assert not (workspace / "new.sqlite").exists()


# --------------------------------------------------------------------------- the other readers


def test_toolkit_toml_and_manifests_have_the_line_limit(workspace: Path, tmp_path: Path) -> None:
    """A 2 MiB line in toolkit.toml (read by truth, run, pool, audit …) or in a run's manifest (compare)."""
    for f in ("ok.run", "ok.qrels"):
        (tmp_path / f).write_bytes((workspace / f).read_bytes())
    (tmp_path / "t.toml").write_text('[[topic]]\nid = "q1"\nquery = "x"\ntruth = ["^d1$"]\n')
    (tmp_path / "toolkit.toml").write_text("# " + "x" * (2 * MIB) + "\n")
    code, err, _ = run(tmp_path, ["truth", "--topics", "t.toml", "--runs", "ok.run", "-o", "t.qrels"])
    assert (code, err) == (1, f"Error: {tmp_path / 'toolkit.toml'}:1: {LINE_ERROR}\n")
    (tmp_path / "toolkit.toml").unlink()
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 3.0 b\nq1 Q0 d1 2 2.0 b\n")
    (tmp_path / "b.run.json").write_text('{\n"kind": "run",\n"x": "' + "x" * (2 * MIB) + '"\n}\n')
    code, err, _ = run(tmp_path, ["compare", "ok.run", "b.run", "--qrels", "ok.qrels"])
    assert (code, err) == (1, f"Error: b.run.json:3: {LINE_ERROR}\n")


def test_doc_ids_from_standard_input(workspace: Path) -> None:
    """``truth --doc-ids -`` reads standard input within the limits too: here /dev/zero."""
    (workspace / "t.toml").write_text('[[topic]]\nid = "q1"\nquery = "x"\ntruth = ["^d1$"]\n')
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "toolkit",
                "truth",
                "--topics",
                "t.toml",
                "--doc-ids",
                "-",
                "-o",
                "t.qrels",
            ],
            cwd=workspace,
            stdin=zero,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert (proc.returncode, proc.stderr) == (1, f"Error: <stdin>:1: {LINE_ERROR}\n")
    assert not (workspace / "t.qrels").exists()
