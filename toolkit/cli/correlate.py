"""``trec-toolkit correlate``: do two sets of qrels rank the runs the same? (``toolkit.stats.correlation``)"""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import (
    emit,
    file_option,
    paired_test_option,
    report_options,
    resamples_option,
    seed_option,
    topics_option,
)


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@file_option(
    "--qrels",
    "qrels_paths",
    multiple=True,
    required=True,
    help="Two qrels: first the reference (A, e.g. the full judgments), then the one checked (B). Give it twice.",
)
@topics_option("Topic set: the topics counted under both qrels (default: the reference qrels' topics).")
@click.option(
    "--measure",
    default=None,
    help="The measure the runs are ranked by [default: [workspace] primary in toolkit.toml, else nDCG@10].",
)
@paired_test_option("The paired test of each swapped pair under each qrels.")
@click.option("--alpha", type=float, default=0.05, help="Significance level of those tests.")
@seed_option(42, "Seed of the bootstrap and of the tests.")
@resamples_option("--resamples", 10_000, "Topic-bootstrap resamples of the intervals (0: no intervals).")
@report_options()
def command(
    runs: tuple[Path, ...],
    qrels_paths: tuple[Path, ...],
    topics_path: Path | None,
    measure: str | None,
    test: str,
    alpha: float,
    seed: int,
    resamples: int,
    fmt: str,
    output: Path | None,
) -> None:
    """Rank RUNS under two qrels and compare the rankings: Kendall's τ, τ_AP and Spearman's ρ with topic-bootstrap
    95% intervals, each run's score under both, and the pairs of runs that swap with the paired test of each pair
    under each qrels. This is how a cheaper judging design (a budget, a sample, another round or group of
    assessors) is checked against the full one. τ_AP weighs swaps near the top more; A is its reference.

    \b
    Examples:
      trec-toolkit correlate runs/*.run --qrels qrels/full.qrels --qrels qrels/budget.qrels
      trec-toolkit correlate runs/*.run --qrels qrels/a.qrels --qrels qrels/b.qrels --measure AP --format json
    """
    from toolkit.errors import UsageError
    from toolkit.formats import read_qrels, read_run, read_topics
    from toolkit.reports import render
    from toolkit.reports.correlation import correlation_document
    from toolkit.stats.correlation import CorrelationOptions, correlate

    if len(qrels_paths) != 2:
        raise UsageError(
            f"correlate needs --qrels twice (the reference, then the one checked); got {len(qrels_paths)}"
        )
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {alpha}")
    topics = read_topics(topics_path) if topics_path is not None else None
    qrels_a, qrels_b = (read_qrels(p) for p in qrels_paths)
    if qrels_a.name == qrels_b.name:
        qrels_a = type(qrels_a)(qrels_a.judgments, str(qrels_paths[0]), qrels_a.path)
        qrels_b = type(qrels_b)(qrels_b.judgments, str(qrels_paths[1]), qrels_b.path)
    result = correlate(
        [read_run(p) for p in runs],
        qrels_a,
        qrels_b,
        measure=measure or primary_measure(),
        topics=topics,
        options=CorrelationOptions(alpha=alpha, test=test, seed=seed, resamples=resamples),
    )
    emit(render(correlation_document(result), fmt), output)


def primary_measure() -> str:
    """The workspace's primary measure (``[workspace] primary`` of toolkit.toml, the one setting ``score``,
    ``compare``, ``gate`` and ``audit`` read), else compare's default primary (nDCG@10)."""
    from toolkit.stats.comparison import DEFAULT_PRIMARY
    from toolkit.workspace import load_workspace

    return str(load_workspace().shared_setting("primary") or DEFAULT_PRIMARY)
