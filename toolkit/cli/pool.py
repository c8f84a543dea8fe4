"""``trec-toolkit pool``: build a judging campaign from runs, or add a round to one (``toolkit.pooling``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--topics",
    "topics_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Topic set (default: [workspace] topics in toolkit.toml).",
)
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="Pool depth per run [default: 10 for depth; no cap for mtf].",
)
@click.option(
    "--strategy",
    type=click.Choice(["depth", "mtf"]),
    default="depth",
    show_default=True,
    help="depth-k union, or move-to-front (Cormack, Palmer & Clarke 1998) under --budget.",
)
@click.option(
    "--budget", type=click.IntRange(min=1), default=None, help="mtf: new documents to select per topic."
)
@click.option(
    "--exclude",
    "exclude_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Qrels whose (topic, doc) pairs are already judged: not queued again (repeatable).",
)
@click.option(
    "--docs",
    "docs_spec",
    default=None,
    metavar="SOURCE",
    help="Doc source: FILE.jsonl, FILE.tsv or a folder [default: [docs] in toolkit.toml].",
)
@click.option(
    "-o",
    "--output",
    "campaign",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Campaign database (judging/NAME.sqlite); created, or given a new round.",
)
def command(
    runs: tuple[Path, ...],
    topics_path: Path | None,
    depth: int | None,
    strategy: str,
    budget: int | None,
    exclude_paths: tuple[Path, ...],
    docs_spec: str | None,
    campaign: Path,
) -> None:
    """Pool RUNS into a campaign: topics, grade definitions, the pool with provenance, doc snapshots.

    Running it again on an existing campaign adds a round: documents already judged (in the campaign or in
    --exclude qrels) are skipped unless their text changed, in which case they are queued again and
    flagged stale. A document that cannot be fetched is recorded as a fetch failure.

    \b
    Examples:
      trec-toolkit pool runs/bm25.run runs/bm25f.run --depth 10 -o judging/example.sqlite
      trec-toolkit pool runs/*.run --strategy mtf --budget 20 -o judging/example.sqlite
      trec-toolkit pool runs/new.run --exclude qrels/stdlib.qrels --docs corpus.jsonl -o judging/r2.sqlite
    """
    from toolkit.errors import UsageError
    from toolkit.formats import read_qrels, read_run, read_topics
    from toolkit.judging.store import CampaignStore
    from toolkit.pooling.docsource import doc_source_from_config, doc_source_from_option
    from toolkit.pooling.rounds import pool_round
    from toolkit.workspace import load_workspace

    ws = load_workspace()
    topics_file = topics_path or ws.default_topics
    if topics_file is None:
        raise UsageError("no topic set: pass --topics FILE (or set [workspace] topics in toolkit.toml)")
    if strategy == "mtf" and budget is None:
        raise UsageError("--strategy mtf needs --budget N (new documents per topic)")
    if strategy == "depth" and budget is not None:
        raise UsageError("--budget applies to --strategy mtf only")
    source = (
        doc_source_from_option(docs_spec)
        if docs_spec is not None
        else doc_source_from_config(ws.section("docs"), ws.root, where=str(ws.config_path or "toolkit.toml"))
    )
    if source is None:
        raise UsageError(
            'no doc source: pass --docs FILE.jsonl|FILE.tsv|DIR, or set [docs] command = [..., "{doc_id}"] '
            "in toolkit.toml"
        )
    topic_set = read_topics(topics_file)
    run_list = [read_run(p) for p in runs]
    exclude = [read_qrels(p) for p in exclude_paths]
    if depth is None and strategy == "depth":
        depth = int(ws.settings.get("depth", 10))
    existed = campaign.exists()
    try:
        with CampaignStore.open(campaign, create=True) as store, _progress() as progress:
            result = pool_round(
                store,
                run_list,
                topic_set,
                source=source,
                strategy=strategy,
                depth=depth,
                budget=budget,
                exclude=exclude,
                progress=progress,
            )
    except BaseException:
        if not existed:  # a first round that failed leaves no half-made campaign behind
            for suffix in ("", "-wal", "-shm"):
                Path(f"{campaign}{suffix}").unlink(missing_ok=True)
        raise
    click.echo(
        f"Round {result.round}: {result.topics} topics, {result.pooled} pooled, {result.queued} queued "
        f"({result.stale} stale), {result.skipped} already judged, {result.pending} already queued, "
        f"{len(result.fetch_failures)} fetch failures -> {campaign}"
    )
    if result.fetch_failures:
        shown = ", ".join(result.fetch_failures[:5]) + (" …" if len(result.fetch_failures) > 5 else "")
        click.echo(f"Warning: could not fetch {len(result.fetch_failures)} document(s): {shown}", err=True)


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar for document fetching on an interactive stderr; nothing otherwise."""
    from toolkit.cli.options import show_progress

    if not show_progress():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("Fetching documents", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
