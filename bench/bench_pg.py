"""Benchmark: acknowledged judgments per second from many assessors at once into a PostgreSQL campaign.

Builds a fresh campaign on the server (a pool of ``--items`` documents, every assessor assigned every item),
then starts ``--assessors`` processes, each with its own connection, each recording ``--judgments``
judgments as fast as ``record()`` acknowledges them (plus a random think time of 0..``--think-ms``). An
acknowledgement is ``record()`` returning: the judgment is committed with ``synchronous_commit = on``.
Reports the aggregate rate (all acknowledgements / wall time from the common start to the last one) and the
acknowledge latency percentiles over every call. The campaign is dropped afterwards.

    export PGPASSWORD=…                    # never in the URL
    .venv/bin/python bench/bench_pg.py --url postgresql://user@127.0.0.1:5432/db
    .venv/bin/python bench/bench_pg.py --url … --think-ms 50      # the concurrency test's load

With ``--logins`` every assessor process connects as a login role of its own (created for the run, a member
of ``trec_assessor`` only, mapped with ``campaign member``; the server user needs CREATEROLE), so each INSERT
passes the server's row-level security checks, as real assessors' do; without it they connect as the
organiser, whom the checks do not apply to.

The TUI latency on PostgreSQL (key → next document, 10,000-item pool) is bench/bench_judge.py --url ….
Not a timed test: run it by hand; docs/benchmarks.md quotes its output.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
import uuid

from toolkit.judging.records import CampaignTopic, Document, Item
from toolkit.judging.store import CampaignStore
from toolkit.model import DEFAULT_GRADES


def campaign_url(server: str, name: str) -> str:
    return f"{server}{'&' if '?' in server else '?'}campaign={name}"


def build(url: str, assessors: list[str], items: int) -> list[tuple[str, str]]:
    topics = [CampaignTopic(f"q{t}", f"topic {t}") for t in range(10)]
    pool = [(f"q{i % 10}", f"doc-{i:05d}") for i in range(items)]
    with CampaignStore.open(url, create=True) as store:
        store.set_topics(topics, DEFAULT_GRADES)
        store.add_round(
            strategy="depth",
            depth=items,
            budget=None,
            runs=["bench"],
            provenance={key: [("bench", 1)] for key in pool},
            queued=pool,
            stale=[],
            snapshots=[Document(d, d, f"text of {d}", f"hash-{d}") for _, d in pool],
            skipped=0,
        )
        store.add_assignments(Item(a, q, d, i) for a in assessors for i, (q, d) in enumerate(pool))
    return pool


def as_login(url: str, login: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, f"{login}@{host}", parts.path, parts.query, parts.fragment))


def make_logins(server: str, url: str, names: list[str], tag: str) -> dict[str, str]:
    """One login role per assessor (password: $PGPASSWORD), mapped to it; returns name → its campaign URL."""
    from psycopg import sql

    urls = {}
    with admin(server) as conn, CampaignStore.open(url) as store:
        for name in names:
            role = f"{tag}_{name}"
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE trec_assessor").format(
                    sql.Identifier(role), sql.Literal(os.environ.get("PGPASSWORD", ""))
                )
            )
            store.set_login(role, name)
            urls[name] = as_login(url, role)
    return urls


def admin(server: str):
    import psycopg

    from toolkit.judging.postgres.url import parse_campaign_url

    return psycopg.connect(parse_campaign_url(server, campaign_required=False).conninfo, autocommit=True)


def assessor(url: str, name: str, pool, judgments: int, think_ms: float, barrier, out) -> None:
    rng = random.Random(name)
    latencies: list[float] = []
    with CampaignStore.open(url) as store:
        barrier.wait()
        for i in range(judgments):
            if think_ms:
                time.sleep(rng.uniform(0, think_ms / 1000))
            query_id, doc_id = pool[i % len(pool)]
            t0 = time.perf_counter()
            store.record(name, query_id, doc_id, grade=i % 4, duration_ms=i)
            latencies.append((time.perf_counter() - t0) * 1000)
        out.put((name, latencies, time.perf_counter()))


def drop(server: str, name: str, roles: list[str]) -> None:
    from psycopg import sql

    with admin(server) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
        for role in roles:
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("TOOLKIT_TEST_PG"), help="server URL (no campaign)")
    parser.add_argument("--assessors", type=int, default=20)
    parser.add_argument("--judgments", type=int, default=500, help="per assessor")
    parser.add_argument("--think-ms", type=float, default=0.0, help="random think time 0..N ms per judgment")
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument(
        "--logins", action="store_true", help="each assessor as a login of its own (see above)"
    )
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("give --url postgresql://user@host:port/db (or set TOOLKIT_TEST_PG)")
    name = f"bench_{uuid.uuid4().hex[:12]}"
    url = campaign_url(args.url, name)
    names = [f"a{i:02d}" for i in range(args.assessors)]
    roles = [f"{name}_{n}" for n in names] if args.logins else []
    try:
        pool = build(url, names, args.items)
        urls = make_logins(args.url, url, names, name) if args.logins else dict.fromkeys(names, url)
        ctx = mp.get_context("fork")
        barrier, out = ctx.Barrier(args.assessors + 1), ctx.Queue()
        procs = [
            ctx.Process(target=assessor, args=(urls[n], n, pool, args.judgments, args.think_ms, barrier, out))
            for n in names
        ]
        for p in procs:
            p.start()
        barrier.wait()
        start = time.perf_counter()
        results = [out.get(timeout=600) for _ in procs]
        for p in procs:
            p.join()
        end = max(r[2] for r in results)
        latencies = sorted(ms for r in results for ms in r[1])
        with CampaignStore.open(url) as store:
            logged = len(store.log())
    finally:
        drop(args.url, name, roles)
    total = args.assessors * args.judgments
    if logged != total:
        print(f"error: {logged} events logged, {total} acknowledged", file=sys.stderr)
        return 1

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))]

    who = "each as its own login (row-level security)" if args.logins else "as the organiser"
    print(
        f"{args.assessors} assessors × {args.judgments} judgments, {who}, think time 0–{args.think_ms:g} ms: "
        f"{total / (end - start):.0f} acknowledged judgments/s in aggregate ({end - start:.1f} s)"
    )
    print(
        f"acknowledge latency: median {statistics.median(latencies):.1f} ms, p95 {pct(0.95):.1f} ms, "
        f"p99 {pct(0.99):.1f} ms, max {latencies[-1]:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
