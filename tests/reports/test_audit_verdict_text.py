"""What the audit's verdict says, and its headline interval, in the example audit (docs/statistics.md).

Expected values come from the example workspace's files read here by hand (runs, qrels, topics: ranking by
trec_eval's rule, score descending then doc id descending) and from statsmodels, never from the toolkit.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from toolkit.formats import read_qrels, read_run
from toolkit.stats import compare_runs

REPO = Path(__file__).resolve().parents[2]


def ranked(path: Path) -> dict[str, list[str]]:
    rows = defaultdict(list)
    for line in path.read_text().splitlines():
        q, _, doc, _, score, _ = line.split()[:6]
        rows[q].append((float(score), doc))
    return {q: [d for _, d in sorted(v, reverse=True)] for q, v in rows.items()}


def rr10(run: dict[str, list[str]], relevant: dict[str, set[str]], topics: list[str]) -> np.ndarray:
    out = []
    for q in topics:
        docs = run.get(q, [])[:10]
        first = next((i for i, d in enumerate(docs, start=1) if d in relevant.get(q, set())), None)
        out.append(0.0 if first is None else 1 / first)
    return np.array(out)


def test_no_significant_difference_is_not_equivalence_and_gives_the_mde(example_audit: Path) -> None:
    from statsmodels.stats.power import TTestPower

    topics = tomllib.loads((REPO / "topics/stdlib.toml").read_text())["topic"]
    counted = [t["id"] for t in topics if t.get("expect") != "empty"]
    relevant: dict[str, set[str]] = defaultdict(set)
    for line in (REPO / "qrels/stdlib.qrels").read_text().splitlines():
        q, _, doc, grade = line.split()
        if int(grade) > 0:
            relevant[q].add(doc)
    a = rr10(ranked(REPO / "runs/bm25.run"), relevant, counted)
    b = rr10(ranked(REPO / "runs/bm25f.run"), relevant, counted)
    d = b - a
    mde = TTestPower().solve_power(nobs=len(d), alpha=0.05, power=0.8) * d.std(ddof=1)
    assert (
        len(d) == 61 and f"{mde:.4f}" == "0.0733" and f"{d.mean():+.4f}" == "+0.0156"
    )  # the example audit's numbers
    summary = (example_audit / "summary.txt").read_text()
    assert (
        f"  bm25f: not a claim of equivalence — post hoc MDE {mde:.4f} vs observed Δ {d.mean():+.4f}"
        in summary
    )
    md = (example_audit / "audits/audit.md").read_text()
    verdict = md.split("## Verdict", 1)[1].split("## Aggregate", 1)[0]
    assert "This is not a claim of equivalence" in verdict and f"is {mde:.4f} (post hoc MDE)" in verdict


def test_refusal_changes_are_listed_with_their_topics_in_the_verdict(example_audit: Path) -> None:
    topics = tomllib.loads((REPO / "topics/stdlib.toml").read_text())["topic"]
    empty = [t["id"] for t in topics if t.get("expect") == "empty"]
    a, b = ranked(REPO / "runs/bm25.run"), ranked(REPO / "runs/bm25f.run")
    lost = [q for q in empty if not a.get(q) and b.get(q)]  # refused by bm25, answered by bm25f
    assert len(empty) == 6 and len(lost) == 3  # 0.8333 → 0.3333 (the example audit's numbers)
    md = (example_audit / "audits/audit.md").read_text()
    verdict = md.split("## Verdict", 1)[1].split("## Aggregate", 1)[0]
    assert f"- bm25f no longer refused (vs bm25, {len(lost)}): {' '.join(lost)}" in verdict
    summary = (example_audit / "summary.txt").read_text()
    assert f"  bm25f: no longer refused (vs bm25, {len(lost)}): {' '.join(lost)}" in summary


def test_every_test_table_has_a_class_column(example_audit: Path) -> None:
    md = (example_audit / "audits/audit.md").read_text()
    table = md.split("### Every test", 1)[1].split("###", 1)[0]
    header = next(line for line in table.splitlines() if line.startswith("| candidate"))
    assert [c.strip() for c in header.strip("|").split("|")][:4] == [
        "candidate",
        "measure",
        "class",
        "family",
    ]
    doc = json.loads((example_audit / "audits/audit.json").read_text())
    classes = set(doc["by_class"])
    rows = [line for line in table.splitlines() if line.startswith("| bm25f")]
    assert {r.split("|")[3].strip() for r in rows} == {"all", *classes}


def test_the_headline_interval_is_the_studentized_bootstrap(example_audit: Path) -> None:
    doc = json.loads((example_audit / "audits/audit.json").read_text())
    c = doc["comparisons"][0]
    assert c["ci95"]["method"] == "studentized bootstrap" and c["ci95"]["resamples"] == 10_000
    assert c["ci95"]["low"] < c["delta"] < c["ci95"]["high"]
    assert c["ci95_t"]["method"] == "t"


def test_whole_topic_histogram_has_whole_ticks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import toolkit.reports.plots as plots

    figures = []
    real = plots._png

    def keep(fig, plt):
        figures.append(fig)
        return real(fig, plt)

    monkeypatch.setattr(plots, "_png", keep)
    # three topics, at most one per rank: matplotlib's default locator would tick 0, 0.2, 0.4, … 1
    ranks = {"a": {"q1": 1, "q2": 2, "q3": 3}, "b": {"q1": 2, "q2": 3, "q3": None}}
    for tag, per_topic in ranks.items():
        lines = []
        for q, r in per_topic.items():
            docs = [f"{q}-d{j}" for j in range(1, 11)]
            if r is not None:
                docs[r - 1] = f"{q}-rel"
            lines += [f"{q} Q0 {d} {i} {11 - i} {tag}" for i, d in enumerate(docs, start=1)]
        (tmp_path / f"{tag}.run").write_text("\n".join(lines) + "\n")
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {q}-rel 1\n" for q in ("q1", "q2", "q3")))
    result = compare_runs(
        [read_run(tmp_path / "a.run"), read_run(tmp_path / "b.run")],
        read_qrels(tmp_path / "q.qrels"),
        measures="RR@10",
        primary="RR@10",
    )
    made = plots.render_plots(result)
    (index,) = [i for i, p in enumerate(made) if p.kind == "ranks"]
    ax = figures[index].axes[0]
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert len(ticks) >= 2 and all(math.isclose(t, round(t)) for t in ticks)
