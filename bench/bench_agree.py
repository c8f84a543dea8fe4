"""Benchmark: ``trec-toolkit agree`` at MS MARCO size, beside what a user would script instead.

Generates a judgments TSV (``assessor<TAB>query_id<TAB>doc_id<TAB>grade``) for ``--topics`` topics (default
6,980, MS MARCO dev) × ``--docs`` pooled documents (default 30) judged by ``--assessors`` assessors (default 3,
every one judging every item, grades 0–3: a latent grade kept with probability 0.7, else a random grade), then
times, each in its own process (wall time, CPU time of the process and its threads, peak RSS from
``os.wait4``):

1. ``trec-toolkit agree FILE --labels 0,1,2,3 --format json`` with the default topic bootstrap (2,000
   resamples) and with ``--bootstrap 0`` (point estimates and analytic CIs only);
2. **the scripted alternative** — pandas reads the file; scikit-learn's ``cohen_kappa_score`` (unweighted,
   linear, quadratic) for every pair, statsmodels' ``fleiss_kappa`` on ``aggregate_raters``, and the
   ``krippendorff`` package's alpha (nominal, ordinal, interval) — the numbers a notebook would give, with no
   CIs, no bootstrap and no binarised tables.

The toolkit's values are checked against the alternative's (to 1e-9) before any time is printed.

Usage: ``.venv/bin/python bench/bench_agree.py [--topics 6980] [--docs 30] [--assessors 3] [--keep DIR]``.
The machine may be shared: other processes on the same cores change the absolute numbers more than the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ALTERNATIVE = r"""
import itertools, json, sys
import numpy as np
import pandas as pd
import krippendorff
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

frame = pd.read_csv(sys.argv[1], sep="\t", names=["assessor", "query_id", "doc_id", "grade"], dtype={"grade": int})
wide = frame.pivot_table(index=["query_id", "doc_id"], columns="assessor", values="grade", aggfunc="first")
labels = [0, 1, 2, 3]
pairs = {}
for a, b in itertools.combinations(sorted(wide.columns), 2):
    both = wide[[a, b]].dropna()
    pairs[f"{a}|{b}"] = {
        w: cohen_kappa_score(both[a], both[b], labels=labels, weights=None if w == "unweighted" else w)
        for w in ("unweighted", "linear", "quadratic")
    }
complete = wide.dropna().to_numpy(dtype=int)
fleiss = fleiss_kappa(aggregate_raters(complete, n_cat=len(labels))[0])
data = wide.T.to_numpy(dtype=float)  # assessors × items, NaN where not judged
alpha = {
    level: krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=labels)
    for level in ("nominal", "ordinal", "interval")
}
print(json.dumps({"pairs": pairs, "fleiss": fleiss, "alpha": alpha}))
"""


def generate(path: Path, topics: int, docs: int, assessors: int, seed: int) -> int:
    """Write the judgments file; return its number of lines."""
    rng = random.Random(seed)
    names = [f"assessor{i}" for i in range(assessors)]
    lines = 0
    with path.open("w") as out:
        for t in range(topics):
            for d in range(docs):
                latent = rng.choice((0, 0, 0, 1, 1, 2, 3))
                for name in names:
                    grade = latent if rng.random() < 0.7 else rng.randrange(4)
                    out.write(f"{name}\t{t}\tD{t * docs + d}\t{grade}\n")
                    lines += 1
    return lines


def timed(argv: list[str], stdout_path: Path | None = None) -> dict[str, float]:
    """Run ``argv``; wall time, CPU time (user + system of the child) and peak RSS."""
    started = time.perf_counter()
    with open(stdout_path or os.devnull, "wb") as sink:
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[0]} failed:\n{stderr}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024}


def check(ours: dict, theirs: dict) -> None:
    """The toolkit's numbers must be the alternative's: kappa per pair and weighting, Fleiss, alpha."""
    for pair in ours["pairs"]:
        for weighting, value in theirs["pairs"][f"{pair['a']}|{pair['b']}"].items():
            mine = pair["kappa"][weighting]["value"]
            assert abs(mine - value) < 1e-9, (pair["a"], pair["b"], weighting, mine, value)
    assert abs(ours["fleiss"]["value"] - theirs["fleiss"]) < 1e-9, (ours["fleiss"], theirs["fleiss"])
    for level, value in theirs["alpha"].items():
        assert abs(ours["krippendorff"][level] - value) < 1e-9, (level, ours["krippendorff"][level], value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=6980)
    parser.add_argument("--docs", type=int, default=30)
    parser.add_argument("--assessors", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (median reported)")
    parser.add_argument("--keep", type=Path, help="write the data here and keep it")
    args = parser.parse_args()
    toolkit = [str(Path(sys.executable).with_name("trec-toolkit"))]
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        data = folder / "judgments.tsv"
        lines = generate(data, args.topics, args.docs, args.assessors, seed=7)
        print(
            f"{lines:,} judgments: {args.topics:,} topics × {args.docs} docs × {args.assessors} assessors "
            f"({data.stat().st_size / 2**20:.0f} MiB)",
            flush=True,
        )
        cases = {
            "trec-toolkit agree (bootstrap 2000)": [*toolkit, "agree", str(data), "--labels", "0,1,2,3", "--format", "json"],
            "trec-toolkit agree --bootstrap 0": [
                *toolkit, "agree", str(data), "--labels", "0,1,2,3", "--format", "json", "--bootstrap", "0",
            ],
            "pandas + sklearn + statsmodels + krippendorff": [sys.executable, "-c", ALTERNATIVE, str(data)],
        }  # fmt: skip
        outputs = {name: folder / f"out{i}.json" for i, name in enumerate(cases)}
        times: dict[str, list[dict[str, float]]] = {name: [] for name in cases}
        for _ in range(args.repeat):
            for name, argv in cases.items():  # interleaved: a load change hits every tool alike
                times[name].append(timed(argv, outputs[name]))
        theirs = json.loads(outputs["pandas + sklearn + statsmodels + krippendorff"].read_text())
        for name in list(cases)[:2]:
            check(json.loads(outputs[name].read_text()), theirs)
        print("values identical (1e-9): kappa ×3 weightings per pair, Fleiss' kappa, alpha ×3 levels")
        print(f"load average before/after: {os.getloadavg()[0]:.2f}")
        print("| tool | median wall (s) | wall runs (s) | median CPU (s) | peak RSS (MiB) |")
        print("|---|---:|---|---:|---:|")
        for name, runs in times.items():
            walls = [r["wall_s"] for r in runs]
            cpu = sorted(r["cpu_s"] for r in runs)[len(runs) // 2]
            rss = max(r["rss_mib"] for r in runs)
            print(
                f"| {name} | {sorted(walls)[len(walls) // 2]:.2f} | {', '.join(f'{w:.2f}' for w in walls)} "
                f"| {cpu:.2f} | {rss:.0f} |"
            )


if __name__ == "__main__":
    main()
