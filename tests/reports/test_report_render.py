"""Reports: deterministic bytes, strict JSON, number formatting, Markdown/HTML structure, PNG plots."""

import json
import math
from pathlib import Path

import pytest

from toolkit.formats import read_qrels, read_run, read_topics
from toolkit.reports import render, write_audit
from toolkit.reports.jsonreport import _clean
from toolkit.reports.numbers import interval, pval, signed
from toolkit.stats import compare_runs

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"


@pytest.fixture(scope="module")
def result():
    runs = [read_run(DATA / "s3-a.run"), read_run(DATA / "s3-b.run")]
    return compare_runs(
        runs, read_qrels(DATA / "s3.qrels"), topics=read_topics(DATA / "s3.toml"), margins={"P@1": 0.1}
    )


def test_numbers():
    assert signed(0.18) == "+0.1800" and signed(-0.00001) == "+0.0000" and signed(None) == "–"
    assert pval(0.1875) == "0.1875" and pval(2e-6) == "2.0e-06" and pval(float("nan")) == "–"
    assert interval((-0.045, 0.4)) == "[-0.0450, +0.4000]"


def test_json_is_strict_and_never_rounded(result):
    doc = json.loads(render(result, "json"))
    rr = next(c for c in doc["comparisons"] if c["measure"] == "RR@10")
    assert rr["mean_baseline"] == 0.5  # s3-a: modern page at rank 2 on all 20 topics
    assert _clean({"x": [float("nan"), math.inf, 1.5]}) == {"x": [None, None, 1.5]}


@pytest.mark.parametrize("fmt", ["table", "md", "json", "html"])
def test_deterministic(result, fmt):
    runs = [read_run(DATA / "s3-a.run"), read_run(DATA / "s3-b.run")]
    again = compare_runs(
        runs, read_qrels(DATA / "s3.qrels"), topics=read_topics(DATA / "s3.toml"), margins={"P@1": 0.1}
    )
    assert render(result, fmt) == render(again, fmt)


def test_markdown_sections(result):
    md = render(result, "md", topics=read_topics(DATA / "s3.toml"))
    headings = [
        "# Audit: s3-b vs s3-a",
        "## Verdict",
        "## Aggregate",
        "## Confirmatory test (nDCG@10)",
        "## Secondary measures",
        "## Non-inferiority",
        "## Rank-1 buckets",
        "## Preferences (deprecation)",
        "## Per class (exploratory)",
        "### deprecation (20 topics)",
        "## Judged@10",
        "## Failed topics",
        "## Worst regressions (nDCG@10)",
        "## Appendix",
        "### Setup",
        "### Versions",
    ]
    at = [md.index(h + "\n") for h in headings]
    assert at == sorted(at)  # docs/design.md §7's reading order: verdict first, setup and versions last
    assert "| s3-b | P@1 | 0.1 | +0.6500 |" in md
    assert "deprecated api 14" in md  # worst regressions show the query text


def test_text_has_colour_only_when_asked(result):
    assert "\x1b[" not in render(result, "table")
    assert "\x1b[1m" in render(result, "table", color=True)


def test_write_audit_bundle_is_byte_identical(result, tmp_path):
    first = write_audit(result, tmp_path / "a")
    second = write_audit(result, tmp_path / "b")
    assert [p.name for p in first] == [p.name for p in second]
    for p, q in zip(first, second, strict=True):
        assert p.read_bytes() == q.read_bytes(), p.name
    html = (tmp_path / "a" / "audit.html").read_text()
    assert html.count("data:image/png;base64,") == 3 and "<script" not in html


def test_each_plot_is_laid_out_and_drawn_once_whatever_the_rc_says(result, monkeypatch):
    """A figure left with a layout engine is drawn twice by ``savefig`` (once unrendered, for the engine):
    each plot is laid out once and drawn once, also under a matplotlibrc asking for automatic layouts, and
    the PNG is the one ``Figure.tight_layout`` + ``savefig`` gives (matplotlib's documented way)."""
    import io

    import matplotlib
    from matplotlib.figure import Figure

    from toolkit.reports import plots

    draws = []
    draw = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda fig, renderer: (draws.append(fig), draw(fig, renderer))[1])
    with matplotlib.rc_context({"figure.autolayout": True}):
        drawn = plots.render_plots(result)
    assert len(drawn) == 3 and len(draws) == 3 and len(set(map(id, draws))) == 3

    def documented(fig: object, plt: object) -> bytes:
        buffer = io.BytesIO()
        fig.tight_layout()
        fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
        return buffer.getvalue()

    monkeypatch.setattr(Figure, "draw", draw)
    monkeypatch.setattr(plots, "_png", documented)
    assert [p.png for p in plots.render_plots(result)] == [p.png for p in drawn]
