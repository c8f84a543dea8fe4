"""docs/python-api.md runs as written, and its results are the values worked out by hand (or by scipy/sklearn).

The blocks run in order in one namespace, in a folder holding this repository's runs/, qrels/ and topics/
and the small campaign of api_campaign.py at judging/example.sqlite — as the page says.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "python-api.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)


@pytest.fixture(scope="module")
def namespace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from api_campaign import build_campaign

    folder = tmp_path_factory.mktemp("python-api")
    for name in ("runs", "qrels", "topics"):
        shutil.copytree(ROOT / name, folder / name)
    build_campaign(folder / "judging" / "example.sqlite")
    space: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for number, block in enumerate(python_blocks(), start=1):
            exec(compile(block, f"{DOCS}:block {number}", "exec"), space)
    space["__folder__"] = folder
    return space


# by hand, from the rankings on the page (one relevant doc per topic):
#   bm25:  q1 a@1  q2 d@2  q3 h@3  q4 i@1  q5 l@2  q6 n@2     dense: q1 a@1 q2 d@1 q3 h@2 q4 i@1 q5 l@1 q6 none
RR = {
    "bm25": {"q1": 1.0, "q2": 0.5, "q3": 1 / 3, "q4": 1.0, "q5": 0.5, "q6": 0.5},
    "dense": {"q1": 1.0, "q2": 1.0, "q3": 0.5, "q4": 1.0, "q5": 1.0, "q6": 0.0},
}
P1 = {run: {q: float(v == 1.0) for q, v in rr.items()} for run, rr in RR.items()}


def test_the_page_has_the_examples_it_promises() -> None:
    assert len(python_blocks()) == 8


def test_notebook_scores_are_the_hand_values(namespace: dict[str, Any]) -> None:
    scores = namespace["scores"]
    assert list(scores.columns) == ["run", "query_id", "measure", "value"]
    expected = []
    for run in ("bm25", "dense"):
        expected += [(run, q, m, table[run][q]) for q in RR[run] for m, table in (("RR@10", RR), ("P@1", P1))]
        expected += [
            (run, "all", m, sum(table[run].values()) / 6) for m, table in (("RR@10", RR), ("P@1", P1))
        ]
    got = list(scores.itertuples(index=False, name=None))
    assert [row[:3] for row in got] == [row[:3] for row in expected]
    assert [row[3] for row in got] == pytest.approx([row[3] for row in expected])
    assert namespace["per_topic"][("dense", "RR@10")]["q3"] == pytest.approx(0.5)


def test_notebook_comparison_is_scipys_paired_t_test(namespace: dict[str, Any]) -> None:
    from scipy import stats

    from toolkit.stats import ComparisonResult

    result = namespace["result"]
    assert isinstance(result, ComparisonResult)
    frame = result.to_dataframe().set_index("measure")
    base, cand = list(RR["bm25"].values()), list(RR["dense"].values())
    assert frame.loc["RR@10", "delta"] == pytest.approx(sum(cand) / 6 - sum(base) / 6)
    assert frame.loc["RR@10", "tests.t.pvalue"] == pytest.approx(stats.ttest_rel(cand, base).pvalue)
    assert frame.loc["P@1", "mean_candidate"] == pytest.approx(4 / 6)
    assert list(namespace["table"].columns) == [
        "candidate",
        "measure",
        "mean_baseline",
        "mean_candidate",
        "delta",
    ]
    html = result._repr_html_()
    assert html.startswith('<div class="trec-toolkit">') and html.rstrip().endswith("</div>")
    assert "<html" not in html and "<body" not in html and "<script" not in html
    assert html.count("data:image/png;base64,") == 3  # per-topic delta, first-relevant rank, CI forest


def test_typeerror_example(namespace: dict[str, Any]) -> None:
    assert namespace["message"].startswith("cannot use int as runs; pass one run (a TREC run file path")


def test_naming_examples(namespace: dict[str, Any]) -> None:
    assert sorted(set(namespace["by_position"].run)) == ["run1", "run2"]
    assert sorted(set(namespace["named"].run)) == ["bm25", "dense"]
    files = namespace["files"]
    assert sorted(set(files.run)) == ["bm25", "bm25f"]


def test_file_examples_equal_the_cli(namespace: dict[str, Any]) -> None:
    """The documented compare on the shipped example equals `trec-toolkit compare … --format json`."""
    from click.testing import CliRunner

    from toolkit.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(namespace["__folder__"])
        cli = CliRunner().invoke(
            main,
            ["compare", "runs/bm25.run", "runs/bm25f.run", "--qrels", "qrels/stdlib.qrels", "--topics",
             "topics/stdlib.toml", "--primary", "RR@10", "--seed", "7", "--format", "json"],
        )  # fmt: skip
        assert cli.exit_code == 0, cli.output
        assert namespace["files_result"].to_json() == cli.stdout
        html = (namespace["__folder__"] / "audit.html").read_text(encoding="utf-8")
        assert html.startswith("<!DOCTYPE html>") and "bm25f" in html


def test_topic_example_is_the_run_files_top_ten(namespace: dict[str, Any]) -> None:
    """frag-05's frame: both lists as the run files rank them (score descending, ties by doc id descending)."""
    folder = namespace["__folder__"]
    frame = namespace["frag"]
    for run in ("bm25", "bm25f"):
        rows = [line.split() for line in (folder / "runs" / f"{run}.run").read_text().splitlines()]
        ranked = sorted(((float(r[4]), r[2]) for r in rows if r[0] == "frag-05"), reverse=True)
        assert list(frame[(run, "doc_id")]) == [d for _, d in ranked[:10]]
    base = list(frame[("bm25", "doc_id")])
    expected = [
        d for i, d in enumerate(frame[("bm25f", "doc_id")], start=1) if d in base and base.index(d) + 1 > i
    ]
    assert list(namespace["moved_up"][("bm25f", "doc_id")]) == expected and expected
    assert namespace["paper_table"].startswith("% trec-toolkit: a comparison table")


def test_agree_example_is_sklearns_kappa(namespace: dict[str, Any]) -> None:
    from sklearn.metrics import cohen_kappa_score

    alice, bob = [2, 0, 3, 1] * 3, [2, 1, 3, 1] * 3
    pair = namespace["pairs"].iloc[0]
    assert (pair["a"], pair["b"], pair["n"]) == ("alice", "bob", 12)
    assert pair["kappa.unweighted.value"] == pytest.approx(cohen_kappa_score(alice, bob, labels=[0, 1, 2, 3]))
    assert pair["kappa.quadratic.value"] == pytest.approx(
        cohen_kappa_score(alice, bob, labels=[0, 1, 2, 3], weights="quadratic")
    )


def test_campaign_example(namespace: dict[str, Any]) -> None:
    from api_campaign import DECISIONS

    minutes = namespace["minutes"]
    for assessor in ("alice", "bob"):
        spent = sum(d for a, _, _, _, d, _ in DECISIONS if a == assessor)
        assert minutes[assessor] == pytest.approx(spent / 60_000)
    assert len(namespace["log"]) == len(DECISIONS) + 2  # the undone grade and its undo are in the log
    pair = namespace["campaign_agreement"].to_dataframe().iloc[0]
    # the items both graded: (q1,d1) 2/2, (q1,d2) 0/1, (401,d3) 3/3 — alice skipped (401,d1)
    assert pair["n"] == 3
    assert pair["percent_agreement"] == pytest.approx(200 / 3)
    # three shared items: too few for a kappa by the minimum-data rule (docs/statistics.md), so it is null
    # with the rule as its reason (the agree example above checks the value against sklearn)
    assert (
        pair["kappa.unweighted.value"] is None
        or pair["kappa.unweighted.value"] != pair["kappa.unweighted.value"]
    )
    assert pair["kappa.unweighted.reason"] == "needs at least 10 shared items (found 3)"


def test_files_example_wrote_trec_files(namespace: dict[str, Any]) -> None:
    folder = namespace["__folder__"]
    lines = (folder / "dense.run").read_text().splitlines()
    assert lines[:2] == ["q1 Q0 a 1 10.0 dense", "q1 Q0 b 2 9.0 dense"]
    assert (folder / "example.qrels").read_text().splitlines()[0] == "q1 0 a 1"
