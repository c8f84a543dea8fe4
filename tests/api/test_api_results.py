"""``ComparisonResult`` and ``AgreementResult`` of the public API: frozen, the originals' fields, and every
rendering the command line's, byte for byte (the CLI is the reference: one document, every format)."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import toolkit
from toolkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
RUNS = [str(ROOT / "runs" / "bm25.run"), str(ROOT / "runs" / "bm25f.run")]
QRELS = str(ROOT / "qrels" / "stdlib.qrels")
TOPICS = str(ROOT / "topics" / "stdlib.toml")


@pytest.fixture(scope="module")
def result() -> toolkit.ComparisonResult:
    return toolkit.compare(RUNS, QRELS, topics=TOPICS, seed=3)


def cli(*args: str) -> str:
    out = CliRunner().invoke(main, list(args))
    assert out.exit_code == 0, out.output
    return out.stdout


@pytest.mark.parametrize(
    ("method", "fmt"), [("to_text", "table"), ("to_markdown", "md"), ("to_json", "json"), ("to_html", "html")]
)
def test_comparison_renders_as_the_cli(
    result: toolkit.ComparisonResult, method: str, fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # outside the example workspace: no [docs] titles for the per-topic view
    expected = cli("compare", *RUNS, "--qrels", QRELS, "--topics", TOPICS, "--seed", "3", "--format", fmt)
    assert getattr(result, method)() == expected


def test_comparison_is_the_stats_result_frozen(result: toolkit.ComparisonResult) -> None:
    from toolkit.formats import read_qrels, read_run, read_topics
    from toolkit.stats import ComparisonResult, compare_runs

    assert isinstance(result, ComparisonResult)
    plain = compare_runs([read_run(p) for p in RUNS], read_qrels(QRELS), topics=read_topics(TOPICS), seed=3)
    for field in dataclasses.fields(plain):
        assert getattr(result, field.name) == getattr(plain, field.name), field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.alpha = 0.1  # type: ignore[misc]
    wrapped = toolkit.ComparisonResult.of(plain)
    assert wrapped.to_json() == result.to_json()


def test_comparison_frame_is_the_json_comparisons(result: toolkit.ComparisonResult) -> None:
    frame = result.to_dataframe()
    records = json.loads(result.to_json())["comparisons"]
    assert len(frame) == len(records) == len(result.comparisons)
    assert list(frame.candidate) == [c.candidate for c in result.comparisons]
    assert list(frame.measure) == [str(c.measure) for c in result.comparisons]
    assert list(frame.delta) == pytest.approx([c.delta for c in result.comparisons])
    assert list(frame["tests.t.pvalue"]) == pytest.approx([r["tests"]["t"]["pvalue"] for r in records])


def test_repr_html_is_the_page_as_a_scoped_fragment(result: toolkit.ComparisonResult) -> None:
    from toolkit.reports import render

    # the page without its per-topic view (a notebook shows one topic with result.topic(...))
    page, fragment = render(result, "html", topics=result.topic_set), result._repr_html_()
    body = page.split("<body>\n", 1)[1].rsplit("</body>", 1)[0]
    style, inner = fragment.split("</style>\n", 1)
    assert inner.rsplit("</div>", 1)[0] == body
    selectors = re.findall(r"^(.*?)\s*\{", style.split("<style>\n", 1)[1], re.M)
    assert selectors and all(
        s.strip().startswith(".trec-toolkit ") for sel in selectors for s in sel.split(",")
    )


def test_displaying_a_comparison_leaves_matplotlibs_backend_alone() -> None:
    """A notebook's inline backend must survive: drawing the plots used to force Agg on the whole process."""
    code = (
        "import matplotlib\nmatplotlib.use('svg')\nimport toolkit\n"
        f"r = toolkit.compare({RUNS!r}, {QRELS!r}, resamples=1000, bootstrap=100)\n"
        "assert 'data:image/png' in r._repr_html_()\nprint(matplotlib.get_backend())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "svg"


# --------------------------------------------------------------------------- agreement


# four copies of three items (kappa is the same as on one copy): agree's minimum-data rule needs 10 shared items
TSV = "".join(
    f"alice\t{q}\t{d}{copy}\t{a}\nbob\t{q}\t{d}{copy}\t{b}\n"
    for copy in ("", "-2", "-3", "-4")
    for q, d, a, b in (("q1", "d1", 2, 2), ("q1", "d2", 0, 1), ("q2", "d3", 3, 3))
)
TUPLES = [tuple(line.split("\t")[:3]) + (int(line.split("\t")[3]),) for line in TSV.splitlines()]


def test_every_judgments_kind_gives_one_agreement(tmp_path: Path, example_campaign: Path) -> None:
    import pandas as pd
    from sklearn.metrics import cohen_kappa_score

    from toolkit.formats.judgments import format_judgments
    from toolkit.judging.store import CampaignStore

    (tmp_path / "j.tsv").write_text(TSV)
    frame = pd.DataFrame(TUPLES, columns=["assessor", "query_id", "doc_id", "grade"])
    sources = {
        "tuples": TUPLES,
        "generator": (t for t in TUPLES),
        "frame": frame,
        "frame with qid/docno": frame.rename(columns={"query_id": "qid", "doc_id": "docno"}),
        "tsv path": tmp_path / "j.tsv",
    }
    results = {k: toolkit.agree(v, labels=[0, 1, 2, 3], bootstrap=0).to_json() for k, v in sources.items()}
    assert len(set(results.values())) == 1
    kappa = json.loads(results["tuples"])["pairs"][0]["kappa"]["unweighted"]["value"]
    assert kappa == pytest.approx(cohen_kappa_score([2, 0, 3], [2, 1, 3], labels=[0, 1, 2, 3]))

    campaign = toolkit.Campaign.open(example_campaign)
    with CampaignStore.open(example_campaign) as store:
        records = store.current_judgments()
    for fmt, name in (("tsv", "c.tsv"), ("csv", "c.csv"), ("jsonl", "c.jsonl")):
        (tmp_path / name).write_text(format_judgments(records, fmt))
    from_campaign = {
        "Campaign": campaign,
        "sqlite path": example_campaign,
        "str path": str(example_campaign),
        "Campaign.judgments()": campaign.judgments(),
        "Judgment records": records,
        "tsv export": tmp_path / "c.tsv",
        "csv export": tmp_path / "c.csv",
        "jsonl export": tmp_path / "c.jsonl",
    }
    results = {
        k: toolkit.agree(v, labels=[0, 1, 2, 3], bootstrap=0).to_json() for k, v in from_campaign.items()
    }
    assert len(set(results.values())) == 1, {k: v[:200] for k, v in results.items()}
    assert campaign.agree(bootstrap=0).to_json() == results["Campaign"]  # the campaign's scale is 0..3


def test_agreement_renders_as_the_cli(example_campaign: Path) -> None:
    result = toolkit.agree(example_campaign, bootstrap=0)
    assert isinstance(result, toolkit.AgreementResult)
    for method, fmt in (
        ("to_text", "table"),
        ("to_markdown", "md"),
        ("to_json", "json"),
        ("to_html", "html"),
    ):
        expected = cli("agree", str(example_campaign), "--bootstrap", "0", "--format", fmt)
        assert getattr(result, method)() == expected
    frame = result.to_dataframe()
    assert list(frame[["a", "b", "n"]].itertuples(index=False, name=None)) == [("alice", "bob", 3)]
    assert "per_topic" not in frame.columns  # records inside a record stay in the JSON
    assert result._repr_html_().startswith('<div class="trec-toolkit">')


JUDGMENTS_TYPEERROR = "; pass a campaign (toolkit.Campaign, a .sqlite path or a postgresql:// URL)"


@pytest.mark.parametrize(
    ("judgments", "message"),
    [
        (42, "cannot use int as judgments" + JUDGMENTS_TYPEERROR),
        (None, "cannot use NoneType as judgments" + JUDGMENTS_TYPEERROR),
        ({"alice": 2}, "cannot use dict as judgments" + JUDGMENTS_TYPEERROR),
        (
            ["ab"],
            "cannot use list as judgments: its items are not (assessor, query_id, doc_id, grade) tuples",
        ),
        (
            [1, 2],
            "cannot use list as judgments: its items are not (assessor, query_id, doc_id, grade) tuples",
        ),
    ],
)
def test_agree_refuses_anything_else(judgments: object, message: str) -> None:
    with pytest.raises(TypeError) as err:
        toolkit.agree(judgments)
    assert str(err.value).startswith(message)


def test_a_judgments_frame_is_checked_like_a_file() -> None:
    import pandas as pd

    from toolkit.errors import FormatError

    with pytest.raises(TypeError, match="a judgments DataFrame needs the columns assessor, query_id"):
        toolkit.agree(pd.DataFrame({"assessor": ["a"], "query_id": ["q"], "doc_id": ["d"]}))
    frame = pd.DataFrame(
        TUPLES + [("alice", "q1", "d1", 1)], columns=["assessor", "query_id", "doc_id", "grade"]
    )
    with pytest.raises(FormatError) as err:
        toolkit.agree(frame)
    assert str(err.value) == (
        "<DataFrame>:25: duplicate judgment by alice of (q1, d1); first on line 1 (keep one line per assessor and "
        "item)"
    )
    fractional = pd.DataFrame([("a", "q", "d", 1.5)], columns=["assessor", "query_id", "doc_id", "grade"])
    with pytest.raises(
        FormatError, match=r"^<DataFrame>:1: expected an integer grade, 'skip' or 'unrateable', found 1.5"
    ):
        toolkit.agree(fractional)
    numeric_ids = pd.DataFrame(
        [("a", 301, 7, 1), ("b", 301, 7, 1)], columns=["assessor", "qid", "docno", "grade"]
    )
    assert toolkit.agree(numeric_ids, bootstrap=0).n_items == 1
