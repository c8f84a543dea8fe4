"""Benchmark: the per-topic view of a 7,000-topic comparison — file size, and opening it in a browser.

Builds a synthetic study: 7,000 topics in four classes, a corpus of 60,000 documents (a title of ~40
characters and a text of ~400), two runs of depth 100 drawn so that the top 10 of the candidate shares about
half its documents with the baseline's (moves, new documents), 1–3 relevant documents per topic. Then, for
the default ``--topics-shown`` and for every topic (``--topics-shown 0``):

* ``trec-toolkit compare a.run b.run --docs corpus.jsonl --format html`` — wall time and the page's size;
* the page opened from the file in Debian's headless chromium (Playwright, offline, every other request
  blocked): navigation start to the ``load`` event (the script has drawn the first page of the list by then),
  then filtering to "Degraded" and opening a topic (the time the page's own handlers take, measured in the
  page with ``performance.now()``).

What a user would use instead is DiffIR (``pip install diffir``), which renders the rankings of two runs side
by side; it is not timed here: it reads documents and queries only from an ir_datasets dataset, and its
``pytrec-eval`` dependency downloads trec_eval while it builds, which an offline machine cannot do.

    .venv/bin/python bench/bench_topic_view.py                  # 7,000 topics
    .venv/bin/python bench/bench_topic_view.py --topics 1000    # quicker

Not a timed test: run it by hand; docs/benchmarks.md quotes its output. Numbers from a shared machine vary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
SCRIPT = Path(sys.executable).parent / "trec-toolkit"
CLASSES = ("canonical", "fragment", "prose", "attribute")
WORDS = [
    "search",
    "index",
    "query",
    "ranking",
    "document",
    "relevance",
    "judged",
    "pool",
    "topic",
    "run",
    "score",
    "measure",
    "cutoff",
]


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def build(folder: Path, topics: int, corpus: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with open(folder / "corpus.jsonl", "w") as out:
        for i in range(corpus):
            title = f"Document {i}: {text(rng, 4)}"
            out.write(json.dumps({"doc_id": f"doc-{i:06d}", "title": title, "text": text(rng, 60)}) + "\n")
    with open(folder / "t.toml", "w") as out:
        for q in range(topics):
            out.write(f'[[topic]]\nid = "q{q:05d}"\nquery = "{text(rng, 3)}"\nclass = "{CLASSES[q % 4]}"\n\n')
    qrels, base, cand = [], [], []
    for q in range(topics):
        qid = f"q{q:05d}"
        pool = [f"doc-{rng.randrange(corpus):06d}" for _ in range(160)]
        pool = list(dict.fromkeys(pool))
        relevant = rng.sample(pool[:30], rng.randint(1, 3))
        qrels += [f"{qid} 0 {d} {rng.randint(1, 3)}\n" for d in relevant]
        a = pool[:100]
        b = a[:50]
        rng.shuffle(b)  # the candidate reorders the baseline's top half and brings new documents
        b = (b[:5] + pool[100:105] + b[5:])[:100]
        base += [f"{qid} Q0 {d} {r + 1} {1000 - r} a\n" for r, d in enumerate(a)]
        cand += [f"{qid} Q0 {d} {r + 1} {1000 - r} b\n" for r, d in enumerate(b)]
    (folder / "q.qrels").write_text("".join(qrels))
    (folder / "a.run").write_text("".join(base))
    (folder / "b.run").write_text("".join(cand))


def render(folder: Path, shown: str | None) -> tuple[Path, float]:
    out = folder / f"page-{shown or 'default'}.html"
    args = [str(SCRIPT), "compare", "a.run", "b.run", "--qrels", "q.qrels", "--topics", "t.toml"]
    args += ["--docs", "corpus.jsonl", "--primary", "RR@10", "--format", "html", "-o", str(out)]
    if shown is not None:
        args += ["--topics-shown", shown]
    start = time.perf_counter()
    subprocess.run(args, cwd=folder, check=True, capture_output=True)
    return out, time.perf_counter() - start


def browse(page_path: Path, repeats: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    url = page_path.as_uri()
    loads, filters, opens = [], [], []
    blocked: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for _ in range(repeats):
            context = browser.new_context(offline=True, viewport={"width": 1300, "height": 900})
            context.route(
                "**/*",
                lambda r: (
                    r.continue_() if r.request.url == url else (blocked.append(r.request.url), r.abort())
                ),
            )
            page = context.new_page()
            page.goto(url)
            timing = page.evaluate(
                "(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd; })()"
            )
            assert page.locator("#tv-list button").count() > 0
            loads.append(timing / 1000)
            filters.append(
                page.evaluate(
                    """(() => { const s = document.getElementById('tv-bucket'); const t = performance.now();
                    s.value = 'degraded'; s.dispatchEvent(new Event('change'));
                    return performance.now() - t; })()"""
                )
                / 1000
            )
            opens.append(
                page.evaluate(
                    """(() => { const b = document.querySelector('#tv-list button'); const t = performance.now();
                    b.click(); return performance.now() - t; })()"""
                )
                / 1000
            )
            assert page.locator("#tv-detail .tv-doc").count() > 0
            context.close()
        browser.close()
    if blocked:
        raise SystemExit(f"the page tried to fetch {blocked[:3]}")
    return {
        "load": statistics.median(loads),
        "filter": statistics.median(filters),
        "open": statistics.median(opens),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--topics", type=int, default=7000)
    parser.add_argument("--corpus", type=int, default=60000)
    parser.add_argument("--repeats", type=int, default=5, help="page openings per file (median reported)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-topic-view-") as tmp:
        folder = Path(tmp)
        build(folder, args.topics, args.corpus)
        print(
            f"{args.topics} topics, corpus {args.corpus} documents, runs of depth 100; load average {load:.1f}"
        )
        print(
            f"{'--topics-shown':>16} {'compare s':>10} {'page MB':>8} {'open s':>7} {'filter s':>9} {'topic s':>8}"
        )
        for shown in (None, "0"):
            path, took = render(folder, shown)
            size = path.stat().st_size / 1e6
            times = browse(path, args.repeats)
            label = "default" if shown is None else f"{shown} (all)"
            print(
                f"{label:>16} {took:>10.1f} {size:>8.1f} {times['load']:>7.2f} {times['filter']:>9.3f} {times['open']:>8.3f}"
            )


if __name__ == "__main__":
    main()
