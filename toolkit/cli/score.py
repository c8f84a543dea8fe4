"""``trec-toolkit score``: measures per run, per topic and per class (a thin shell over ``toolkit.scoring``)."""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from toolkit.cli.options import emit, format_option, output_option, qrels_option, topics_option


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@qrels_option
@topics_option(
    "Topic set (.toml/.tsv/.jsonl/TREC): defines the topics that count (default: the qrels' topics)."
)
@click.option(
    "--measures",
    default=None,
    metavar="'M …'",
    help="Measures, space or comma separated, ir_measures syntax or trec_eval names "
    "[default: the topic set's class measures, else 'RR@10 P@1 P@5 nDCG@10 R-Prec AP'].",
)
@click.option("--per-query", is_flag=True, help="Also show every topic's values.")
@click.option("--by-class", is_flag=True, help="Also aggregate per query class (needs --topics).")
@click.option(
    "--pool-bias",
    is_flag=True,
    help="With human qrels and 2+ runs: leave-one-run-out pool-bias check (each run scored again without "
    "the judged docs only it contributed to the depth-k pool; k = --pool-depth). Table format only.",
)
@click.option(
    "--pool-depth",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Pool depth for --pool-bias.",
)
@format_option("table", "json", "csv", "tsv", "trec")
@output_option
def command(
    runs: tuple[Path, ...],
    qrels_path: Path,
    topics_path: Path | None,
    measures: str | None,
    per_query: bool,
    by_class: bool,
    pool_bias: bool,
    pool_depth: int,
    fmt: str,
    output: Path | None,
) -> None:
    """Score runs against qrels with trec_eval semantics (pytrec_eval via ir_measures).

    The topics that count (n) are the topic set's, else the qrels'. A topic a run has no results for scores
    0 and is reported as empty; run topics outside the topic set/qrels are ignored with a warning.

    \b
    Examples:
      trec-toolkit score runs/bm25.run --qrels qrels/stdlib.qrels
      trec-toolkit score runs/*.run --qrels qrels/stdlib.qrels --topics topics/stdlib.toml --by-class
      trec-toolkit score a.run --qrels q.qrels --measures 'RR@10 P@1 ndcg_cut.10 R-Prec' --per-query
      trec-toolkit score a.run --qrels q.qrels --format trec --per-query   # like trec_eval -q
      trec-toolkit score a.run b.run --qrels q.qrels --format json -o scores.json
      trec-toolkit score runs/bm25.run runs/bm25f.run --qrels qrels/human.qrels --pool-bias
    """
    from toolkit.errors import ToolkitWarning, UsageError
    from toolkit.formats import read_qrels, read_run, read_topics
    from toolkit.scoring import evaluate_many, measure_cutoff, resolve_measures
    from toolkit.scoring.judged import judged_at, looks_human

    if by_class and topics_path is None:
        raise UsageError("--by-class needs --topics (the topic set names each topic's class)")
    if by_class and fmt == "trec":
        raise UsageError("--by-class is not available with --format trec; use table, json, csv or tsv")
    if pool_bias and (fmt != "table" or len(runs) < 2):
        raise UsageError(
            "--pool-bias needs --format table and at least two runs (the runs that made the pool)"
        )
    topics = read_topics(topics_path) if topics_path is not None else None
    names = resolve_measures(measures, topics)
    qrels = read_qrels(qrels_path)
    run_objects = [read_run(path) for path in runs]
    _check_names(run_objects)
    results = evaluate_many(run_objects, qrels, topics=topics, measures=names)
    if looks_human(qrels):
        depth = max((c for c in (measure_cutoff(m) for m in names) if c is not None), default=10)
        for run, scores in zip(run_objects, results, strict=True):
            judged = judged_at(run, qrels, scores.query_ids, depth=depth)
            if judged.unjudged_topics:
                warnings.warn(
                    f"run {run.name}: Judged@{depth} = {judged.rate:.4f}; {len(judged.unjudged_topics)} of "
                    f"{judged.topics} topics have unjudged docs in the top {depth}, scored as non-relevant "
                    "(judge deeper: trec-toolkit pool)",
                    ToolkitWarning,
                    stacklevel=1,
                )
    text = _render(results, fmt, per_query=per_query, by_class=by_class, topics=topics)
    if pool_bias:
        from toolkit.pooling.diagnostics import leave_one_run_out

        text += "\n" + _render_pool_bias(
            leave_one_run_out(run_objects, qrels, topics=topics, measures=names, depth=pool_depth)
        )
    emit(text, output)


def _render_pool_bias(result) -> str:  # type: ignore[no-untyped-def]
    """A plain table: a large negative delta means the run's score rests on docs only it found."""
    lines = [
        f"Pool bias (leave-one-run-out, {result.source}, n={result.n}):",
        f"{'run':<16} {'measure':<10} {'full':>8} {'without':>8} {'delta':>8} {'unique':>7} {'uniq.rel':>8}",
    ]
    for row in result.rows:
        lines.append(
            f"{row.run:<16} {row.measure:<10} {row.full:>8.4f} {row.without_own:>8.4f} {row.delta:>+8.4f} "
            f"{row.unique_docs:>7} {row.unique_relevant:>8}"
        )
    return "\n".join(lines) + "\n"


def _check_names(runs: list) -> None:  # type: ignore[type-arg]
    from toolkit.errors import UsageError

    seen: dict[str, str | None] = {}
    for run in runs:
        if run.name in seen:
            raise UsageError(
                f"two runs are named {run.name!r} ({seen[run.name]} and {run.path}); rename one file"
            )
        seen[run.name] = run.path


def _render(results, fmt, *, per_query, by_class, topics):  # type: ignore[no-untyped-def]
    from toolkit.scoring import render

    if fmt == "json":
        from toolkit.formats import versions

        return render.render_json(results, topics=topics if by_class or topics else None, versions=versions())
    if fmt in ("csv", "tsv"):
        return render.render_delimited(
            results,
            delimiter="," if fmt == "csv" else "\t",
            per_query=per_query,
            topics=topics,
            by_class=by_class,
        )
    if fmt == "trec":
        return render.render_trec(results, per_query=per_query)
    return render.render_table(results, per_query=per_query, topics=topics, by_class=by_class)
