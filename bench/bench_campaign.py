"""Benchmark: a judged campaign at scale — every command that reads or writes a big campaign, end to end.

Pools ``bench_pool.py``'s generated data (4 runs × ``--topics`` topics at depth 20: ≈ 57 items a topic, ≈ 171,000
items at the default 3,000 topics, every document snapshotted), assigns every item to two assessors
(``--overlap all``), and then times, each in its own process (wall, CPU of the process, peak RSS):

- ``judgments import`` of both assessors' grades (≈ 342,000 lines: one all-or-nothing transaction);
- ``assign`` again (nothing new: must be a no-op, not a rescan per item);
- ``agree CAMPAIGN`` (Cohen's kappa per pair with its topic bootstrap, Fleiss, Krippendorff);
- ``export --policy majority`` and ``--policy adjudicated`` (qrels);
- ``judgments export`` (current judgments) and ``judgments export --log`` (the whole log);

and, in one process, the read models the judging screens query on every key or refresh: the assessor's
next item, the organiser's progress report, the live kappa of every pair, and the adjudication queue of
disagreements. Nothing here may grow faster than the campaign; the printed times say whether it does
(run with ``--topics 1000`` and ``--topics 3000``: every row should scale by about 3).

With ``--pg URL`` (a PostgreSQL server prepared by ``campaign setup`` for the URL's login) the campaign is
then copied there (``campaign copy``) and the reads are timed again on PostgreSQL: both exports,
``judgments export`` and the read models. The goal: ``export`` and the organiser's progress
report ≤ 2 s each at 171,000 items on both backends. The CPU column is the client's: PostgreSQL's own work
is in the wall time only. The campaign is dropped from the server afterwards.

``bench_export.py`` times ``export`` alone on such a campaign, this checkout against an older one side by side.

Usage: ``.venv/bin/python bench/bench_campaign.py [--topics 3000] [--pg postgresql://user@host:port/db]``
(the password from ``PGPASSWORD``). The machine may be shared: other processes change the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pool import generate, timed  # noqa: E402

READ_MODELS = r"""
import json, sys, time
from toolkit.judging.store import CampaignStore
from toolkit.judging.queue import next_item
from toolkit.judging.progress import progress_report
from toolkit.judging.disagreements import disagreements
from toolkit.agreement.judgments import pair_kappas

out = {}
with CampaignStore.open(sys.argv[1]) as store:
    for name, call in (
        ("next item (alice)", lambda: next_item(store, "alice")),
        ("progress report", lambda: progress_report(store)),
        ("live kappa, every pair", lambda: pair_kappas(store)),
        ("disagreements (adjudication queue)", lambda: list(disagreements(store))),
    ):
        t, c = time.perf_counter(), time.process_time()
        call()
        out[name] = time.perf_counter() - t
        if name == "progress report":  # the client's CPU: a shared machine inflates the wall time
            out["progress report (client CPU)"] = time.process_time() - c
    # the organiser's screen refreshes the report every 2 s: a refresh after the first
    t, c = time.perf_counter(), time.process_time()
    progress_report(store)
    out["progress report, a refresh"] = time.perf_counter() - t
    out["progress report, a refresh (client CPU)"] = time.process_time() - c
print(json.dumps(out))
"""


def judgments_file(path: Path, campaign: Path) -> int:
    """Both assessors' grades for every pooled item (correlated: a latent grade kept 7 times in 10)."""
    from toolkit.judging.store import CampaignStore

    rng = random.Random(11)
    with CampaignStore.open(campaign) as store:
        items = [(i.query_id, i.doc_id) for i in store.pool_items()]
    with path.open("w", encoding="utf-8") as out:
        for q, d in items:
            latent = rng.choice((0, 0, 0, 1, 1, 2, 3))
            for who in ("alice", "bob"):
                grade = latent if rng.random() < 0.7 else rng.randrange(4)
                out.write(f"{who}\t{q}\t{d}\t{grade}\n")
    return 2 * len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=3000)
    parser.add_argument("--keep", type=Path, help="build the campaign in this (new) folder and keep it")
    parser.add_argument("--pg", help="also time the reads on a copy on this PostgreSQL server (a URL)")
    args = parser.parse_args()
    cli = [sys.executable, "-m", "toolkit"]
    with tempfile.TemporaryDirectory(prefix="bench-campaign-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        runs = generate(folder, topics=args.topics, runs=4)
        campaign = folder / "c.sqlite"
        rows: list[tuple[str, float, float, float]] = []

        def step(name: str, *argv: str) -> str:
            wall, cpu, rss, out = timed([*cli, *argv], folder)
            rows.append((name, wall, cpu, rss))
            print(f"  {name}: {wall:.2f} s wall, {cpu:.2f} s CPU, {rss:.0f} MB", flush=True)
            return out

        step("pool (depth 20)", "pool", *map(str, runs), "--topics", "topics.tsv", "--depth", "20",
             "--docs", "corpus.jsonl", "-o", str(campaign))  # fmt: skip
        step("assign (2 assessors, overlap all)", "assign", str(campaign), "--assessors", "alice,bob",
             "--overlap", "all")  # fmt: skip
        lines = judgments_file(folder / "judgments.tsv", campaign)
        print(f"{lines:,} judgments to import", flush=True)
        step(f"judgments import ({lines:,} lines)", "judgments", "import", str(campaign), "judgments.tsv")
        step(
            "assign again (nothing new)",
            "assign",
            str(campaign),
            "--assessors",
            "alice,bob",
            "--overlap",
            "all",
        )
        step("agree (bootstrap 2000)", "agree", str(campaign), "--format", "json", "-o", "agree.json")
        step("export --policy majority", "export", str(campaign), "--policy", "majority", "-o", "m.qrels")
        step(
            "export --policy adjudicated", "export", str(campaign), "--policy", "adjudicated", "-o", "a.qrels"
        )
        step("judgments export", "judgments", "export", str(campaign), "-o", "current.tsv")
        step("judgments export --log", "judgments", "export", str(campaign), "--log", "-o", "log.tsv")
        models = {"SQLite": read_models(str(campaign), folder)}
        if args.pg:
            models["PostgreSQL"] = on_postgresql(args.pg, campaign, step)
        print(f"\n{args.topics:,} topics, {lines // 2:,} pool items, {lines:,} judgments")
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
        print("| step | wall (s) | CPU (s) | peak RSS (MB) |\n|---|---:|---:|---:|")
        for name, wall, cpu, rss in rows:
            print(f"| {name} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
        backends = list(models)
        print(f"\n| read model (in process) | {' | '.join(f'{b} (s)' for b in backends)} |")
        print(f"|---|{'---:|' * len(backends)}")
        for name in models["SQLite"]:
            print(f"| {name} | {' | '.join(f'{models[b][name]:.3f}' for b in backends)} |")


def read_models(location: str, folder: Path) -> dict[str, float]:
    started = time.perf_counter()
    models: dict[str, float] = json.loads(timed([sys.executable, "-c", READ_MODELS, location], folder)[3])
    print(f"  read models in one process ({time.perf_counter() - started:.1f} s with start-up)", flush=True)
    return models


def on_postgresql(server: str, campaign: Path, step: Any) -> dict[str, float]:
    """Copy the campaign to ``server``, time the reads there, drop it."""
    import psycopg
    from psycopg import sql

    from toolkit.judging.postgres import setup_campaigns
    from toolkit.judging.postgres.url import parse_campaign_url

    parsed = parse_campaign_url(server, campaign_required=False)
    setup_campaigns(server, organisers=[parsed.user] if parsed.user else [], assessors=[])
    name = f"bench_{uuid.uuid4().hex[:12]}"
    url = f"{server}{'&' if '?' in server else '?'}campaign={name}"
    try:
        step("campaign copy to PostgreSQL", "campaign", "copy", str(campaign), url)
        pg = "(PostgreSQL)"
        step(f"export --policy majority {pg}", "export", url, "--policy", "majority", "-o", "pm.qrels")
        step(f"export --policy adjudicated {pg}", "export", url, "--policy", "adjudicated", "-o", "pa.qrels")
        step(f"judgments export {pg}", "judgments", "export", url, "-o", "pcurrent.tsv")
        return read_models(url, campaign.parent)
    finally:
        with psycopg.connect(parsed.conninfo, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


if __name__ == "__main__":
    main()
