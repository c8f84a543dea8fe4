"""Benchmark: ``trec-toolkit audit`` of the example workspace, and ``compare`` of two small runs, per call.

No other tool runs an audit, so the side-by-side is with an earlier version of this repository (``--before
REF``): the same commands on that version's source, checked out with ``git archive`` into a temporary folder
and put first on ``PYTHONPATH`` (the workspace's own subprocesses, ``{python} -m toolkit.example``, inherit
it, so every process runs that version).

Rows, each the median of ``--repeat`` calls after one untimed call (the first audit runs the two systems and
builds the qrels; the timed ones reuse the runs, as the test suite's audits mostly do); the versions' calls
take turns, so both see the same load:

1. **audit, command** — ``python -m toolkit audit`` in its own process: wall, CPU of the process and every
   process it waited for (the systems' pre-flight checks, ``[docs] ids``, the doc source), peak RSS;
2. **audit, in process** — ``run_audit`` called again in one warm process (what a notebook or the test
   suite's ``CliRunner`` pays per call): CPU, with the regex truth, ``compare_runs`` and the plots apart;
3. **compare, command** — ``python -m toolkit compare`` of two 12-topic runs (json): wall, CPU, peak RSS, and
   how many modules it imported.

Usage: ``.venv/bin/python bench/bench_audit.py [--repeat 5] [--before REF|none]``. The machine is shared: note
the load average printed with the table; other processes on the same cores change the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

REPO = Path(__file__).resolve().parents[1]

IN_PROCESS = r"""
import json, sys, time
import toolkit.pipeline.audit as audit
import toolkit.pipeline.truth as truth
import toolkit.reports as reports
import toolkit.reports.plots as plots
import toolkit.stats.comparison as comparison

spent = {}

def timed(module, name, key):
    inner = getattr(module, name)
    def wrapper(*args, **kwargs):
        c = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[key] = spent.get(key, 0.0) + time.process_time() - c
    setattr(module, name, wrapper)

timed(truth, "build_qrels", "truth_cpu_s")
timed(comparison, "compare_runs", "compare_runs_cpu_s")
timed(plots, "render_plots", "plots_cpu_s")
repeat = int(sys.argv[1])
audit.run_audit(None)
rows = []
for _ in range(repeat):
    spent.clear()
    c = time.process_time()
    audit.run_audit(None)
    rows.append({"cpu_s": time.process_time() - c, **spent})
print(json.dumps({k: sorted(r[k] for r in rows)[len(rows) // 2] for k in rows[0]}))
"""


def _fail(argv: list[str], code: int, err: str) -> NoReturn:
    raise SystemExit(f"{' '.join(argv[:4])} failed ({code}):\n{err[-3000:]}")


def child(argv: list[str], *, cwd: Path, env: dict[str, str]) -> dict[str, float | str]:
    """``argv`` in a child process: wall, CPU (user + system of it and its reaped descendants), peak RSS."""
    import time

    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # read both pipes to the end, then reap with wait4 for this child's own resource usage
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    import threading

    def drain(stream, into):  # type: ignore[no-untyped-def]
        into.append(stream.read())

    readers = [
        threading.Thread(target=drain, args=(proc.stdout, out_chunks)),
        threading.Thread(target=drain, args=(proc.stderr, err_chunks)),
    ]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    for r in readers:
        r.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = b"".join(err_chunks).decode("utf-8", "replace")
    if proc.returncode != 0:
        _fail(argv, proc.returncode, err)
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
        "stdout": b"".join(out_chunks).decode("utf-8", "replace"),
        "stderr": err,
    }


def small_runs(folder: Path) -> list[str]:
    """Two 12-topic runs of 10 docs and their qrels (3 judged docs a topic, grades 1–2), seeded."""
    import random

    rng = random.Random(1)
    for name in ("a", "b"):
        with open(folder / f"{name}.run", "w") as f:
            for q in range(12):
                docs = list(range(20))
                rng.shuffle(docs)
                f.writelines(f"q{q} Q0 d{d} {i + 1} {10 - i} {name}\n" for i, d in enumerate(docs[:10]))
    with open(folder / "q.qrels", "w") as f:
        for q in range(12):
            f.writelines(f"q{q} 0 d{d} {rng.randint(1, 2)}\n" for d in rng.sample(range(20), 3))
    return [str(folder / "a.run"), str(folder / "b.run"), "--qrels", str(folder / "q.qrels")]


class Version:
    """One version's source and workspace: its samples are taken in turn with the other version's, so both
    see the same load on a shared machine."""

    def __init__(self, label: str, folder: Path, small: list[str]) -> None:
        self.label = label
        self.folder = folder
        self.env = {**os.environ, "PYTHONPATH": str(folder), "PYTHONDONTWRITEBYTECODE": "1"}
        self.env.pop("CI", None)
        self.compare = [sys.executable, "-m", "toolkit", "compare", *small, "--format", "json"]
        self.samples: list[dict[str, float]] = []
        (folder / "in_process_audit.py").write_text(IN_PROCESS)
        self.run([sys.executable, "-m", "toolkit", "audit"])  # runs the systems, builds the qrels
        self.run(self.compare)

    def run(self, argv: list[str]) -> dict[str, float | str]:
        return child(argv, cwd=self.folder, env=self.env)

    def sample(self) -> None:
        audit = self.run([sys.executable, "-m", "toolkit", "audit"])
        warm = self.run([sys.executable, str(self.folder / "in_process_audit.py"), "1"])
        compare = self.run(self.compare)
        imported = self.run([*self.compare[:1], "-X", "importtime", *self.compare[1:]])
        self.samples.append(
            {
                "audit_wall_s": float(audit["wall_s"]),
                "audit_cpu_s": float(audit["cpu_s"]),
                "audit_rss_mb": float(audit["rss_mb"]),
                **{
                    f"warm_{k}": v
                    for k, v in json.loads(str(warm["stdout"]).strip().splitlines()[-1]).items()
                },
                "compare_wall_s": float(compare["wall_s"]),
                "compare_cpu_s": float(compare["cpu_s"]),
                "compare_rss_mb": float(compare["rss_mb"]),
                "compare_modules": sum(
                    1 for line in str(imported["stderr"]).splitlines() if line.startswith("import time:")
                ),
            }
        )

    def row(self) -> dict[str, float]:
        return {k: statistics.median(s[k] for s in self.samples) for k in self.samples[0]}


def checkout(ref: str, folder: Path) -> Path:
    """``ref`` of this repository as files in ``folder`` (source and example workspace alike)."""
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", default="none", help="git ref to compare with (e.g. main), or none")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small = small_runs(folder)
        versions = [Version("HEAD", checkout("HEAD", folder / "now"), small)]
        if args.before != "none":
            versions.append(Version(args.before, checkout(args.before, folder / "before"), small))
        for _ in range(args.repeat):
            for v in versions:
                v.sample()
        rows = [{"label": v.label, **v.row()} for v in versions]
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; median of {args.repeat} calls each\n")
    keys = [k for k in rows[0] if k != "label"]
    print(f"{'':28}" + "".join(f"{str(r['label']):>14}" for r in rows))
    for key in keys:
        cells = "".join(
            f"{r[key]:>14.0f}" if key.endswith("_modules") else f"{r[key]:>14.3f}" for r in rows if key in r
        )
        print(f"{key:28}{cells}")


if __name__ == "__main__":
    main()
