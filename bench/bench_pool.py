"""Benchmark: ``trec-toolkit pool`` end to end, on generated data and on the example workspace.

**Generated** (the goal: ≤ 15 s and ≤ 600 MB): 4 runs × 3,000 topics, each run ranking the same 90
candidate documents of a topic in its own random order, pooled at depth 20 — the union of four random
top-20s of 90 is 90·(1 − (70/90)⁴) ≈ 57 documents a topic, ≈ 171,000 items — from a JSONL corpus of every
candidate (270,000 documents of ~600 bytes, ≈ 190 MB). Timed: the first round (read the runs, pool, stream
the corpus, snapshot every pooled document into a new campaign) and a second identical round (nothing new:
no fetch). Peak RSS is the child's ``ru_maxrss``.

**Example** (goal: ≤ 3 s at depth 10): the committed runs of this workspace pooled at depth 10 with the
workspace's ``[docs]`` (the example's batch doc command), after the corpus cache is built (not timed).

Each scenario runs the real CLI in its own subprocess, ``--repeat`` times: median wall time, median CPU time
(user + system of the process and the doc commands it waited for: what a busy machine cannot inflate),
largest peak RSS.
Usage: ``.venv/bin/python bench/bench_pool.py [--topics 3000] [--runs 4] [--depth 20] [--repeat 1]
[--only generated|example]``. The machine may be shared: other processes change the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = 90
WORDS = [f"w{i}" for i in range(5000)]


def generate(folder: Path, *, topics: int, runs: int, seed: int = 7) -> list[Path]:
    """Topics TSV, run files and the JSONL corpus; returns the run paths."""
    rng = random.Random(seed)
    (folder / "topics.tsv").write_text("".join(f"q{t}\tquery {t}\n" for t in range(topics)), encoding="utf-8")
    paths = []
    for r in range(runs):
        path = folder / f"run{r}.run"
        with path.open("w", encoding="utf-8") as out:
            for t in range(topics):
                docs = [f"t{t}-d{j}" for j in range(CANDIDATES)]
                rng.shuffle(docs)
                out.writelines(
                    f"q{t} Q0 {d} {rank} {CANDIDATES - rank + 1} run{r}\n" for rank, d in enumerate(docs, 1)
                )
        paths.append(path)
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for t in range(topics):
            for j in range(CANDIDATES):
                text = " ".join(rng.choices(WORDS, k=100))
                out.write(json.dumps({"doc_id": f"t{t}-d{j}", "title": f"Doc {t}/{j}", "text": text}) + "\n")
    return paths


def timed(argv: list[str], cwd: Path) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), this child's own peak RSS in MB (``os.wait4``), stdout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed:\n{err.read().decode()}")
        cpu = usage.ru_utime + usage.ru_stime
        return elapsed, cpu, usage.ru_maxrss / 1024, out.read().decode().strip()


def bench_generated(args: argparse.Namespace) -> None:
    cli = [sys.executable, "-m", "toolkit"]
    with tempfile.TemporaryDirectory(prefix="bench-pool-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        runs = generate(folder, topics=args.topics, runs=args.runs)
        size = (folder / "corpus.jsonl").stat().st_size / 1e6
        print(
            f"generated {args.runs} runs x {args.topics} topics, corpus {size:.0f} MB in "
            f"{time.perf_counter() - start:.1f} s"
        )
        firsts, seconds, peaks = [], [], []
        for i in range(args.repeat):
            campaign = folder / f"c{i}.sqlite"
            argv = [
                *cli,
                "pool",
                *map(str, runs),
                "--topics",
                "topics.tsv",
                "--depth",
                str(args.depth),
                "--docs",
                "corpus.jsonl",
                "-o",
                str(campaign),
            ]
            wall, cpu, peak, out = timed(argv, folder)
            firsts.append((wall, cpu))
            peaks.append(peak)
            print(f"  round 1: {wall:.2f} s wall, {cpu:.2f} s CPU, peak RSS {peak:.0f} MB: {out}")
            wall, cpu, peak, out = timed(argv, folder)
            seconds.append((wall, cpu))
            print(f"  round 2: {wall:.2f} s wall, {cpu:.2f} s CPU: {out.splitlines()[0]}")
        print(
            f"generated: round 1 median {median(firsts)}, round 2 median {median(seconds)}, "
            f"peak RSS {max(peaks):.0f} MB (goal ≤ 15 s, ≤ 600 MB)"
        )


def bench_example(args: argparse.Namespace) -> None:
    subprocess.run([sys.executable, "-m", "toolkit.example", "build"], check=True, capture_output=True)
    walls = []
    with tempfile.TemporaryDirectory(prefix="bench-pool-example-") as tmp:
        folder = Path(tmp)
        for name in ("toolkit.toml", "topics", "runs", "judging"):
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("*.sqlite*"))
            elif source.exists():
                shutil.copy(source, folder / name)
        runs = sorted(str(p.relative_to(folder)) for p in (folder / "runs").glob("*.run"))
        for i in range(args.repeat):
            argv = [
                sys.executable,
                "-m",
                "toolkit",
                "pool",
                *runs,
                "--depth",
                "10",
                "-o",
                f"judging/e{i}.sqlite",
            ]
            wall, cpu, _, out = timed(argv, folder)
            walls.append((wall, cpu))
            print(f"  example: {wall:.2f} s wall, {cpu:.2f} s CPU: {out.splitlines()[0]}")
    print(f"example: median {median(walls)} at depth 10 (goal ≤ 3 s)")


def median(times: list[tuple[float, float]]) -> str:
    wall = statistics.median(t[0] for t in times)
    cpu = statistics.median(t[1] for t in times)
    return f"{wall:.2f} s wall ({cpu:.2f} s CPU)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", choices=("generated", "example"))
    args = parser.parse_args()
    if args.only != "example":
        bench_generated(args)
    if args.only != "generated":
        bench_example(args)


if __name__ == "__main__":
    main()
