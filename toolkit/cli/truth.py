"""``trec-toolkit truth``: a topic set's regex truth → TREC qrels, over the docs of runs and/or an id list."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import click

from toolkit.errors import CheckFailed, FormatError, ToolkitWarning, UsageError


def read_doc_ids(path: Path) -> list[str]:
    """One doc id per line (``-`` = stdin); blank lines and ``#`` comments skipped."""
    from toolkit.formats.textfile import iter_data_lines

    if str(path) == "-":
        text = sys.stdin.read()
        lines = list(iter_data_lines("<stdin>", text))
    else:
        lines = list(iter_data_lines(path))
    ids = []
    for number, line in lines:
        if any(c.isspace() for c in line):
            raise FormatError(
                path, number, f"expected one doc id per line, found {line!r} (doc ids have no spaces)"
            )
        ids.append(line)
    if not ids:
        raise FormatError(path, None, "no doc ids; expected one doc id per line")
    return ids


@click.command("truth")
@click.argument("run_args", metavar="[RUN]...", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--topics",
    "topics_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Topic set with truth (default: [workspace] topics in toolkit.toml).",
)
@click.option(
    "--runs",
    "run_paths",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Runs whose doc ids are covered (repeatable; further paths may follow as arguments).",
)
@click.option(
    "--doc-ids",
    "doc_ids_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A file of doc ids, one per line ('-' = stdin): e.g. the whole corpus.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Qrels file to write, with its manifest NAME.qrels.json (default: stdout, no manifest).",
)
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
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="toolkit.toml to use (default: found from the current folder up).",
)
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
    from toolkit.formats.qrels import format_qrels
    from toolkit.formats.run import read_run
    from toolkit.formats.topics import read_topics
    from toolkit.truth import DEFAULT_MAX_MATCHES, build_qrels, corpus_ids, write_truth
    from toolkit.workspace import load_workspace

    runs = [*run_paths, *run_args]
    if max_matches is not None and max_matches < 1:
        raise UsageError(f"--max-matches must be at least 1, not {max_matches}")
    workspace = load_workspace(config_path)
    corpus = None
    if doc_ids_path is None and not runs_only:
        corpus = corpus_ids(workspace.section("docs"), workspace.root, where=str(workspace.config_path))
    if not runs and doc_ids_path is None and corpus is None:
        raise UsageError("nothing to judge: give --runs RUN… and/or --doc-ids FILE (or declare [docs] ids)")
    topic_file = topics_path or workspace.default_topics
    if topic_file is None:
        raise UsageError("no topic set: pass --topics PATH or set [workspace] topics in toolkit.toml")
    topics = read_topics(topic_file)

    doc_ids: set[str] = set()
    sources: dict[str, str | Path] = {}
    for index, path in enumerate(runs, start=1):
        run = read_run(path)
        for docs in run.results.values():
            doc_ids.update(docs)
        sources[f"run{index}" if len(runs) > 1 else "run"] = path
    if doc_ids_path is not None:
        doc_ids.update(read_doc_ids(doc_ids_path))
        if str(doc_ids_path) != "-":
            sources["doc_ids"] = doc_ids_path
    details: dict[str, str] = {}
    if corpus is not None:
        doc_ids.update(corpus[0])
        details["doc_ids_from"] = f"[docs] ids: {corpus[1]}"

    result = build_qrels(
        topics,
        doc_ids,
        max_matches=max_matches or DEFAULT_MAX_MATCHES,
        zeros=zeros,
        name=output.name.split(".")[0] if output else None,
    )
    if output is None or str(output) == "-":
        sys.stdout.write(format_qrels(result.qrels))
    else:
        argv = [Path(sys.argv[0]).name, *sys.argv[1:]]
        write_truth(result, output, topics=topics, sources=sources, command=argv, details=details)

    partial = [(q, p) for q, p in result.unmatched_patterns if q not in result.unmatched_topics]
    if partial:
        listed = ", ".join(f"{q} {p!r}" for q, p in partial)
        warnings.warn(
            f"{len(partial)} pattern(s) of topics that did match found no covered doc: {listed}",
            ToolkitWarning,
            stacklevel=1,
        )
    if result.unmatched_topics:
        warnings.warn(
            f"{len(result.unmatched_topics)} topic(s) matched no covered doc (a typo in the regex, or the doc "
            f"is not in the runs/ids): {', '.join(result.unmatched_topics)}",
            ToolkitWarning,
            stacklevel=1,
        )
    for s in result.suspicious:
        warnings.warn(
            f"topic {s.query_id}: pattern {s.pattern!r} matched {s.matches} docs (more than {result.max_matches}); "
            "is it missing an anchor (^…$) or an escaped dot (\\.)?",
            ToolkitWarning,
            stacklevel=1,
        )
    if result.no_truth:
        warnings.warn(
            f"{len(result.no_truth)} topic(s) have no truth: {', '.join(result.no_truth)}",
            ToolkitWarning,
            stacklevel=1,
        )
    where = output if output and str(output) != "-" else "stdout"
    click.echo(
        f"Wrote {where}: {len(result.qrels)} judgments, {result.judged_topics} of {len(topics)} topics with a "
        f"relevant doc, {len(result.covered)} docs covered",
        err=True,
    )
    if strict and (result.unmatched_topics or result.suspicious):
        raise CheckFailed("truth check failed (--strict): see the warnings above")
