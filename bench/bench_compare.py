"""Benchmark: ``trec-toolkit compare`` at MS MARCO size, its statistics timed apart from scoring, beside ranx.

Generates ``--runs`` runs (default 10) of 6,980 topics × 1,000 docs and human-style qrels (1–3 graded
relevant docs per topic and 5 judged non-relevant) in a temporary directory, then:

1. **in process** — ``compare_runs`` on the run files with the measures ``RR@10 RR@100 nDCG@10 AP``,
   the baseline family and all pairs, 100,000 seeded sign flips per Monte Carlo test: the time spent reading,
   scoring and summarising the runs ("scoring") is measured apart from the rest ("statistics"), and the JSON
   rendering apart from both;
2. **the command** — ``trec-toolkit compare … --format json`` in its own process: wall time and peak RSS;
3. **two runs** — the same for the first two runs only (statistics vs scoring of two runs);
4. **ranx** — ``ranx.compare`` with 1,000 Fisher permutations on the same files, load and compare timed
   apart, in its own process (peak RSS of that process); ``--no-ranx`` skips it.

Usage: ``.venv/bin/python bench/bench_compare.py [--runs 10] [--topics 6980] [--docs 1000] [--no-ranx]``.
The machine is shared: other processes on the same cores change the absolute numbers more than the ratios.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = "RR@10 RR@100 nDCG@10 AP"

IN_PROCESS = r"""
import json, sys, time
from pathlib import Path
import toolkit.stats.comparison as comparison
from toolkit.formats import read_qrels, read_run
from toolkit.reports import render

paths, qrels_path, out = sys.argv[1:-2], sys.argv[-2], sys.argv[-1]
spent = {"read": 0.0, "score": 0.0, "read_cpu": 0.0, "score_cpu": 0.0}
summarise = comparison.summarise_run

def timed_summarise(*args, **kwargs):
    t, c = time.perf_counter(), time.process_time()
    try:
        return summarise(*args, **kwargs)
    finally:
        spent["score"] += time.perf_counter() - t
        spent["score_cpu"] += time.process_time() - c

def runs():
    for p in paths:
        t, c = time.perf_counter(), time.process_time()
        run = read_run(p)
        spent["read"] += time.perf_counter() - t
        spent["read_cpu"] += time.process_time() - c
        yield run

comparison.summarise_run = timed_summarise
t0 = time.perf_counter()
qrels = read_qrels(qrels_path)
spent["read"] += time.perf_counter() - t0
t1, c1 = time.perf_counter(), time.process_time()
result = comparison.compare_runs(runs(), qrels, measures="RR@10 RR@100 nDCG@10 AP")
total, total_cpu = time.perf_counter() - t1, time.process_time() - c1
t2 = time.perf_counter()
text = render(result, "json")
render_s = time.perf_counter() - t2
Path(out).write_text(text)
doc = json.loads(text)
tests = [c for c in doc["comparisons"]] + [p for fam in doc["all_pairs"] for p in fam["pairs"]]
mc = [t["tests"]["randomization"] for t in tests if not t["tests"]["randomization"]["exact"]]
print(json.dumps({
    "read_s": spent["read"],
    "score_s": spent["score"],
    "statistics_s": total - spent["score"] - (spent["read"] - (t1 - t0)),
    "statistics_cpu_s": total_cpu - spent["score_cpu"] - spent["read_cpu"],
    "render_json_s": render_s,
    "battery_tests": len(doc["comparisons"]),
    "all_pairs_tests": sum(len(f["pairs"]) for f in doc["all_pairs"]),
    "monte_carlo_tests": len(mc),
    "min_flips": min((int(m["method"].split("(")[1].split()[0].replace(",", "")) for m in mc), default=None),
}))
"""

RANX = r"""
import json, resource, sys, time
from ranx import Qrels, Run, compare
paths, qrels_path = sys.argv[1:-1], sys.argv[-1]
t = time.perf_counter()
qrels = Qrels.from_file(qrels_path, kind="trec")
runs = []
for p in paths:
    run = Run.from_file(p, kind="trec")
    run.name = p.rsplit("/", 1)[-1].removesuffix(".run")
    runs.append(run)
load = time.perf_counter() - t
t = time.perf_counter()
report = compare(qrels, runs, ["mrr@10", "mrr@100", "ndcg@10", "map"], stat_test="fisher", n_permutations=1000,
                 max_p=0.05, random_seed=42)
took = time.perf_counter() - t
print(json.dumps({"load_s": load, "compare_s": took,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def generate(folder: Path, runs: int, topics: int, docs: int, seed: int = 42) -> tuple[list[Path], Path]:
    """Runs whose relevant docs rank by a system effect + a topic × system effect + noise (correlated, as real
    systems are); scores on a 1e-4 grid, so there are ties for the scorer to order."""
    import numpy as np

    rng = np.random.default_rng(seed)
    names = [f"doc{i:04d}" for i in range(docs)]
    n_rel = rng.integers(1, 4, topics)
    rel = [rng.choice(docs, size=k, replace=False) for k in n_rel]
    nonrel = [rng.choice(np.setdiff1d(np.arange(docs), r), size=5, replace=False) for r in rel]
    qrels = folder / "bench.qrels"
    with open(qrels, "w") as f:
        for t in range(topics):
            f.writelines(f"q{t:05d} 0 {names[d]} {int(rng.integers(1, 4))}\n" for d in rel[t])
            f.writelines(f"q{t:05d} 0 {names[d]} 0\n" for d in nonrel[t])
    hard = rng.normal(0, 1, topics)
    paths = []
    for s in range(runs):
        scores = rng.normal(0, 1, (topics, docs))
        effect = 2.0 + 0.04 * s + hard + rng.normal(0, 0.7, topics)
        for t in range(topics):
            scores[t, rel[t]] += effect[t]
        scores = np.round(scores * 1e4) / 1e4
        order = np.argsort(-scores, axis=1, kind="stable")
        path = folder / f"sys{s}.run"
        with open(path, "w") as f:
            for t in range(topics):
                qid = f"q{t:05d}"
                row = scores[t]
                f.write(
                    "".join(
                        f"{qid} Q0 {names[d]} {r} {row[d]:.4f} sys{s}\n" for r, d in enumerate(order[t], 1)
                    )
                )
        paths.append(path)
    return paths, qrels


def run_measured(argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stdout of ``argv`` in a child process."""
    wrapper = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True)\n"
        "dt = time.perf_counter() - t\n"
        "sys.stdout.write(p.stdout)\n"
        "print(dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, p.returncode, file=sys.stderr)\n"
        "sys.exit(p.returncode)\n"
    )
    proc = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    seconds, rss, _ = proc.stderr.strip().splitlines()[-1].split()
    return float(seconds), float(rss), proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--topics", type=int, default=6980)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--no-ranx", action="store_true")
    args = parser.parse_args()
    toolkit = str(Path(sys.executable).with_name("trec-toolkit"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        paths, qrels = generate(folder, args.runs, args.topics, args.docs)
        print(
            f"generated {args.runs} runs of {args.topics} topics x {args.docs} docs in {time.perf_counter() - t0:.0f} s"
        )
        (folder / "in_process.py").write_text(IN_PROCESS)
        (folder / "ranx_compare.py").write_text(RANX)
        files = [str(p) for p in paths]
        rows = []
        for label, chosen in ((f"{args.runs} runs", files), ("2 runs", files[:2])):
            seconds, rss, out = run_measured(
                [sys.executable, str(folder / "in_process.py"), *chosen, str(qrels), str(folder / "p.json")]
            )
            phases = json.loads(out.strip().splitlines()[-1])
            wall, peak, _ = run_measured(
                [
                    toolkit,
                    "compare",
                    "--no-workspace",
                    *chosen,
                    "--qrels",
                    str(qrels),
                    "--measures",
                    MEASURES,
                    "--format",
                    "json",
                    "-o",
                    str(folder / "cli.json"),
                ]
            )
            rows.append((label, phases, wall, peak))
            print(
                f"  {label}: {json.dumps(phases)}; command {wall:.1f} s, peak RSS {peak:.0f} MB", flush=True
            )
        ranx = None
        if not args.no_ranx:
            _, rss, out = run_measured([sys.executable, str(folder / "ranx_compare.py"), *files, str(qrels)])
            ranx = json.loads(out.strip().splitlines()[-1])
            print(f"  ranx: {json.dumps(ranx)}", flush=True)
        print()
        print(
            "| what | read (s) | score + summarise (s) | statistics (s) | statistics CPU (s) | JSON (s) "
            "| tests (MC) | command (s) | peak RSS (MB) |"
        )
        print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
        for label, p, wall, peak in rows:
            tests = (
                f"{p['battery_tests']} + {p['all_pairs_tests']} all-pairs ({p['monte_carlo_tests']} MC, ≥ {p['min_flips']:,} flips)"
                if p["min_flips"]
                else f"{p['battery_tests']} + {p['all_pairs_tests']}"
            )
            print(
                f"| trec-toolkit compare, {label} | {p['read_s']:.1f} | {p['score_s']:.1f} | {p['statistics_s']:.1f} | "
                f"{p['statistics_cpu_s']:.1f} | {p['render_json_s']:.1f} | {tests} | {wall:.1f} | {peak:.0f} |"
            )
        if ranx is not None:
            print(
                f"| ranx compare, {args.runs} runs, 1,000 Fisher permutations | {ranx['load_s']:.1f} (load) | | "
                f"{ranx['compare_s']:.1f} (compare, with its scoring) | | | | | {ranx['rss_mb']:.0f} |"
            )


if __name__ == "__main__":
    main()
