"""Benchmark: ``score`` and the ``trec_eval`` drop-in side by side with the trec_eval 10 binary.

Generates, per layout (``--layouts``, all by default):

* ``collection`` — the collection file: ``--topics`` × ``--docs`` (5,000 × 1,000; doc ids like ``doc17-523`` from a
  collection of 200,000, so docs recur across topics), 4-decimal scores decreasing down each list with
  occasional ties (listed in random doc order), ~50 relevant docs per topic with grades 1–3 (and ~50 judged
  non-relevant), one ``#`` comment line at the top and every 7th line tab-separated ("comment + tabs") — and
  the same run without the comment line and the tabs ("plain");
* ``unique`` and ``unique10k`` — runs of unique ids: 5,000 (10,000) topics × 1,000 docs whose doc ids are unique per
  topic (no doc recurs: one distinct string per line), scores already in trec_eval's order, 50 judgments a
  topic, a comment line and every 7th line tab-separated.

On each it times, in its own subprocess from files on disk:

* trec_eval 10 built from ``../shared/conformance/trec_eval/src`` (as ``tests/conftest.py`` builds it, into
  ``~/.cache/trec-toolkit/``): ``trec_eval [-q] -m map -m P.5 -m recip_rank -m ndcg_cut.10 QRELS RUN``;
* ``trec-toolkit trec_eval`` with the same arguments (byte-identical output required);
* ``trec-toolkit score RUN --qrels QRELS --measures 'AP P@5 RR nDCG@10' --format trec [--per-query]`` (the same
  lines as trec_eval's, apart from ``runid``; required identical);
* with ``--default-measures`` also both trec_evals with their default measures (``official``).

Each with only the summary lines and with every topic's (``-q``, ``--per-query``); each repeated (median wall
and CPU time of ``--repeat``, interleaved so that changing load hits every tool alike), with its peak RSS (the
child's ``ru_maxrss``, read the same way for every tool), and the ratios to trec_eval are printed with the
machine's load. CPU time (user + system, all threads) is the steadier number on a shared machine; on an idle
one the wall time is what counts. Before timing, each tool runs once on a small file, with Python's bytecode
cache allowed (``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment), so that no timed run
compiles the toolkit's sources — what an installed toolkit never does.

Usage: ``.venv/bin/python bench/bench_trec_eval_speed.py [--layouts collection,unique,unique10k]
[--topics 5000] [--docs 1000] [--repeat 3] [--default-measures] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = "AP P@5 RR nDCG@10"
TREC_MEASURES = ["-m", "map", "-m", "P.5", "-m", "recip_rank", "-m", "ndcg_cut.10"]
REPO = Path(__file__).resolve().parents[1]


def generate(folder: Path, topics: int, docs: int, seed: int = 13) -> tuple[Path, Path, Path]:
    """The run (comment line, every 7th line tab-separated), the same run plain, and the qrels.

    Doc ids ``doc{a}-{b}`` come from a collection of 200,000 docs, so docs recur across topics as in a real
    run. Scores start near 30 and fall by 0.0001–0.05 per rank, by 0 (a tie) one time in 20; tied docs are
    listed in random order, so a reader must put about half of the ties in trec_eval's order itself.
    Each topic has 40–60 relevant docs (grades 1–3), four in five retrieved, and 50 judged non-relevant ones.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    run_path = folder / "bench.run"
    plain_path = folder / "bench.plain.run"
    qrels_path = folder / "bench.qrels"
    collection = 200_000
    line_no = 0
    with open(run_path, "w") as run_file, open(plain_path, "w") as plain_file, open(qrels_path, "w") as qf:
        run_file.write(f"# bench run: {topics} topics x {docs} docs, every 7th line tab-separated\n")
        line_no = 1
        for t in range(1, topics + 1):
            qid = str(t)
            ids = rng.choice(collection, size=docs, replace=False)
            names = [f"doc{i // 1000}-{i % 1000}" for i in ids.tolist()]
            steps = rng.integers(1, 501, size=docs) * (rng.random(docs) >= 0.05)
            scores = 30.0 - np.cumsum(steps) / 10_000
            texts = [f"{s:.4f}" for s in scores.tolist()]
            plain = []
            mixed = []
            for rank in range(docs):
                fields = (qid, "Q0", names[rank], str(rank + 1), texts[rank], "bench-run")
                plain.append(" ".join(fields))
                line_no += 1
                mixed.append(("\t" if line_no % 7 == 0 else " ").join(fields))
            plain_file.write("\n".join(plain) + "\n")
            run_file.write("\n".join(mixed) + "\n")
            n_rel = int(rng.integers(40, 61))
            retrieved = int(round(n_rel * 0.8))
            picks = rng.choice(docs, size=retrieved + 50, replace=False)
            rel_docs = [names[i] for i in picks[:retrieved].tolist()]
            extra = set(names)
            while len(rel_docs) < n_rel:
                i = int(rng.integers(collection))
                name = f"doc{i // 1000}-{i % 1000}"
                if name not in extra:
                    extra.add(name)
                    rel_docs.append(name)
            grades = rng.integers(1, 4, size=n_rel).tolist()
            lines = [f"{qid} 0 {d} {g}" for d, g in zip(rel_docs, grades, strict=True)]
            lines += [f"{qid} 0 {names[i]} 0" for i in picks[retrieved:].tolist()]
            qf.write("\n".join(lines) + "\n")
    return run_path, plain_path, qrels_path


def generate_unique(folder: Path, topics: int, docs: int, seed: int = 26) -> tuple[Path, Path]:
    """The second layout: doc ids unique per topic, scores already in trec_eval's order.

    Every topic retrieves its own ``docs`` documents (``MARCO_{n}``, n unique over the whole file, so no doc
    id recurs: one distinct string per line), scores strictly falling down each list (no ties), one ``#``
    comment line at the top and every 7th line tab-separated. Each topic has 50 judgments: 40 of retrieved
    docs and 10 of docs it did not retrieve, grades 0–3 (about half relevant).
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    run_path = folder / f"unique{topics}.run"
    qrels_path = folder / f"unique{topics}.qrels"
    total = topics * docs
    ids = rng.permutation(total).astype(np.int64) * 10 + rng.integers(0, 10, size=total)
    with open(run_path, "w") as run_file, open(qrels_path, "w") as qf:
        run_file.write(f"# unique-doc run: {topics} topics x {docs} docs, every 7th line tab-separated\n")
        line_no = 1
        for t in range(1, topics + 1):
            qid = str(t)
            names = [f"MARCO_{i}" for i in ids[(t - 1) * docs : t * docs].tolist()]
            scores = 100.0 - np.cumsum(rng.integers(1, 501, size=docs)) / 10_000
            texts = [f"{s:.4f}" for s in scores.tolist()]
            lines = []
            for rank in range(docs):
                line_no += 1
                sep = "\t" if line_no % 7 == 0 else " "
                lines.append(sep.join((qid, "Q0", names[rank], str(rank + 1), texts[rank], "unique-run")))
            run_file.write("\n".join(lines) + "\n")
            picks = rng.choice(docs, size=40, replace=False).tolist()
            judged = [names[i] for i in picks] + [f"UNRET_{t}_{k}" for k in range(10)]
            grades = rng.choice(4, size=50, p=[0.5, 0.2, 0.2, 0.1]).tolist()
            qf.write("".join(f"{qid} 0 {d} {g}\n" for d, g in zip(judged, grades, strict=True)))
    return run_path, qrels_path


def trec_eval_binary() -> Path:
    """The trec_eval 10 binary, built as the tests' fixture builds it."""
    sys.path.insert(0, str(REPO / "tests"))
    from conftest import build_trec_eval, find_trec_eval_source

    tarball = find_trec_eval_source()
    if tarball is None:
        raise SystemExit("trec_eval source not found ($TREC_EVAL_SRC or ../shared/conformance/trec_eval/src)")
    return build_trec_eval(tarball)


WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "out = open(sys.argv[1], 'wb')\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[2:], stdout=out)\n"
    "dt = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(dt, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024, p.returncode, file=sys.stderr)\n"
    "sys.exit(p.returncode)\n"
)


def run_measured(argv: list[str], out: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, all threads) and peak RSS (MiB) of ``argv`` (stdout to
    ``out``), read by a tiny wrapper process from its child's ``getrusage``."""
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(out), *argv],
        capture_output=True,
        text=True,
        check=False,
        env=child_env(),
    )
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    seconds, cpu, rss, _ = proc.stderr.strip().splitlines()[-1].split()
    return float(seconds), float(cpu), float(rss)


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


LAYOUTS = ("collection", "unique", "unique10k")


def files(folder: Path, layouts: list[str], topics: int, docs: int) -> list[tuple[str, Path, Path]]:
    """(layout name, run, qrels) of every layout asked for, generated into ``folder`` unless already there."""
    out: list[tuple[str, Path, Path]] = []
    for layout in layouts:
        t0 = time.perf_counter()
        if layout == "collection":
            run_path, plain_path, qrels_path = (
                folder / "bench.run",
                folder / "bench.plain.run",
                folder / "bench.qrels",
            )
            if not (run_path.exists() and plain_path.exists() and qrels_path.exists()):
                generate(folder, topics, docs)
            out.append((f"{topics:,} × {docs:,}, comment + tabs", run_path, qrels_path))
            out.append((f"{topics:,} × {docs:,}, plain", plain_path, qrels_path))
        else:
            n = 10_000 if layout == "unique10k" else 5_000
            run_path, qrels_path = folder / f"unique{n}.run", folder / f"unique{n}.qrels"
            if not (run_path.exists() and qrels_path.exists()):
                generate_unique(folder, n, 1000)
            out.append((f"{n:,} × 1,000 unique doc ids, comment + tabs", run_path, qrels_path))
        if time.perf_counter() - t0 > 1:
            print(f"generated {layout} in {time.perf_counter() - t0:.0f} s")
    for _layout, run_path, qrels_path in out:
        print(
            f"{run_path.name}: {run_path.stat().st_size / 1e6:.0f} MB; "
            f"{qrels_path.name}: {qrels_path.stat().st_size / 1e6:.1f} MB"
        )
    return out


def warm_up(folder: Path, binary: str, toolkit: str, run_path: Path, qrels_path: Path) -> None:
    """Run every tool once on the first lines of a layout: bytecode written, libraries in the page cache."""
    small_run, small_qrels = folder / "warm.run", folder / "warm.qrels"
    with open(run_path, "rb") as source:
        small_run.write_bytes(b"".join(source.readline() for _ in range(5000)))
    with open(qrels_path, "rb") as source:
        small_qrels.write_bytes(b"".join(source.readline() for _ in range(500)))
    for argv in (
        [binary, *TREC_MEASURES, str(small_qrels), str(small_run)],
        [toolkit, "trec_eval", *TREC_MEASURES, str(small_qrels), str(small_run)],
        [
            toolkit,
            "score",
            "--no-workspace",
            str(small_run),
            "--qrels",
            str(small_qrels),
            "--measures",
            MEASURES,
        ],
    ):
        subprocess.run(argv, capture_output=True, env=child_env(), check=False)


def child_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--layouts", default=",".join(LAYOUTS), help=f"comma-separated, of {', '.join(LAYOUTS)}"
    )
    parser.add_argument("--topics", type=int, default=5000, help="topics of the collection layout")
    parser.add_argument("--docs", type=int, default=1000, help="docs a topic of the collection layout")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--default-measures", action="store_true", help="also time trec_eval's defaults")
    parser.add_argument(
        "--keep", type=Path, help="generate into (or reuse) this folder instead of a temp one"
    )
    args = parser.parse_args()
    layouts = [name.strip() for name in args.layouts.split(",") if name.strip()]
    unknown = sorted(set(layouts) - set(LAYOUTS))
    if unknown:
        parser.error(f"unknown layout(s) {', '.join(unknown)}; choose from {', '.join(LAYOUTS)}")
    binary = str(trec_eval_binary())
    toolkit = str(Path(sys.executable).with_name("trec-toolkit"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        inputs = files(folder, layouts, args.topics, args.docs)
        warm_up(folder, binary, toolkit, inputs[0][1], inputs[0][2])
        cases: list[tuple[str, str, list[str]]] = []  # (group, tool, argv); each group's first is trec_eval
        suites = [("4 measures", TREC_MEASURES)]
        if args.default_measures:
            suites.append(("default measures", []))
        for layout, path, qrels_path in inputs:
            qrels = str(qrels_path)
            for suite, meas in suites:
                for shown, q in (("summary", []), ("-q", ["-q"])):
                    group = f"{layout}, {suite}, {shown}"
                    cases.append((group, "trec_eval 10", [binary, *q, *meas, qrels, str(path)]))
                    cases.append(
                        (group, "trec-toolkit trec_eval", [toolkit, "trec_eval", *q, *meas, qrels, str(path)])
                    )
                    if meas:
                        argv = [
                            toolkit,
                            "score",
                            "--no-workspace",
                            str(path),
                            "--qrels",
                            qrels,
                            "--measures",
                            MEASURES,
                            "--format",
                            "trec",
                        ]
                        cases.append((group, "trec-toolkit score", argv + (["--per-query"] if q else [])))
        times: dict[int, list[float]] = {i: [] for i in range(len(cases))}
        cpus: dict[int, list[float]] = {i: [] for i in range(len(cases))}
        peaks: dict[int, list[float]] = {i: [] for i in range(len(cases))}
        print(f"load before: {load()}")
        for rep in range(args.repeat):
            for i, (group, label, argv) in enumerate(cases):
                seconds, cpu, rss = run_measured(argv, folder / f"out{i}.{rep}")
                times[i].append(seconds)
                cpus[i].append(cpu)
                peaks[i].append(rss)
                print(
                    f"  [{rep + 1}/{args.repeat}] {group}: {label}: {seconds:.2f} s wall, {cpu:.2f} s CPU, {rss:.0f} MiB",
                    flush=True,
                )
        print(f"load after: {load()}")
        check(folder, cases, args.repeat)
        print()
        print(
            "| layout, measures, output | tool | median wall (s) | wall runs (s) | median CPU (s) | peak RSS (MiB) "
            "| wall / trec_eval | CPU / trec_eval | RSS / trec_eval |"
        )
        print("|---|---|---:|---|---:|---:|---:|---:|---:|")
        base: tuple[float, float, float] = (1.0, 1.0, 1.0)
        for i, (group, label, _argv) in enumerate(cases):
            median, cpu, peak = statistics.median(times[i]), statistics.median(cpus[i]), max(peaks[i])
            if label == "trec_eval 10":
                base = (median, cpu, peak)
            runs = ", ".join(f"{t:.2f}" for t in times[i])
            print(
                f"| {group if label == 'trec_eval 10' else ''} | {label} | {median:.2f} | {runs} | {cpu:.2f} "
                f"| {peak:.0f} | {median / base[0]:.2f} | {cpu / base[1]:.2f} | {peak / base[2]:.2f} |"
            )


def check(folder: Path, cases: list[tuple[str, str, list[str]]], repeat: int) -> None:
    """Every output equals trec_eval's of the same layout and measures (score's ``runid`` line aside)."""
    oracle: dict[str, bytes] = {}
    for i, (group, label, _argv) in enumerate(cases):
        for rep in range(repeat):
            text = (folder / f"out{i}.{rep}").read_bytes()
            if label == "trec_eval 10":
                oracle.setdefault(group, text)
            expected = oracle[group]
            if label == "trec-toolkit score":
                expected = b"".join(
                    line for line in expected.splitlines(True) if not line.startswith(b"runid")
                )
                text = b"".join(line for line in text.splitlines(True) if not line.startswith(b"runid"))
            if text != expected:
                raise SystemExit(f"{group}: {label} differs from trec_eval 10 (out{i}.{rep})")
    print("outputs identical to trec_eval 10's")


if __name__ == "__main__":
    main()
