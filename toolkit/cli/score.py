"""``trec-toolkit score``: measures per run, per topic and per class (a thin shell over ``toolkit.scoring``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkit.cli.options import (
    emit,
    evaluation_options,
    evaluation_workspace,
    pool_depth_option,
    report_options,
)

if TYPE_CHECKING:
    from toolkit.model import TopicSet


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@evaluation_options(
    "Topic set (any topic format, or ir_datasets:ID): defines the topics that count (default: [workspace] "
    "topics, else the qrels' topics)."
)
@click.option(
    "--measures",
    default=None,
    metavar="'M …'",
    help="Measures, space or comma separated, ir_measures syntax or trec_eval names "
    "[default: [workspace] measures, else the topic set's class measures, else "
    "'RR@10 P@1 P@5 nDCG@10 R-Prec AP'].",
)
@click.option("--per-query", is_flag=True, help="Also show every topic's values.")
@click.option(
    "--by-class",
    is_flag=True,
    help="Also aggregate per query class (needs a topic set: --topics or the workspace's).",
)
@click.option(
    "--pool-bias",
    is_flag=True,
    help="With human qrels and 2+ runs: leave-one-run-out pool-bias check (each run scored again without "
    "the judged docs only it contributed to the depth-k pool; k = --pool-depth). Not with csv, tsv, trec.",
)
@pool_depth_option("--pool-depth", 10, "Pool depth for --pool-bias.")
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse run lines with text after column 6 (trec_eval ignores it; by default so does score, with "
    "one warning counting the lines).",
)
@report_options("table", "md", "html", "json", "csv", "tsv", "trec")
def command(
    runs: tuple[Path, ...],
    qrels_path: Path,
    topics_path: Path | None,
    measures: str | None,
    per_query: bool,
    by_class: bool,
    pool_bias: bool,
    pool_depth: int,
    strict: bool,
    no_workspace: bool,
    fmt: str,
    output: Path | None,
) -> None:
    """Score runs against qrels with trec_eval 10's measures, numbers and semantics.

    The topics that count (n) are the topic set's (--topics, else [workspace] topics of the nearest
    toolkit.toml), else the qrels'. A topic a run has no results for scores
    0 and is reported as empty; run topics outside the topic set/qrels are ignored with a warning. Topics
    declared expect = "empty" are left out of n and scored by their refusal outcome: refusal correctness
    and the empty-result rate (table, md, html, json).

    \b
    Examples:
      trec-toolkit score runs/bm25.run --qrels qrels/stdlib.qrels
      trec-toolkit score runs/*.run --qrels qrels/stdlib.qrels --topics topics/stdlib.toml --by-class
      trec-toolkit score a.run --qrels q.qrels --measures 'RR@10 P@1 ndcg_cut.10 R-Prec' --per-query
      trec-toolkit score a.run --qrels q.qrels --format trec --per-query   # like trec_eval -q -c
      trec-toolkit score a.run b.run --qrels q.qrels --format json -o scores.json
      trec-toolkit score runs/bm25.run runs/bm25f.run --qrels qrels/human.qrels --pool-bias
    """
    from toolkit.formats import read_qrels, read_run, versions
    from toolkit.pipeline.failures import recorded_failures
    from toolkit.pipeline.pilot import pilot_runs
    from toolkit.reports import mark_pilot, pilot_line, render
    from toolkit.reports.scores import scores_delimited, scores_document, scores_trec
    from toolkit.scoring import evaluate_many
    from toolkit.scoring.judged import warn_unjudged
    from toolkit.scoring.refusal import refusal_scores

    settings = evaluation_workspace(no_workspace).evaluation(topics=topics_path, measures=measures)
    topics = settings.topics
    _check_options(fmt, by_class, topics is not None, pool_bias, len(runs))
    from toolkit.formats.sampled import has_probabilities

    if (
        str(qrels_path) != "-"
        and not str(qrels_path).startswith("ir_datasets:")
        and has_probabilities(qrels_path)
    ):
        # the sample estimates its own measures: --measures when given, else the estimable defaults (the
        # workspace's measures are for full judgments and would mostly be refused)
        return _score_sampled(
            runs, qrels_path, topics, measures, per_query, by_class, pool_bias, strict, fmt, output
        )
    wanted = settings.measure_list()
    qrels = read_qrels(qrels_path)
    loaded = [read_run(path, strict=strict) for path in runs]
    pilots = pilot_runs(loaded)
    results = evaluate_many(loaded, qrels, topics=topics, measures=wanted)
    warn_unjudged(loaded, qrels, results, wanted)
    if fmt in ("csv", "tsv", "trec"):  # no room for a banner or a second table in these: say it on stderr
        _data_layout_notes(pilot_line(pilots) if pilots else None, topics)
    if fmt in ("csv", "tsv"):
        delimiter = "," if fmt == "csv" else "\t"
        text = scores_delimited(
            results, delimiter=delimiter, per_query=per_query, topics=topics, by_class=by_class
        )
    elif fmt == "trec":
        text = scores_trec(results, per_query=per_query)
    else:
        bias = None
        agreement = None
        if pool_bias:
            from toolkit.pooling.diagnostics import leave_one_run_out
            from toolkit.stats.correlation import leave_one_out_agreement

            bias = leave_one_run_out(loaded, qrels, topics=topics, measures=wanted, depth=pool_depth)
            agreement = leave_one_out_agreement(bias.rows)
        failed = recorded_failures(loaded)
        refusal = [refusal_scores(run, topics, qrels, failed=failed[run.name]) for run in loaded]
        doc = scores_document(
            results,
            per_query=per_query,
            topics=topics,
            by_class=by_class,
            versions=versions() if fmt == "json" else None,  # only JSON records them; reading them costs
            pool_bias=bias,
            refusal=refusal,
            primary=settings.primary_name(),
            pool_bias_agreement=agreement,
        )
        text = render(mark_pilot(doc, pilots), fmt)
    emit(text, output)


def _score_sampled(
    runs: tuple[Path, ...],
    qrels_path: Path,
    topics: TopicSet | None,
    measures: str | None,
    per_query: bool,
    by_class: bool,
    pool_bias: bool,
    strict: bool,
    fmt: str,
    output: Path | None,
) -> None:
    """Qrels with inclusion probabilities (five columns): the inferred measures, labelled estimates, with their
    intervals; what the sample cannot estimate is refused in one line each (``toolkit.scoring.inferred``)."""
    from toolkit.errors import UsageError
    from toolkit.formats import read_run
    from toolkit.formats.sampled import read_sampled_qrels
    from toolkit.reports import render
    from toolkit.reports.estimates import estimates_document
    from toolkit.scoring.inferred import DEFAULT_ESTIMATES, score_sampled
    from toolkit.scoring.measures import split_measures

    if fmt not in ("table", "md", "html", "json") or by_class or pool_bias:
        raise UsageError(
            f"{qrels_path} holds inclusion probabilities (a sampled pool): score gives estimates with intervals "
            "in --format table, md, html or json, without --by-class or --pool-bias"
        )
    sampled = read_sampled_qrels(qrels_path)
    tokens = [str(t) for t in split_measures(measures)] if measures else list(DEFAULT_ESTIMATES)
    loaded = [read_run(path, strict=strict) for path in runs]
    results, refused = score_sampled(loaded, sampled, tokens, topics=topics)
    if not any(results):
        raise UsageError(
            f"nothing to score from the sample in {qrels_path}: every measure asked for was refused"
        )
    doc = estimates_document(results, qrels=str(qrels_path), refused=refused, per_query=per_query)
    emit(render(doc, fmt), output)


def _data_layout_notes(pilot: str | None, topics: object) -> None:
    import warnings

    from toolkit.errors import ToolkitWarning

    if pilot:
        warnings.warn(pilot, ToolkitWarning, stacklevel=2)
    empty = getattr(topics, "empty_ids", ())
    if empty:
        warnings.warn(
            f'{len(empty)} topic(s) declared expect = "empty" are left out of n; their refusal outcome is in '
            "--format table, md, html and json",
            ToolkitWarning,
            stacklevel=2,
        )


def _check_options(fmt: str, by_class: bool, has_topics: bool, pool_bias: bool, runs: int) -> None:
    from toolkit.errors import UsageError

    if by_class and not has_topics:
        raise UsageError(
            "--by-class needs a topic set (it names each topic's class): pass --topics or set [workspace] topics"
        )
    if by_class and fmt == "trec":
        raise UsageError(
            "--by-class is not available with --format trec; use table, md, html, json, csv or tsv"
        )
    if pool_bias and (fmt in ("csv", "tsv", "trec") or runs < 2):
        raise UsageError(
            "--pool-bias needs --format table, md, html or json and at least two runs (the runs that made "
            "the pool)"
        )
