"""A system's output, and its pre-flight check's, is read under the document limit (docs/reliability.md).

``yes`` as a system once filled 17.9 GB before its 8 s timeout acted. The real CLI runs in a subprocess
(``python -m toolkit``), with ``TREC_TOOLKIT_MAX_DOCUMENT`` lowered to 2 MiB; its peak memory is the child's
``ru_maxrss`` from ``wait4``, and a watchdog kills it past 1.5 GiB or two minutes so that a regression fails
instead of taking the machine.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

LIMIT = "2MiB"
KILL_AT = 1536 << 20
#: What the run may use above a run of a system that answers at once (2 MiB read, decoded, parsed).
HEADROOM = 64 << 20

ENDLESS_LINES = ["yes", "d1 {query}"]
ENDLESS_LINE = ["{python}", "-c", "while True: __import__('sys').stdout.write('x' * 65536)", "{query}"]
SLOW_FOREVER = [
    "{python}",
    "-c",
    "import sys, time\nwhile True:\n    print('d1'); sys.stdout.flush(); time.sleep(0.05)",
    "{query}",
]
QUICK = ["{python}", "-c", "print('d1')", "{query}"]


def run(root: Path, args: list[str]) -> tuple[int, str, int, float]:
    """``python -m toolkit ARGS`` in ``root``: exit code, stderr, peak RSS in bytes, seconds taken."""
    err = root / "stderr"
    started = time.monotonic()
    with open(err, "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "toolkit", *args],
            cwd=root,
            env={**os.environ, "TREC_TOOLKIT_MAX_DOCUMENT": LIMIT},
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
        )
        done = threading.Event()
        threading.Thread(target=_watch, args=(proc.pid, done), daemon=True).start()
        _, status, usage = os.wait4(proc.pid, 0)
        done.set()
    return (
        os.waitstatus_to_exitcode(status),
        err.read_text(),
        usage.ru_maxrss * 1024,
        time.monotonic() - started,
    )


def _watch(pid: int, done: threading.Event) -> None:
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


def workspace(
    root: Path, command: list[str], *, timeout: float = 8, preflight: list[str] | None = None
) -> Path:
    (root / "topics").mkdir(parents=True, exist_ok=True)
    (root / "topics" / "t.tsv").write_text("q1\tfirst\nq2\tsecond\n", encoding="utf-8")
    lines = [
        "[workspace]",
        'topics = "topics/t.tsv"',
        "[systems.s]",
        f"command = {json.dumps(command)}",
        "workers = 1",
        "retries = 0",
        f"timeout = {timeout}",
    ]
    if preflight is not None:
        lines.append(f"preflight = {json.dumps(preflight)}")
    (root / "toolkit.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def quick_peak(tmp_path_factory: pytest.TempPathFactory) -> int:
    root = workspace(tmp_path_factory.mktemp("quick"), QUICK)
    code, err, rss, _ = run(root, ["run", "s"])
    assert code == 0, err
    return rss


@pytest.mark.parametrize("command", [ENDLESS_LINES, ENDLESS_LINE], ids=["yes", "one endless line"])
def test_a_system_that_never_stops_printing_fails_its_topics_in_bounded_memory(
    tmp_path: Path, quick_peak: int, command: list[str]
) -> None:
    # a timeout far off: the size limit, not the clock, must stop it (the reason below says which did)
    code, err, rss, _ = run(workspace(tmp_path, command, timeout=100), ["run", "s"])
    assert code == 1, err
    reason = (
        "printed more than 2 MiB, the limit for one document (TREC_TOOLKIT_MAX_DOCUMENT); "
        "check the command or raise the limit"
    )
    assert reason in err, err
    manifest = json.loads((tmp_path / "runs" / "s.run.json").read_text())
    assert [(f["query_id"], f["reason"]) for f in manifest["failures"]] == [("q1", reason), ("q2", reason)]
    assert rss < quick_peak + HEADROOM, (rss >> 20, quick_peak >> 20)


def test_a_system_that_prints_slowly_forever_stops_at_its_timeout(tmp_path: Path) -> None:
    code, err, _, _ = run(workspace(tmp_path, SLOW_FOREVER, timeout=1.5), ["run", "s"])
    assert code == 1, err
    assert "timed out after 1." in err, err  # (the watcher's kill at 120 s would be another error)


@pytest.mark.parametrize("check", [["yes"], ENDLESS_LINE[:3]], ids=["yes", "one endless line"])
def test_a_preflight_check_that_never_stops_printing_stops_the_run_in_bounded_memory(
    tmp_path: Path, quick_peak: int, check: list[str]
) -> None:
    code, err, rss, _ = run(workspace(tmp_path, QUICK, preflight=check), ["run", "s"])
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("Error: system 's': pre-flight `")
    assert "printed more than 2 MiB, the limit for one document (TREC_TOOLKIT_MAX_DOCUMENT)" in err
    assert rss < quick_peak + HEADROOM, (rss >> 20, quick_peak >> 20)
    assert not (tmp_path / "runs" / "s.run").exists()
