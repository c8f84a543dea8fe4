"""Benchmark: ``trec-toolkit score`` with an MS MARCO-sized topic set.

Generates N topics (default 1,000,000) in each topic format the toolkit reads line by line or as a document
(TSV, JSONL, TREC SGML, Web-track XML), a run of 1,000 of those topics × 100 docs and qrels for them, then
times ``trec-toolkit score RUN --qrels QRELS --topics TOPICS`` (every topic counts in ``n``; those nobody
judged score 0) in its own subprocess: median wall time of the repetitions and peak RSS (the child's
``ru_maxrss``). Beside it, what a notebook would do to load the TSV topics: ``pandas.read_csv`` (no
validation). The goal is ≤ 10 s and ≤ 600 MB for 1,000,000 topics.

Usage: ``.venv/bin/python bench/bench_topics.py [--topics 1000000] [--repeat 3] [--formats tsv,jsonl,trec,xml]``.
The machine is shared: the load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ["swift", "hashable", "url", "session", "grid", "lazy", "async", "string", "dict", "json", "decoder"]

PANDAS = r"""
import csv, sys, pandas
frame = pandas.read_csv(sys.argv[1], sep="\t", header=None, names=["id", "query"], dtype=str, quoting=csv.QUOTE_NONE)
assert len(frame) == int(sys.argv[2]), len(frame)
"""


def generate(folder: Path, topics: int, formats: list[str], seed: int = 26) -> dict[str, Path]:
    """The topic files, and a run and qrels over the first 1,000 topics."""
    rng = random.Random(seed)
    queries = [
        " ".join(rng.choice(WORDS) for _ in range(4)) for _ in range(1000)
    ]  # reused: text is not the point
    writers = {
        "tsv": ("t.tsv", "", lambda i, q: f"q{i}\t{q}\n", ""),
        "jsonl": ("t.jsonl", "", lambda i, q: f'{{"id": "q{i}", "query": "{q}"}}\n', ""),
        "trec": ("t.txt", "", lambda i, q: f"<top>\n<num> Number: q{i}\n<title> {q}\n</top>\n\n", ""),
        "xml": (
            "t.xml",
            "<topics>\n",
            lambda i, q: f'<topic number="q{i}"><query>{q}</query></topic>\n',
            "</topics>\n",
        ),
    }
    out: dict[str, Path] = {}
    for name in formats:
        file_name, head, line, tail = writers[name]
        path = folder / file_name
        with open(path, "w") as f:
            f.write(head)
            for start in range(0, topics, 10_000):
                f.write(
                    "".join(line(i, queries[i % 1000]) for i in range(start, min(start + 10_000, topics)))
                )
            f.write(tail)
        out[name] = path
    with open(folder / "r.run", "w") as run, open(folder / "q.qrels", "w") as qrels:
        for i in range(min(1000, topics)):
            docs = rng.sample(range(5000), 100)
            run.write("".join(f"q{i} Q0 D{d} {r} {100 - r} r\n" for r, d in enumerate(docs, 1)))
            qrels.write("".join(f"q{i} 0 D{d} {rng.randrange(3)}\n" for d in rng.sample(docs, 20)))
    out["run"], out["qrels"] = folder / "r.run", folder / "q.qrels"
    return out


def run_measured(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system: what a loaded machine inflates least) and peak RSS (MB) of
    ``argv`` in a child process."""
    wrapper = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "dt = time.perf_counter() - t\n"
        "sys.stderr.write(p.stderr.decode()[-2000:] if p.returncode else '')\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(dt, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024, p.returncode, file=sys.stderr)\n"
        "sys.exit(p.returncode)\n"
    )
    proc = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    seconds, cpu, rss, _ = proc.stderr.strip().splitlines()[-1].split()
    return float(seconds), float(cpu), float(rss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default="tsv,jsonl,trec,xml")
    args = parser.parse_args()
    formats = args.formats.split(",")
    toolkit = str(Path(sys.executable).with_name("trec-toolkit"))
    print(f"load average at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        files = generate(folder, args.topics, formats)
        print(
            f"generated {args.topics:,} topics in {len(formats)} formats in {time.perf_counter() - t0:.1f} s"
        )
        (folder / "pandas_topics.py").write_text(PANDAS)
        cases: dict[str, list[str]] = {}
        for name in formats:
            cases[f"score, {name} topics"] = [
                toolkit,
                "score",
                "--no-workspace",
                str(files["run"]),
                "--qrels",
                str(files["qrels"]),
                "--topics",
                str(files[name]),
            ]
        if "tsv" in formats:
            cases["pandas.read_csv, tsv topics (no scoring)"] = [
                sys.executable,
                str(folder / "pandas_topics.py"),
                str(files["tsv"]),
                str(args.topics),
            ]
        # a gauge of the machine's state, not a competitor: compare its time across runs to compare their load
        cases["reference: a million str keys into a dict (load gauge)"] = [
            sys.executable,
            "-c",
            "d = {str(i): i for i in range(1_000_000)}",
        ]
        times: dict[str, list[float]] = {name: [] for name in cases}
        peaks: dict[str, list[float]] = {name: [] for name in cases}
        cpus: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.repeat):  # interleaved: load that changes over the minutes hits every case alike
            for name, argv in cases.items():
                seconds, cpu, rss = run_measured(argv)
                times[name].append(seconds)
                cpus[name].append(cpu)
                peaks[name].append(rss)
                print(f"  {name}: {seconds:.2f} s ({cpu:.2f} s CPU), {rss:.0f} MB", flush=True)
        print(f"\nload average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.topics:,} topics\n")
        print("| what | median wall (s) | runs (s) | median CPU (s) | peak RSS (MB) |")
        print("|---|---:|---|---:|---:|")
        for name in cases:
            runs = ", ".join(f"{t:.2f}" for t in times[name])
            median, cpu = statistics.median(times[name]), statistics.median(cpus[name])
            print(f"| {name} | {median:.2f} | {runs} | {cpu:.2f} | {max(peaks[name]):.0f} |")


if __name__ == "__main__":
    main()
