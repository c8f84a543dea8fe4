"""Benchmark: key press → next document displayed in the judging app, on a 10,000-item pool.

Builds a campaign of 100 topics × 100 documents (each a ~2 KB Markdown page) assigned to one assessor,
drives ``JudgeApp`` with Textual's Pilot, and times each grade key from the moment the key is sent until the
screen refresh that shows the next document has completed (a ``call_after_refresh`` callback scheduled when
the document is put on screen). Every measured key includes writing the judgment durably to SQLite
(``synchronous=FULL``) before the cursor moves.

    .venv/bin/python bench/bench_judge.py              # 300 keys, prints median / p95 / max
    .venv/bin/python bench/bench_judge.py --keys 1000 --items 10000
    .venv/bin/python bench/bench_judge.py --url postgresql://user@127.0.0.1:5432/db   # the PostgreSQL store
                                                       # (a fresh campaign, dropped afterwards; PGPASSWORD)

Not a timed test: run it by hand; the README quotes its output.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from toolkit.judging.records import CampaignTopic, Document, Item
from toolkit.judging.store import CampaignStore
from toolkit.model import DEFAULT_GRADES

sys.path.insert(0, str(Path(__file__).parent))
from bench_pg import campaign_url, drop  # noqa: E402

PARAGRAPH = (
    "The `{name}` type conforms to `Hashable`, so instances can be stored in a `Set` or used as `Dictionary` "
    "keys. Use [`hash(into:)`](https://example.org/hash) to feed the essential components to a `Hasher`.\n\n"
)


def document(i: int) -> Document:
    name = f"Symbol{i}"
    text = f"# {name}\n\n" + "".join(PARAGRAPH.format(name=name) for _ in range(8)) + "- one\n- two\n"
    return Document(f"doc-{i:05d}", name, text, hashlib.sha256(text.encode()).hexdigest())


def build(path: Path | str, items: int, per_topic: int = 100) -> None:
    topics = [
        CampaignTopic(
            f"q{t:03d}", f"hashable symbol {t}", "Which page explains it?", "The symbol's page.", "prose"
        )
        for t in range((items + per_topic - 1) // per_topic)
    ]
    pool = [(topics[i // per_topic].query_id, f"doc-{i:05d}") for i in range(items)]
    with CampaignStore.open(path, create=True) as store:
        store.set_topics(topics, DEFAULT_GRADES)
        store.add_round(
            strategy="depth",
            depth=per_topic,
            budget=None,
            runs=["bench"],
            provenance={key: [("bench", 1)] for key in pool},
            queued=pool,
            stale=[],
            snapshots=[document(i) for i in range(items)],
            skipped=0,
        )
        store.add_assignments(Item("alice", q, d, position=i) for i, (q, d) in enumerate(pool))


async def settle(app) -> None:
    """Wait for the app's workers; one cancelled by a newer one (exclusive fetches) is not an error."""
    from textual.worker import WorkerCancelled

    with contextlib.suppress(WorkerCancelled):
        await app.workers.wait_for_complete()


async def measure(path: Path | str, keys: int) -> tuple[list[float], float]:
    from toolkit.tui.judge import judge_app
    from toolkit.tui.widgets import DocumentView

    started = time.perf_counter()
    app = judge_app(path, "alice", show_times=False)
    displayed: dict[str, float] = {}
    original = app.document_shown

    def document_shown() -> None:
        """The app put a document on screen; note the time once that refresh has been painted."""
        original()
        doc_id = app.query_one(DocumentView).doc_id
        app.call_after_refresh(lambda: displayed.setdefault(str(doc_id), time.perf_counter()))

    app.document_shown = document_shown  # type: ignore[method-assign]
    latencies: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app)
        await pilot.pause()
        startup = time.perf_counter() - started
        for k in range(keys):
            view = app.query_one(DocumentView)
            before = view.doc_id
            upcoming = app.session.upcoming(1)
            if not upcoming:
                break
            target = upcoming[0].doc_id
            t0 = time.perf_counter()
            await pilot.press(str(k % 4))
            while target not in displayed:
                await pilot.pause(0.001)
            latencies.append((displayed[target] - t0) * 1000)
            assert view.doc_id == target != before
            await settle(app)
    return latencies, startup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--url", default=None, help="a PostgreSQL server URL (no campaign) instead of SQLite")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        name = f"bench_{uuid.uuid4().hex[:12]}"
        path: Path | str = Path(tmp) / "bench.sqlite" if args.url is None else campaign_url(args.url, name)
        try:
            t = time.perf_counter()
            build(path, args.items)
            print(f"built a {args.items}-item campaign in {time.perf_counter() - t:.1f} s", file=sys.stderr)
            latencies, startup = asyncio.run(measure(path, args.keys))
        finally:
            if args.url is not None:
                drop(args.url, name)
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    store = "SQLite" if args.url is None else "PostgreSQL"
    print(f"{store} store, pool: {args.items} items; app start to first document: {startup * 1000:.0f} ms")
    print(
        f"key → next document displayed over {len(latencies)} keys: median {statistics.median(latencies):.1f} ms, "
        f"p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
