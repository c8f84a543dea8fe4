"""Opt-in pytest plugin: one JSON line per test with its wall time and the CPU time it spent, for tuning the suite.

Why: on a shared two-core machine wall times say little (they double under load), and whether more workers
than cores would help depends on how much of a test's wall time is spent waiting (on a deadline, a terminal,
a browser, a server) rather than computing. CPU seconds — the worker's own plus those of the subprocesses it
waited for (``RUSAGE_CHILDREN``) — are comparable between a quiet and a loaded machine, so before/after
comparisons use them. Servers the test does not wait for (PostgreSQL, chromium kept open) are not counted.

Use: ``TOOLKIT_TEST_TIMINGS=/tmp/t.jsonl pytest …`` (``tests/conftest.py`` registers the hook: adding ``-p
helpers.timings`` registers it twice and writes every line twice; each xdist worker appends its lines; the
file is not truncated). ``python tests/helpers/timings.py /tmp/t.jsonl`` prints totals per file, per
``xdist_group`` and per worker.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path

import pytest


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    target = os.environ.get("TOOLKIT_TEST_TIMINGS")
    wall, cpu = time.monotonic(), _cpu()
    yield
    if not target:
        return
    group = next((m.args[0] for m in item.iter_markers("xdist_group") if m.args), None)
    line = {
        "test": item.nodeid,
        "file": item.nodeid.split("::", 1)[0],
        "group": group,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "start": time.time() - (time.monotonic() - wall),
        "wall": round(time.monotonic() - wall, 3),
        "cpu": round(_cpu() - cpu, 3),
    }
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def summarise(path: Path, top: int = 25) -> str:
    """Totals per file, per group and per worker, the slowest first."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out: list[str] = []
    for key in ("file", "group", "worker"):
        wall: dict[str, float] = defaultdict(float)
        cpu: dict[str, float] = defaultdict(float)
        count: dict[str, int] = defaultdict(int)
        for row in rows:
            name = str(row[key])
            wall[name] += row["wall"]
            cpu[name] += row["cpu"]
            count[name] += 1
        out.append(f"== per {key} (wall s, cpu s, tests)")
        for name in sorted(wall, key=wall.__getitem__, reverse=True)[:top]:
            out.append(f"{wall[name]:9.1f} {cpu[name]:9.1f} {count[name]:6d}  {name}")
    total_wall = sum(r["wall"] for r in rows)
    total_cpu = sum(r["cpu"] for r in rows)
    if rows:
        span = max(r["start"] + r["wall"] for r in rows) - min(r["start"] for r in rows)
        out.append(f"== {len(rows)} tests: wall {total_wall:.1f} s, cpu {total_cpu:.1f} s, span {span:.1f} s")
    return "\n".join(out)


if __name__ == "__main__":
    print(summarise(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 25))
