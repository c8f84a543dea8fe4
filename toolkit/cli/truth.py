"""``trec-toolkit truth``: a topic set's regex truth → TREC qrels, over the docs of runs and/or an id list."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from toolkit.cli.options import config_option, file_option, output_to, topics_option
from toolkit.errors import UsageError


@click.command("truth")
@click.argument("run_args", metavar="[RUN]...", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@topics_option("Topic set with truth (default: [workspace] topics in toolkit.toml).")
@file_option(
    "--runs",
    "run_paths",
    multiple=True,
    help="Runs whose doc ids are covered (repeatable; further paths may follow as arguments).",
)
@file_option(
    "--doc-ids",
    "doc_ids_path",
    help="A file of doc ids, one per line ('-' = stdin): e.g. the whole corpus.",
)
@output_to("Qrels file to write, with its manifest NAME.qrels.json (default: stdout, no manifest).")
@click.option(
    "--max-matches",
    type=int,
    default=None,
    show_default="50",
    help="Report a pattern matching more docs than this as suspicious.",
)
@click.option(
    "--runs-only", is_flag=True, help="Ignore [docs] ids of toolkit.toml: cover only the runs' docs."
)
@click.option("--zeros", is_flag=True, help="Also write grade 0 for every covered doc that matches nothing.")
@click.option(
    "--strict", is_flag=True, help="Exit 3 when a topic matches nothing or a pattern is suspicious."
)
@config_option
def command(
    run_args: tuple[Path, ...],
    topics_path: Path | None,
    run_paths: tuple[Path, ...],
    doc_ids_path: Path | None,
    runs_only: bool,
    output: Path | None,
    max_matches: int | None,
    zeros: bool,
    strict: bool,
    config_path: Path | None,
) -> None:
    """Apply each topic's regex truth to the covered doc ids and write TREC qrels.

    \b
    Covered docs: every doc id in the runs, plus every id of --doc-ids (else of [docs] ids in
    toolkit.toml, unless --runs-only). A doc matching several
    patterns of a topic takes the highest grade. Reports topics whose patterns matched nothing
    (a typo, or the doc is missing) and patterns matching suspiciously many docs.

    \b
    Examples:
      trec-toolkit truth --topics topics/stdlib.toml --runs runs/bm25.run runs/bm25f.run -o qrels/stdlib.qrels
      trec-toolkit truth --doc-ids ids.txt -o qrels/stdlib.qrels
    """
    from toolkit.formats.docids import read_doc_ids
    from toolkit.formats.qrels import format_qrels
    from toolkit.formats.run import read_run
    from toolkit.pipeline.truth import enforce_truth, regex_truth, warn_truth
    from toolkit.truth import DEFAULT_MAX_MATCHES
    from toolkit.workspace import load_workspace

    runs = [*run_paths, *run_args]
    ws = load_workspace(config_path)
    corpus = ws.corpus_ids() if doc_ids_path is None and not runs_only else None
    if not runs and doc_ids_path is None and corpus is None:
        raise UsageError("nothing to judge: give --runs RUN… and/or --doc-ids FILE (or declare [docs] ids)")
    topics = ws.topics(topics_path)
    sources: dict[str, str | Path] = {f"run{i}" if len(runs) > 1 else "run": p for i, p in enumerate(runs, 1)}
    if doc_ids_path is not None and str(doc_ids_path) != "-":
        sources["doc_ids"] = doc_ids_path
    to_file = output is not None and str(output) != "-"
    truth = regex_truth(
        ws,
        topics,
        runs=[read_run(p) for p in runs],
        doc_ids=read_doc_ids(doc_ids_path) if doc_ids_path is not None else (),
        corpus=corpus,
        output=output if to_file else None,
        sources=sources,
        max_matches=DEFAULT_MAX_MATCHES if max_matches is None else max_matches,
        zeros=zeros,
        name=output.name.split(".")[0] if output else None,
    )
    result = truth.result
    if not to_file:
        sys.stdout.write(format_qrels(result.qrels))
    warn_truth(result)
    click.echo(
        f"Wrote {output if to_file else 'stdout'}: {len(result.qrels)} judgments, {result.judged_topics} of "
        f"{len(topics)} topics with a relevant doc, {len(result.covered)} docs covered",
        err=True,
    )
    if strict:
        enforce_truth(result)
