"""Benchmark: ``trec-toolkit export`` of one judged campaign, this checkout against an older one, side by side.

The console script a user runs (``.venv/bin/trec-toolkit export CAMPAIGN --policy P -o FILE``), each run its own
process, old and new alternately so that both see the same load: wall time, the process's CPU time (user +
system; PostgreSQL's own work is only in the wall time), peak RSS, and the load average when the run ended.
The old code is a tree holding an older ``toolkit/`` (``git archive COMMIT toolkit | tar -x -C DIR``), put
first on ``PYTHONPATH``; the same console script and virtual environment run both. Every old and new
qrels file must be byte-identical, and their manifests equal but for the file's name and time.

The campaign: ``bench_campaign.py``'s (3,000 topics: 171,151 items graded by two assessors), a SQLite file
— copied here first, so neither side writes the original — or a PostgreSQL URL (``campaign copy`` makes one).

Where the old code reads an older campaign schema (an organiser's first open migrates a campaign, and the old code
refuses a newer one), ``--old-campaign`` gives the old side its own copy of the same campaign at its schema (for
example the file before migration, or its ``campaign copy`` on PostgreSQL); the manifests are then compared but
for the campaign file's hash.

Usage: ``.venv/bin/python bench/bench_export.py CAMPAIGN --old DIR [--old-campaign CAMPAIGN] [--repeat 3]
[--policy majority --policy adjudicated]`` (PostgreSQL's password from ``PGPASSWORD``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Manifest fields that differ between any two runs (the file's name, when and how it was made).
VARYING = ("file", "created", "command")


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one process (``os.wait4``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stderr.read().decode() if proc.stderr else ''}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("campaign", help="a campaign .sqlite file or a PostgreSQL campaign URL")
    parser.add_argument("--old", type=Path, required=True, help="a folder holding the old code's toolkit/")
    parser.add_argument(
        "--old-campaign", help="the same campaign at the old code's schema (default: CAMPAIGN)"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--policy", action="append", help="majority, adjudicated … (default: those two)")
    args = parser.parse_args()
    script = str(Path(sys.executable).parent / "trec-toolkit")
    policies = args.policy or ["majority", "adjudicated"]
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        folder = Path(tmp)
        campaigns = {
            side: local_copy(given, folder / f"{side}.sqlite")
            for side, given in (("new", args.campaign), ("old", args.old_campaign or args.campaign))
        }
        if not args.old_campaign:
            campaigns["old"] = campaigns["new"]
        sides = {"old": {**os.environ, "PYTHONPATH": str(args.old.resolve())}, "new": dict(os.environ)}
        rows: dict[tuple[str, str], list[tuple[float, float, float, float]]] = {}
        for i in range(args.repeat):
            for policy in policies:
                for side, env in sides.items():
                    out = folder / f"{side}-{policy}-{i}.qrels"
                    argv = [script, "export", campaigns[side], "--policy", policy, "-o", str(out)]
                    wall, cpu, rss = timed(argv, folder, env)
                    load = os.getloadavg()[0]
                    rows.setdefault((policy, side), []).append((wall, cpu, rss, load))
                    print(
                        f"{policy:12s} {side}  wall {wall:6.2f} s  CPU {cpu:6.2f} s  {rss:5.0f} MB  load {load:.1f}"
                    )
                same(
                    folder / f"old-{policy}-{i}.qrels",
                    folder / f"new-{policy}-{i}.qrels",
                    bool(args.old_campaign),
                )
        print("\n| policy | old wall (s) | old CPU (s) | new wall (s) | new CPU (s) | load |")
        print("|---|---:|---:|---:|---:|---:|")
        for policy in policies:
            old, new = rows[(policy, "old")], rows[(policy, "new")]
            loads = [r[3] for r in old + new]
            print(
                f"| `export --policy {policy}` | {span(old, 0)} | {span(old, 1)} | {span(new, 0)} | {span(new, 1)} "
                f"| {min(loads):.1f}–{max(loads):.1f} |"
            )


def span(rows: list[tuple[float, float, float, float]], column: int) -> str:
    values = sorted(r[column] for r in rows)
    return f"{values[0]:.2f}–{values[-1]:.2f}"


def local_copy(campaign: str, target: Path) -> str:
    """A SQLite campaign copied to ``target`` (neither side writes the original); a URL as given."""
    if campaign.startswith("postgresql:"):
        return campaign
    shutil.copyfile(campaign, target)
    return str(target)


def same(old: Path, new: Path, two_campaigns: bool) -> None:
    """The two sides' qrels byte for byte, and their manifests but for what always differs (and the campaign
    file's name and hash where each side read its own copy)."""
    if old.read_bytes() != new.read_bytes():
        raise SystemExit(f"{old} and {new} differ")
    manifests = [json.loads(Path(f"{p}.json").read_text(encoding="utf-8")) for p in (old, new)]
    for doc in manifests:
        for key in VARYING:
            doc.pop(key, None)
        if two_campaigns:
            doc.pop("inputs", None)
            doc.get("campaign", {}).pop("path", None)
    if manifests[0] != manifests[1]:
        raise SystemExit(f"the manifests of {old} and {new} differ")


if __name__ == "__main__":
    main()
