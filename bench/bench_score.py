"""Benchmark: ``trec-toolkit score`` end to end against pytrec_eval's and ir_measures' own paths (and ranx).

Generates a run of 6,980 topics × 1,000 docs with ties and graded qrels (1–3 relevant docs per topic) in a
temporary directory, then times each tool in its own subprocess from files on disk to per-topic values of
six measures (RR@10 P@1 P@5 nDCG@10 Rprec AP): median wall time of 3 interleaved repetitions (ranx once) and
peak RSS (the child's ``ru_maxrss``).
Checks ``score``'s per-topic values against pytrec_eval's (which breaks ties like trec_eval; the generated
ties are exact in float32, so it sees trec_eval 10's order) and prints how far ir_measures' and ranx's
aggregates are from them (they break ties their own way).

With ``--trec-eval`` also trec_eval 10 built from source (``-m recip_rank -m P.1,5 -m ndcg_cut.10 -m Rprec
-m map``; its RR is uncut, the same work). The small-input row of docs/benchmarks.md (people
call ``score`` in loops, so start-up is the cost) is
``bench_score.py --topics 50 --docs 10 --repeat 21 --no-ranx --no-ir-measures --trec-eval``.

Before timing, the toolkit's modules are compiled to bytecode (``compileall``), as pip compiles a wheel it
installs: an editable checkout run with ``PYTHONDONTWRITEBYTECODE=1`` (as on the shared machine) would
otherwise compile every toolkit module on every start, which no installed copy does. ``--no-compile`` skips it.

Usage: ``.venv/bin/python bench/bench_score.py [--topics 6980] [--docs 1000] [--repeat 3] [--no-ranx]
[--no-ir-measures] [--trec-eval] [--drop-in] [--no-compile]``. ``--drop-in`` also times ``trec-toolkit
trec_eval`` with trec_eval's measure options. The machine is shared: other processes on the same cores change the
absolute numbers more than the ratios; the load average is printed with the table.
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

MEASURES = "RR@10 P@1 P@5 nDCG@10 Rprec AP"

PYTREC = r"""
import json, sys, pytrec_eval
run = pytrec_eval.parse_run(open(sys.argv[1]))
qrels = pytrec_eval.parse_qrel(open(sys.argv[2]))
ev = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "P_1", "P_5", "ndcg_cut_10", "Rprec", "map"})
json.dump(ev.evaluate(run), open(sys.argv[3], "w"))
"""

IR_MEASURES = r"""
import json, sys, ir_measures
from ir_measures import RR, P, nDCG, Rprec, AP
measures = [RR@10, P@1, P@5, nDCG@10, Rprec, AP]
qrels = list(ir_measures.read_trec_qrels(sys.argv[2]))
run = ir_measures.read_trec_run(sys.argv[1])
agg = ir_measures.calc_aggregate(measures, qrels, run)
json.dump({str(k): v for k, v in agg.items()}, open(sys.argv[3], "w"))
"""

RANX = r"""
import json, sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[2], kind="trec")
run = Run.from_file(sys.argv[1], kind="trec")
res = evaluate(qrels, run, ["mrr@10", "precision@1", "precision@5", "ndcg@10", "r-precision", "map"])
json.dump({k: float(v) for k, v in res.items()}, open(sys.argv[3], "w"))
"""


def _desc_asc(item: tuple[float, str]) -> tuple[float, str]:
    return (-item[0], item[1])


def generate(folder: Path, topics: int, docs: int, seed: int = 42) -> tuple[Path, Path]:
    """Run with ties and graded qrels.

    Scores lie on a 1/64 grid (exact in float32, so pytrec_eval sees the same ties as trec_eval 10); lines are
    written by score descending with ties in doc_id *ascending* order, as many Lucene-based systems write them,
    so the scorer has to reorder the ties itself. Each topic has 1–3 relevant docs (grades 1–3) in its top
    60 and up to 5 judged non-relevant docs.
    """
    rng = random.Random(seed)
    run_path = folder / "big.run"
    qrels_path = folder / "big.qrels"
    with open(run_path, "w") as run_file, open(qrels_path, "w") as qrels_file:
        for t in range(topics):
            qid = f"q{t:05d}"
            pool = rng.sample(range(1_000_000), docs)
            scored = sorted(
                ((round(rng.uniform(0, 40) * 64) / 64, f"doc{d:07d}") for d in pool), key=_desc_asc
            )
            lines = [f"{qid} Q0 {doc} {rank} {score} bench\n" for rank, (score, doc) in enumerate(scored, 1)]
            run_file.write("".join(lines))
            relevant = rng.sample(range(min(docs, 60)), rng.randint(1, 3))
            for i in relevant:
                qrels_file.write(f"{qid} 0 {scored[i][1]} {rng.randint(1, 3)}\n")
            for i in rng.sample(range(docs), 5):
                if i not in relevant:
                    qrels_file.write(f"{qid} 0 {scored[i][1]} 0\n")
    return run_path, qrels_path


def compile_toolkit(python: str) -> None:
    """Byte-compile the toolkit package the console script imports, as pip does on install (see the docstring)."""
    where = subprocess.run(
        [python, "-c", "import os, toolkit; print(os.path.dirname(toolkit.__file__))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", where], check=True, stdout=subprocess.DEVNULL)
    print(f"compiled {where} to bytecode")


def run_measured(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds (user + system) of ``argv``, run under a tiny wrapper that
    reads its children's ``rusage`` (peak: the largest single process among the tool and any it forked; CPU:
    theirs in all). CPU time moves less than wall time when other jobs share the cores."""
    wrapper = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:])\n"
        "dt = time.perf_counter() - t\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(dt, u.ru_maxrss / 1024, u.ru_utime + u.ru_stime, p.returncode, file=sys.stderr)\n"
        "sys.exit(p.returncode)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", wrapper, *argv], capture_output=True, text=True, check=False, env=env
    )
    last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    seconds, rss, cpu, _ = last.split()
    return float(seconds), float(rss), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=6980)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-ranx", action="store_true", help="skip ranx (run once: its numba JIT makes it slow)"
    )
    parser.add_argument("--no-ir-measures", action="store_true")
    parser.add_argument("--trec-eval", action="store_true", help="also trec_eval 10, built from source")
    parser.add_argument("--drop-in", action="store_true", help="also `trec-toolkit trec_eval` (the drop-in)")
    parser.add_argument(
        "--no-compile", action="store_true", help="do not compile the toolkit's modules to bytecode first"
    )
    args = parser.parse_args()
    python = sys.executable
    toolkit = str(Path(python).with_name("trec-toolkit"))
    if not args.no_compile:
        compile_toolkit(python)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        run_path, qrels_path = generate(folder, args.topics, args.docs)
        size = run_path.stat().st_size / 1e6
        print(
            f"generated {args.topics} topics x {args.docs} docs ({size:.0f} MB) in {time.perf_counter() - t0:.1f} s"
        )
        files = [str(run_path), str(qrels_path)]
        scripts = {"pytrec_eval": PYTREC, "ir_measures": IR_MEASURES, "ranx": RANX}
        for name, code in scripts.items():
            (folder / f"bench_{name}.py").write_text(code)
        ours = [
            toolkit,
            "score",
            str(run_path),
            "--qrels",
            str(qrels_path),
            "--measures",
            MEASURES,
            "--no-workspace",
        ]
        ours += ["--per-query", "--format", "json", "-o"]
        tools: dict[str, tuple[list[str], dict[str, str] | None]] = {
            "trec-toolkit score": ([*ours, str(folder / "ours.json")], None),
            "pytrec_eval": (
                [python, str(folder / "bench_pytrec_eval.py"), *files, str(folder / "pytrec.json")],
                None,
            ),
        }
        te_measures = ["-m", "recip_rank", "-m", "P.1,5", "-m", "ndcg_cut.10", "-m", "Rprec", "-m", "map"]
        if args.drop_in:
            tools["trec-toolkit trec_eval"] = (
                [toolkit, "trec_eval", "-q", *te_measures, str(qrels_path), str(run_path)],
                None,
            )
        if args.trec_eval:
            from bench_trec_eval_speed import trec_eval_binary  # builds it as the tests' fixture does

            binary = str(trec_eval_binary())
            tools["trec_eval 10"] = ([binary, "-q", *te_measures, str(qrels_path), str(run_path)], None)
        if not args.no_ir_measures:
            tools["ir_measures"] = (
                [python, str(folder / "bench_ir_measures.py"), *files, str(folder / "irm.json")],
                None,
            )
        if not args.no_ranx:
            tools["ranx"] = ([python, str(folder / "bench_ranx.py"), *files, str(folder / "ranx.json")], None)
        # Interleaved repetitions (every tool once, then again …): the machine is shared, and load that
        # changes over the minutes a benchmark takes then hits every tool alike.
        times: dict[str, list[float]] = {name: [] for name in tools}
        peaks: dict[str, list[float]] = {name: [] for name in tools}
        cpus: dict[str, list[float]] = {name: [] for name in tools}
        load_before = os.getloadavg()
        for rep in range(args.repeat):
            for name, (argv, env) in tools.items():
                if name == "ranx" and rep > 0:
                    continue
                seconds, rss, cpu = run_measured(argv, env)
                times[name].append(seconds)
                peaks[name].append(rss)
                cpus[name].append(cpu)
                print(f"  {name}: {seconds:.2f} s, {rss:.0f} MB, {cpu:.2f} s CPU", flush=True)
        check(folder, args.topics)
        wall = {name: statistics.median(times[name]) for name in tools}
        cpu_median = {name: statistics.median(cpus[name]) for name in tools}
        print(
            f"\nload average {' '.join(f'{x:.2f}' for x in load_before)} before, "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after; {args.topics} topics x {args.docs} docs"
        )
        print(
            "| tool | median time (s) | runs (s) | peak RSS (MB) | median CPU (s) | time / pytrec_eval "
            "| CPU / pytrec_eval |"
        )
        print("|---|---:|---|---:|---:|---:|---:|")
        digits = 3 if min(wall.values()) < 0.1 else 2
        for name in tools:
            runs = ", ".join(f"{t:.{digits}f}" for t in times[name])
            print(
                f"| {name} | {wall[name]:.{digits}f} | {runs} | {max(peaks[name]):.0f} | {cpu_median[name]:.{digits}f} "
                f"| {wall[name] / wall['pytrec_eval']:.2f} | {cpu_median[name] / cpu_median['pytrec_eval']:.2f} |"
            )


PYTREC_NAMES = {
    "recip_rank": "RR",
    "P_1": "P@1",
    "P_5": "P@5",
    "ndcg_cut_10": "nDCG@10",
    "Rprec": "Rprec",
    "map": "AP",
}


def check(folder: Path, topics: int) -> None:
    """Same values everywhere: per topic against pytrec_eval, aggregates against ir_measures and ranx.

    pytrec_eval has no RR@10; its uncut ``recip_rank`` gives it exactly: RR@10 = RR when RR ≥ 1/10, else 0.
    """
    ours = json.loads((folder / "ours.json").read_text())["runs"][0]
    ref = json.loads((folder / "pytrec.json").read_text())
    assert ours["n"] == topics, ours["n"]
    worst = 0.0
    for q, values in ref.items():
        for name, value in values.items():
            measure = PYTREC_NAMES[name]
            if measure == "RR":
                measure, value = "RR@10", (value if value >= 1 / 10 else 0.0)
            worst = max(worst, abs(ours["per_query"][q][measure] - value))
    print(
        f"per-topic values vs pytrec_eval: max abs difference {worst:.3g} over {len(ref)} topics x 6 measures"
    )
    ranx_names = {"mrr@10": "RR@10", "precision@1": "P@1", "precision@5": "P@5", "ndcg@10": "nDCG@10"}
    ranx_names |= {"r-precision": "Rprec", "map": "AP"}
    for name, key_map in (("irm.json", {}), ("ranx.json", ranx_names)):
        path = folder / name
        if path.exists():
            other = {key_map.get(k, k): v for k, v in json.loads(path.read_text()).items()}
            diffs = ", ".join(f"{m} {abs(v - ours['aggregate'][m]):.2g}" for m, v in other.items())
            print(f"aggregates vs {name.split('.')[0]}: max abs difference per measure: {diffs}")


if __name__ == "__main__":
    main()
