"""The README's judging walkthrough as a user types it: the installed console script, inside the example
workspace. Step 5's ``score`` and ``compare`` must count the same topics (one ``n``) and name the same primary
measure, print each warning once, and print every count over the values it counts.

The expected values come from outside the toolkit's output: ``n`` and the primary measure from reading
``topics/stdlib.toml`` and ``toolkit.toml`` with ``tomllib``, RR@10 worked out here from the run and qrels files
by trec_eval's rule (score descending, then doc id descending; a topic without qrels or results counts 0).
"""

from __future__ import annotations

import random
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from helpers import REPO as ROOT

from toolkit.judging.store import CampaignStore

SCRIPT = Path(sys.executable).parent / "trec-toolkit"


def readme_step(number: int) -> list[list[str]]:
    """The commands of step ``number`` of the README's "Judging a pool" block, as argv lists."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Judging a pool", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    step = re.split(r"^# \d+\. ", block, flags=re.M)[number]
    commands = [shlex.split(line) for line in step.splitlines() if line.startswith(".venv/bin/trec-toolkit ")]
    assert commands, f"README step {number} has no command"
    return [[str(SCRIPT), *argv[1:]] for argv in commands]


def rr_at_10(run: Path, qrels: Path, topics: list[str]) -> float:
    """RR@10 by trec_eval's ordering, averaged over ``topics``."""
    relevant: dict[str, set[str]] = {}
    for line in qrels.read_text().splitlines():
        query_id, _, doc_id, grade = line.split()
        if int(grade) >= 1:
            relevant.setdefault(query_id, set()).add(doc_id)
    ranked: dict[str, list[tuple[float, str]]] = {}
    for line in run.read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        ranked.setdefault(query_id, []).append((float(score), doc_id))
    total = 0.0
    for query_id in topics:
        order = sorted(ranked.get(query_id, []), reverse=True)[:10]  # score desc, then doc id desc
        rank = next((i + 1 for i, (_, d) in enumerate(order) if d in relevant.get(query_id, ())), None)
        total += 1 / rank if rank else 0.0
    return total / len(topics)


def test_step_5_shows_one_n_and_one_primary(cache: dict[str, str], workspace_copy: Path) -> None:
    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            argv, cwd=workspace_copy, env=cache, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, (argv, done.stderr)
        return done

    # steps 1–4: the campaign, and the assessors' grades (imported from a file instead of typed)
    (campaign,) = readme_step(1)
    run(campaign)
    rng = random.Random(5)
    with CampaignStore.open(workspace_copy / "judging" / "stdlib.sqlite") as store:
        items = [(a, item.query_id, item.doc_id) for a in ("alice", "bob") for item in store.queue(a)]
    grades = "".join(f"{a}\t{q}\t{d}\t{rng.choice((0, 0, 1, 2, 3))}\n" for a, q, d in items)
    (workspace_copy / "grades.tsv").write_text(grades, encoding="utf-8")
    run([str(SCRIPT), "judgments", "import", "judging/stdlib.sqlite", "grades.tsv"])

    export, score, compare = readme_step(5)
    run(export)
    scored, compared = run(score), run(compare)

    declared = tomllib.loads((workspace_copy / "toolkit.toml").read_text(encoding="utf-8"))["workspace"]
    primary = declared["primary"]
    topics = tomllib.loads((workspace_copy / declared["topics"]).read_text(encoding="utf-8"))["topic"]
    counted = [t["id"] for t in topics if t.get("expect") != "empty"]
    n = len(counted)

    # score: its table marks the primary measure and counts n topics for each run
    header, *rows = scored.stdout.split("\n\n")[0].splitlines()
    columns = header.split()
    assert f"{primary} (primary)" in header
    for row, name in zip(rows, ("bm25", "bm25f"), strict=True):
        cells = row.split()
        assert cells[:3] == [name, "all", str(n)]
        value = float(cells[columns.index(primary)])
        expected = rr_at_10(
            workspace_copy / "runs" / f"{name}.run", workspace_copy / "qrels" / "human.qrels", counted
        )
        assert value == round(expected, 4)

    # compare: the same primary, confirmed over the same n, on the same means
    out = compared.stdout
    assert f"Confirmatory test: {primary} (declared)" in out
    confirm = out.split(f"Confirmatory test ({primary})", 1)[1].split("\n\n")[1].splitlines()[1].split()
    bm25 = rr_at_10(workspace_copy / "runs" / "bm25.run", workspace_copy / "qrels" / "human.qrels", counted)
    bm25f = rr_at_10(workspace_copy / "runs" / "bm25f.run", workspace_copy / "qrels" / "human.qrels", counted)
    assert confirm[:4] == ["bm25f", str(n), f"{bm25:.4f}", f"{bm25f:.4f}"]

    # each warning once (the topics nobody judged are one warning, not one per step that noticed them)
    for done in (scored, compared):
        lines = done.stderr.splitlines()
        assert len(lines) == len(set(lines)), done.stderr
        assert not any("deprecated" in line for line in lines)

    # the pool-bias table counts the topics its values are means over
    biased = run([*score, "--pool-bias"])
    assert f"Pool bias (leave-one-run-out, depth-10 pool of the runs, n={n})" in biased.stdout
