"""``trec-toolkit compare``: paired comparison of 2+ runs (the first is the baseline)."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import emit, format_option, output_option, qrels_option, topics_option


def parse_margins(values: tuple[str, ...]) -> dict[str, float]:
    """``--margin nDCG@10=0.02`` (repeatable) → {measure: margin}."""
    from toolkit.errors import UsageError

    margins: dict[str, float] = {}
    for item in values:
        measure, sep, number = item.rpartition("=")
        try:
            value = float(number)
        except ValueError:
            value = float("nan")
        if not sep or not measure or not value >= 0:
            raise UsageError(
                f"--margin {item!r}: expected MEASURE=NUMBER with NUMBER >= 0, e.g. nDCG@10=0.02"
            )
        margins[measure] = value
    return margins


@click.command(context_settings={"max_content_width": 100})
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@qrels_option
@topics_option("Topic set: defines the topics counted, classes (per-class tables) and deprecation pairs.")
@click.option(
    "--measures",
    default=None,
    help="Measures, e.g. 'RR@10 P@1 nDCG@10' (default: RR@10 P@1 P@5 nDCG@10 Rprec AP).",
)
@click.option("--primary", default=None, help="The declared primary measure (default RR@10, else the first).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--seed", type=int, default=42, show_default=True, help="Seed of every resampling test.")
@click.option(
    "--margin",
    "margins",
    multiple=True,
    metavar="MEASURE=M",
    help="Non-inferiority margin, e.g. nDCG@10=0.02 (repeatable).",
)
@click.option(
    "--correction",
    type=click.Choice(["holm", "bh", "none"]),
    default="holm",
    show_default=True,
    help="Multiple-comparison adjustment: Holm (confirmatory) or Benjamini–Hochberg (exploratory).",
)
@click.option(
    "--zero-method",
    type=click.Choice(["wilcox", "pratt"]),
    default="wilcox",
    show_default=True,
    help="How Wilcoxon treats zero differences.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["none", "regression"]),
    default="none",
    show_default=True,
    help="regression: exit 3 when a candidate is significantly worse on the primary measure.",
)
@format_option("table", "md", "json", "html", default="table")
@output_option
def command(
    runs: tuple[Path, ...],
    qrels_path: Path,
    topics_path: Path | None,
    measures: str | None,
    primary: str | None,
    alpha: float,
    seed: int,
    margins: tuple[str, ...],
    correction: str,
    zero_method: str,
    fail_on: str,
    fmt: str,
    output: Path | None,
) -> None:
    """Compare RUNS paired by topic; the first run is the baseline.

    \b
    Per measure and candidate: means, delta with bootstrap and t 95% CIs, paired randomization test
    (exact when possible), t-test, Wilcoxon, effect sizes, MDE at 80% power, adjusted p-values;
    rank-1 buckets with exact McNemar; preferences; per-class tables; all-pairs test for 3+ runs.
    \b
    Examples:
      trec-toolkit compare runs/bm25.run runs/bm25f.run --qrels qrels/stdlib.qrels --topics topics/stdlib.toml
      trec-toolkit compare a.run b.run --qrels q.qrels --margin nDCG@10=0.02 --format md -o audit.md
    """
    import sys

    from toolkit.errors import CheckFailed
    from toolkit.formats import read_qrels, read_run, read_topics
    from toolkit.pipeline.pilot import pilot_runs
    from toolkit.reports import document, mark_pilot, render, write_markdown
    from toolkit.stats.comparison import compare_runs

    loaded = [read_run(p) for p in runs]
    pilots = pilot_runs(loaded)
    qrels = read_qrels(qrels_path)
    topics = read_topics(topics_path) if topics_path else None
    result = compare_runs(
        loaded,
        qrels,
        topics=topics,
        measures=measures,
        primary=primary,
        alpha=alpha,
        seed=seed,
        margins=parse_margins(margins),
        correction=correction,
        zero_method=zero_method,
    )
    if fmt == "md" and output is not None and str(output) != "-":
        for path in write_markdown(result, output, topics=topics, pilot=pilots):
            click.echo(f"Wrote {path}", err=True)
    else:
        color = fmt == "table" and str(output or "-") == "-" and sys.stdout.isatty()
        doc = mark_pilot(document(result, topics=topics, plots=fmt == "html"), pilots)
        emit(render(doc, fmt, color=color), output)
    worse = result.regressions()
    if fail_on == "regression" and worse:
        names = ", ".join(f"{c.candidate} ({c.measure} {c.delta:+.4f})" for c in worse)
        raise CheckFailed(f"significant regression on the primary measure: {names}")
