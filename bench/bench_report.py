"""Benchmark: the organiser's progress report on one judged campaign, this checkout against an older one.

``progress_report(store)`` three times in one process after start-up (the organiser's screen refreshes it
every 2 s), old and new code alternately, each run its own process, so that both see the same load: wall and
CPU time of each report (the client's; PostgreSQL's own work is only in the wall time) and the load average.
The old code is a tree holding an older ``toolkit/`` (``git archive COMMIT toolkit | tar -x -C DIR``), put
first on ``PYTHONPATH``. Both sides must report the same: the hash of the report's ``repr`` is compared.

The campaign: ``bench_campaign.py``'s (``--keep DIR``; 3,000 topics: 171,151 items graded by two assessors), a
SQLite file — copied here first, so neither side writes the original — or a PostgreSQL URL (``campaign copy``
makes one). Its import records no reading times, so its medians are empty; ``--reading-times`` gives the SQLite
copy a reading time on every event (500–20,499 ms) as the judging screens record them, and rebuilds what the
database keeps from the log as the migrations build it (the copy's log and kept tables lose the triggers that
guard and keep them: it is for reading only). ``campaign copy`` of that copy makes the PostgreSQL one.

Where the old code reads an older campaign schema (an organiser's open migrates a campaign, and the old code
refuses a newer one), ``--old-campaign`` gives the old side its own copy of the same campaign at its schema (the
file before migration, or its ``campaign copy`` by the old code on PostgreSQL); the reports must still be equal.

Usage: ``.venv/bin/python bench/bench_report.py CAMPAIGN --old DIR [--old-campaign CAMPAIGN] [--reading-times]
[--repeat 2]``
(PostgreSQL's password from ``PGPASSWORD``).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

REPORT = r"""
import hashlib, os, sys, time
from toolkit.judging.progress import progress_report
from toolkit.judging.store import CampaignStore

with CampaignStore.open(sys.argv[1]) as store:
    times = []
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        report = progress_report(store)
        times.append(f"{time.perf_counter() - t:.2f}/{time.process_time() - c:.2f}")
print(" ".join(times), hashlib.sha256(repr(report).encode()).hexdigest()[:16])
"""


def with_reading_times(path: Path) -> None:
    """Give every event of the SQLite campaign ``path`` a reading time, and rebuild the decisions in force and
    the report's kept counts from the log with the statements the migrations fill them with."""
    from toolkit.judging.sql import counts, decisions
    from toolkit.judging.sql.dialect import SQLITE

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    kept = ("judgment_log", "decisions_in_force")
    for (name,) in conn.execute(
        f"SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN {kept}"
    ).fetchall():
        conn.execute(f"DROP TRIGGER {name}")  # the log's guards, and the triggers that keep the counts
    conn.execute("UPDATE judgment_log SET duration_ms = 500 + (id * 7919) % 20000")
    for table in ("decisions_in_force", counts.QUEUE.name, counts.WINDOWS.name):
        conn.execute(f"DELETE FROM {table}")
    conn.execute(decisions.build())
    for statement in counts.build(SQLITE):
        conn.execute(statement)
    conn.execute("COMMIT")
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("campaign", help="a campaign .sqlite file or a PostgreSQL campaign URL")
    parser.add_argument("--old", type=Path, required=True, help="a folder holding the old code's toolkit/")
    parser.add_argument(
        "--old-campaign", help="the same campaign at the old code's schema (default: CAMPAIGN)"
    )
    parser.add_argument("--reading-times", action="store_true", help="a reading time on every event (SQLite)")
    parser.add_argument("--repeat", type=int, default=2, help="processes per side")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        given = {"new": args.campaign, "old": args.old_campaign or args.campaign}
        if args.reading_times and any("://" in c for c in given.values()):
            raise SystemExit("--reading-times: make the SQLite copy, then `campaign copy` it to PostgreSQL")
        campaigns = {
            side: local_copy(c, Path(tmp) / f"{side}.sqlite", args.reading_times) for side, c in given.items()
        }
        if not args.old_campaign:
            campaigns["old"] = campaigns["new"]
        script = Path(tmp) / "report.py"
        script.write_text(REPORT, encoding="utf-8")
        hashes = set()
        for _ in range(args.repeat):
            for side, path in (("old", str(args.old.resolve())), ("new", "")):
                env = dict(os.environ)
                if path:
                    env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
                out = subprocess.run(
                    [sys.executable, str(script), campaigns[side]],
                    env=env,
                    cwd=tmp,
                    capture_output=True,
                    text=True,
                )
                if out.returncode:
                    raise SystemExit(f"{side}: {out.stderr}")
                times, digest = out.stdout.split()[:-1], out.stdout.split()[-1]
                hashes.add(digest)
                load = os.getloadavg()[0]
                print(
                    f"{side}: report wall/CPU (s) {' '.join(times)}  load {load:.2f}  repr {digest}",
                    flush=True,
                )
        if len(hashes) != 1:
            raise SystemExit("the old and new reports differ")


def local_copy(campaign: str, target: Path, reading_times: bool) -> str:
    """A SQLite campaign copied to ``target`` (neither side writes the original), with a reading time on
    every event if asked; a URL as given."""
    if "://" in campaign:
        return campaign
    source = sqlite3.connect(campaign)
    with sqlite3.connect(target) as copy:
        source.backup(copy)
    source.close()
    if reading_times:
        with_reading_times(target)
    return str(target)


if __name__ == "__main__":
    main()
