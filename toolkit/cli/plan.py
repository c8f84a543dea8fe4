"""``trec-toolkit plan``: how many topics and judgments a study needs (``toolkit.pipeline.plan``)."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import emit, file_option, pool_depth_option, report_options, topics_option


@click.command()
@click.argument("runs", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@file_option(
    "--qrels",
    "qrels_path",
    default=None,
    help="The pilot's qrels (with RUNS).",
)
@file_option(
    "--audit",
    "audit_path",
    default=None,
    help="Or: an earlier audit's (or compare's) JSON as the pilot, instead of RUNS and --qrels.",
)
@topics_option("Topic set: the pilot topics counted (default: the qrels' topics).")
@click.option(
    "--measure",
    default=None,
    help="The primary measure [default: [workspace] primary in toolkit.toml, else nDCG@10; an audit JSON's primary].",
)
@click.option("--delta", type=float, default=None, help="The smallest difference worth detecting, e.g. 0.05.")
@click.option("--alpha", type=float, default=None, help="Significance level [default: 0.05, or the audit's].")
@click.option("--power", type=float, default=0.8, help="Power wanted (1 − β).")
@click.option(
    "--comparisons",
    type=click.IntRange(min=1),
    default=None,
    help="Candidates compared with the baseline: α is split over them, as the audit's MDE [default: 1, or the audit's].",
)
@click.option(
    "--n",
    "study_topics",
    type=click.IntRange(min=2),
    default=None,
    help="Topics at hand for the detectable Δ [default: the pilot's].",
)
@pool_depth_option("--depth", 20, "Pool depth of the judging cost (depth-k, and the pool MaxMean searches).")
@report_options()
def command(
    runs: tuple[Path, ...],
    qrels_path: Path | None,
    audit_path: Path | None,
    topics_path: Path | None,
    measure: str | None,
    delta: float | None,
    alpha: float | None,
    power: float,
    comparisons: int | None,
    study_topics: int | None,
    depth: int,
    fmt: str,
    output: Path | None,
) -> None:
    """Plan a study from a pilot (topic-set-size design, Sakai 2016): the variance of the primary measure's
    per-topic differences, the topics needed to detect --delta with the paired t test at --alpha and --power,
    the difference detectable with the topics at hand (the audit's MDE at power 0.8), and the judgments a
    depth-k pool or the MaxMean order would need for that many topics.

    \b
    Examples:
      trec-toolkit plan runs/bm25.run runs/bm25f.run --qrels qrels/stdlib.qrels --measure RR@10 --delta 0.05
      trec-toolkit plan --audit audits/audit.json --delta 0.05
    """
    from toolkit.errors import UsageError
    from toolkit.reports import render
    from toolkit.reports.planning import plan_document

    if audit_path is not None:
        if runs or qrels_path is not None or topics_path is not None or measure is not None:
            raise UsageError(
                "--audit is a pilot by itself: give it without RUNS, --qrels, --topics or --measure"
            )
        from toolkit.pipeline.plan import plan_from_audit

        result = plan_from_audit(
            audit_path,
            delta=delta,
            alpha=alpha,
            power=power,
            comparisons=comparisons,
            study_topics=study_topics,
        )
    else:
        if len(runs) < 2 or qrels_path is None:
            raise UsageError("plan needs a pilot: two or more RUNS with --qrels, or --audit AUDIT.json")
        from toolkit.cli.correlate import primary_measure
        from toolkit.formats import read_qrels, read_run, read_topics
        from toolkit.pipeline.plan import plan_from_runs

        result = plan_from_runs(
            [read_run(p) for p in runs],
            read_qrels(qrels_path),
            measure=measure or primary_measure(),
            delta=delta,
            alpha=0.05 if alpha is None else alpha,
            power=power,
            comparisons=comparisons or 1,
            topics=read_topics(topics_path) if topics_path is not None else None,
            study_topics=study_topics,
            depth=depth,
        )
    emit(render(plan_document(result), fmt), output)
