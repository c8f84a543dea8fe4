"""``trec-toolkit compare``: paired comparison of 2+ runs (the first is the baseline)."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import (
    allow_failed_option,
    docs_source_option,
    emit,
    evaluation_options,
    evaluation_workspace,
    paired_test_option,
    report_options,
    seed_option,
    topics_shown_option,
)


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


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@evaluation_options(
    "Topic set: defines the topics counted, classes (per-class tables) and deprecation pairs (default: "
    "[workspace] topics, else the qrels' topics)."
)
@click.option(
    "--measures",
    default=None,
    help="Measures, e.g. 'RR@10 P@1 nDCG@10' (default: [workspace] measures, else the topic set's class "
    "measures, else RR@10 P@1 P@5 nDCG@10 Rprec AP).",
)
@click.option(
    "--primary",
    default=None,
    help="The declared primary measure: the confirmatory test (default: [workspace] primary, else nDCG@10; "
    "added when not measured).",
)
@paired_test_option("The declared test whose p the report uses (the others go to JSON and the appendix).")
@click.option(
    "--order",
    default=None,
    metavar="RUN,RUN",
    help="Declare the candidates' order: the confirmatory family becomes fixed-sequence instead of Holm.",
)
@click.option("--alpha", type=float, default=0.05, help="Significance level.")
@seed_option(42, "Seed of every resampling test.")
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
    help="Adjustment of the secondary and exploratory families (the confirmatory one is Holm or --order).",
)
@click.option(
    "--zero-method",
    type=click.Choice(["wilcox", "pratt"]),
    default="wilcox",
    help="How Wilcoxon treats zero differences.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["none", "regression"]),
    default="none",
    help="regression: exit 3 when a candidate fails non-inferiority on the primary measure (with --margin "
    "for it), else when it is significantly worse (confirmatory test); the criterion is printed.",
)
@allow_failed_option(
    "Give verdicts even when a run's manifest records failed topics (they are still listed)."
)
@click.option(
    "--show",
    "show",
    multiple=True,
    metavar="TOPIC",
    help="Print TOPIC's rankings side by side (grades, moves, titles) instead of the report (repeatable).",
)
@docs_source_option(
    "docs",
    "Titles and snippets for --show and the HTML's per-topic view: a campaign (its snapshots), a "
    ".jsonl/.tsv corpus or a folder (default: [docs] of toolkit.toml, when there is one).",
)
@topics_shown_option
@report_options("table", "md", "json", "html", "latex")
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
    test: str,
    order: str | None,
    zero_method: str,
    fail_on: str,
    allow_failed: bool,
    no_workspace: bool,
    show: tuple[str, ...],
    docs: str | None,
    topics_shown: int | None,
    fmt: str,
    output: Path | None,
) -> None:
    """Compare RUNS paired by topic; the first run is the baseline.

    \b
    The verdict per candidate is the confirmatory test of the primary measure (Holm across candidates,
    or fixed-sequence with --order); other measures are a secondary family, per-class rows and all pairs
    (3+ runs) exploratory. Headline CI: studentized bootstrap, unadjusted, from 30 topics. Also: rank-1
    buckets with exact McNemar, preferences, refusal and empty results (topics declared expect = "empty";
    exact McNemar), Judged@k, failed topics; t, Wilcoxon, effect sizes, t CI, post hoc MDE in the appendix. The table format starts with the verdicts and the aggregate table. See docs/statistics.md.
    \b
    --format html adds the per-topic view (both rankings of each changed topic side by side); --show
    TOPIC prints one topic's in the terminal; --format latex writes a table for a paper (booktabs).
    \b
    Examples:
      trec-toolkit compare runs/bm25.run runs/bm25f.run --qrels qrels/stdlib.qrels --topics topics/stdlib.toml
      trec-toolkit compare a.run b.run --qrels q.qrels --margin nDCG@10=0.02 --format md -o audit.md
      trec-toolkit compare runs/bm25.run runs/bm25f.run --qrels qrels/stdlib.qrels --show frag-05
      trec-toolkit compare runs/bm25.run runs/bm25f.run --qrels qrels/stdlib.qrels --format latex -o table.tex
    """
    import sys

    from toolkit.errors import CheckFailed, UsageError
    from toolkit.formats import read_qrels, read_run
    from toolkit.formats.run import run_name
    from toolkit.model import Run
    from toolkit.pipeline.failures import comparison_failures, recorded_failures_at
    from toolkit.pipeline.pilot import pilot_runs
    from toolkit.reports import document, mark_pilot, render, write_markdown
    from toolkit.reports.view_limits import DEFAULT_TOPICS_SHOWN
    from toolkit.stats.comparison import compare_runs, rank_cutoff

    if show and fmt != "table":
        raise UsageError(f"--show prints the rankings as text; drop --format {fmt} (or drop --show)")
    ws = evaluation_workspace(no_workspace)
    settings = ws.evaluation(topics=topics_path, measures=measures, primary=primary)
    topics = settings.topics
    refuse_sampled(qrels_path)
    qrels = read_qrels(qrels_path)
    shown = DEFAULT_TOPICS_SHOWN if topics_shown is None else topics_shown
    names = [run_name(p) for p in runs]
    # manifests only (pilot flag, failed topics): the runs themselves are read one at a time below
    pilots = pilot_runs([Run(results={}, name=n, path=str(p)) for n, p in zip(names, runs, strict=True)])
    failures = comparison_failures(recorded_failures_at(runs), names[0], names[1:], allow_failed=allow_failed)
    # the per-topic view keeps each run's top k as it passes (only when something shows it)
    collector = None
    if show or fmt == "html":
        from toolkit.stats.rankings import RankingCollector

        collector = RankingCollector(qrels, rank_cutoff(settings.primary))
    loaded = (read_run(p) for p in runs)  # one at a time: each run is scored, summarised and freed
    result = compare_runs(
        collector.watch(loaded) if collector is not None else loaded,
        qrels,
        topics=topics,
        measures=settings.measures,
        primary=settings.primary,
        alpha=alpha,
        seed=seed,
        margins=parse_margins(margins),
        correction=correction,
        test=test,
        order=[o.strip() for o in order.split(",") if o.strip()] if order else None,
        failures=failures,
        zero_method=zero_method,
    )
    rankings = None
    if collector is not None:
        from toolkit.pipeline.topic_docs import view_rankings

        rankings = view_rankings(
            collector.rankings(),
            result,
            topics,
            shown=shown,
            docs=docs,
            workspace=ws,
            query_ids=show or None,
            log=lambda msg: click.echo(msg, err=True),
        )
    terminal = str(output or "-") == "-" and sys.stdout.isatty()
    if show and rankings is not None:
        from toolkit.cli.topic_show import render_topics

        emit(render_topics(result, rankings, topics, show, color=terminal), output)
    elif fmt == "md" and output is not None and str(output) != "-":
        for path in write_markdown(result, output, topics=topics, pilot=pilots):
            click.echo(f"Wrote {path}", err=True)
    else:
        doc = mark_pilot(document(result, topics=topics, plots=fmt == "html"), pilots)
        view = None
        if rankings is not None:
            from toolkit.reports.topic_view import TopicPage

            view = TopicPage(result, rankings, topics, shown)
        emit(render(doc, fmt, color=fmt == "table" and terminal, view=view), output)
    if fail_on == "regression":
        check = result.regression_check()
        if not check.passed:
            failed = "; ".join(f"{cand} ({why})" for cand, why in check.failed)
            raise CheckFailed(f"--fail-on regression failed: {failed}. Criterion: {check.criterion}")
        click.echo(f"--fail-on regression passed. Criterion: {check.criterion}", err=True)


def refuse_sampled(qrels_path: Path) -> None:
    """Qrels with inclusion probabilities hold a sample: a paired test on them as they are would score every
    unjudged document as not relevant. Say what to use instead, in one line."""
    from toolkit.errors import UsageError
    from toolkit.formats.sampled import has_probabilities

    text = str(qrels_path)
    if text != "-" and not text.startswith("ir_datasets:") and has_probabilities(qrels_path):
        raise UsageError(
            f"{qrels_path} holds inclusion probabilities (a sampled pool): compare does not test estimates yet; "
            "`score` gives each run's inferred measures with 95% intervals, `correlate` checks the ranking"
        )
