"""``ComparisonResult.topic()``, ``.to_latex()`` and the per-topic view of ``.to_html()`` in the Python API.

The study of tests/cli/test_compare_topic_view.py (t1: the relevant document falls from rank 1 to 3), its
expected values written out by hand from the run files and qrels.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit.errors import UsageError

pytestmark = pytest.mark.filterwarnings("ignore::toolkit.errors.ToolkitWarning")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from test_compare_topic_view import BASE, CAND, CORPUS, QRELS, TOPICS, invoke, write_run  # noqa: E402


@pytest.fixture
def study(tmp_path: Path) -> Path:
    (tmp_path / "t.toml").write_text(TOPICS)
    (tmp_path / "q.qrels").write_text(QRELS)
    write_run(tmp_path / "base.run", BASE, "base")
    write_run(tmp_path / "cand.run", CAND, "cand")
    return tmp_path


def compare(study: Path, **options: object) -> toolkit.ComparisonResult:
    runs = [str(study / "base.run"), str(study / "cand.run")]
    return toolkit.compare(
        runs, str(study / "q.qrels"), topics=str(study / "t.toml"), primary="RR@10", **options
    )


def test_topic_is_a_frame_of_both_rankings(study: Path) -> None:
    frame = compare(study, docs=CORPUS).topic("t1")
    assert isinstance(frame, pd.DataFrame) and list(frame.index) == [1, 2, 3]
    assert list(frame["base"]["doc_id"]) == ["rel1", "x1", "u1"]
    assert list(frame["cand"]["doc_id"]) == ["x1", "new1", "rel1"]
    assert frame["base"]["grade"].tolist() == [2, 0, pd.NA]  # u1 is unjudged
    assert frame["cand"]["rank_in_other"].tolist() == [2, pd.NA, 1]
    assert frame["cand"]["first_relevant"].tolist() == [False, False, True]
    assert frame["base"]["title"].tolist() == ["The answer to t1", "A decoy", pd.NA]  # u1: not fetched
    assert frame.attrs["bucket"] == "degraded" and frame.attrs["query"] == "first query"
    assert frame.attrs["values"]["RR@10"] == {"base": 1.0, "cand": pytest.approx(1 / 3)}
    assert type(frame.head(1)) is pd.DataFrame  # a derived frame is plain data


def test_topic_renders_side_by_side_in_a_notebook(study: Path) -> None:
    html = compare(study, docs=CORPUS).topic("t1")._repr_html_()
    for text in (
        "first query",
        "Degraded",
        "The answer to t1",
        "Newcomer",
        "unjudged",
        "★",
        "↓2",
        "→3",
        "new",
    ):
        assert text in html, text
    assert "<script" not in html


def test_topic_needs_rankings_and_a_known_topic(study: Path) -> None:
    result = compare(study)
    with pytest.raises(UsageError, match="topic 'nope' is not in this comparison"):
        result.topic("nope")
    from toolkit.formats import read_qrels, read_run
    from toolkit.stats import compare_runs

    runs = [read_run(study / "base.run"), read_run(study / "cand.run")]
    plain = toolkit.ComparisonResult.of(compare_runs(runs, read_qrels(study / "q.qrels")))  # no rankings kept
    with pytest.raises(UsageError, match=r"keeps no rankings: make it with toolkit.compare"):
        plain.topic("t1")
    with pytest.raises(TypeError, match=r"docs= takes a .jsonl/.tsv corpus path"):
        compare(study, docs=42).topic("t1")


def test_to_latex_is_the_command_lines(study: Path) -> None:
    """The command line's table (its console-script path: tests/reports/test_latex.py), here in-process."""
    done = invoke(study, "--format", "latex")
    assert done.returncode == 0, done.stderr
    assert compare(study).to_latex() == done.stdout


def test_to_html_holds_the_view_with_titles_from_docs(study: Path) -> None:
    corpus = study / "corpus.jsonl"
    corpus.write_text(
        "".join(json.dumps({"doc_id": d, "title": t, "text": x}) + "\n" for d, (t, x) in CORPUS.items())
    )
    page = compare(study, docs=corpus).to_html(topics_shown=1)
    data = json.loads(page.split('id="tv-data">', 1)[1].split("</script>", 1)[0])
    assert [t["q"] for t in data["topics"]] == ["t1"]
    assert {row[0]: row[1] for row in data["docs"]} == {
        "rel1": "The answer to t1",
        "x1": "A decoy",
        "u1": "",
        "new1": "Newcomer",
    }
