"""Options and output helpers shared by several commands (``--format``, ``-o``, progress bars)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from rich.console import Console

    from toolkit.workspace import Workspace

F = TypeVar("F", bound=Callable[..., Any])


class CampaignType(click.ParamType):
    """CAMPAIGN: a path (an SQLite file) or a ``postgresql://user@host:port/db?campaign=NAME`` URL.

    A URL stays a string: ``Path`` would fold its ``//``. The library checks it (a password in it is refused,
    with the advice to use PGPASSWORD or ~/.pgpass) and reports one ``Error:`` line.
    """

    name = "campaign"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str | Path:
        if isinstance(value, Path):
            return value
        from toolkit.judging.postgres.url import is_campaign_url

        text = str(value)
        return text if is_campaign_url(text) else Path(text)


CAMPAIGN = CampaignType()


def file_option(*decls: str, **attrs: Any) -> Callable[[F], F]:
    """An option that names a file (not a folder), given to the command as a ``Path``."""
    return click.option(*decls, type=click.Path(dir_okay=False, path_type=Path), **attrs)


def output_to(help_text: str) -> Callable[[F], F]:
    """``-o/--output PATH``, where the command writes; each command says what and where by default."""
    return file_option("-o", "--output", "output", default=None, help=help_text)


output_option = output_to("Write to this file instead of stdout ('-' = stdout).")


def qrels_option(func: F) -> F:
    """``--qrels QRELS`` (required), shared by the commands that score runs."""
    return file_option(
        "--qrels", "qrels_path", required=True, help="TREC qrels file (.gz ok) or ir_datasets:DATASET_ID."
    )(func)


def topics_option(help_text: str) -> Callable[[F], F]:
    """``--topics TOPICS`` (optional); each command says what the topic set is used for."""

    return file_option("--topics", "topics_path", default=None, help=help_text)


def evaluation_options(topics_help: str) -> Callable[[F], F]:
    """``--qrels``, ``--topics`` and ``--no-workspace``: what ``score``, ``compare`` and ``gate`` evaluate on
    (the workspace's settings unless an option says otherwise: ``evaluation_workspace``)."""

    def decorate(func: F) -> F:
        func = click.option(
            "--no-workspace",
            is_flag=True,
            help="Ignore toolkit.toml (its topic set, measures and primary): evaluate files that are not the "
            "workspace's on the options alone.",
        )(func)
        return qrels_option(topics_option(topics_help)(func))

    return decorate


def evaluation_workspace(no_workspace: bool, config: Path | None = None) -> Workspace:
    """The workspace whose evaluation settings a command uses: the nearest toolkit.toml (or ``config``),
    or none at all with ``--no-workspace``."""
    from toolkit.workspace import Workspace, load_workspace

    if no_workspace:
        return Workspace(root=Path.cwd())
    return load_workspace(config)


def format_option(*choices: str, default: str = "table") -> Callable[[F], F]:
    def decorate(func: F) -> F:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(list(choices)),
            default=default,
            help="Output format.",
        )(func)

    return decorate


#: The formats every report command writes (``toolkit.reports.render``); a command may offer more.
REPORT_FORMATS = ("table", "md", "html", "json")


def report_options(*choices: str, default: str = "table") -> Callable[[F], F]:
    """``--format`` (``choices``, else ``REPORT_FORMATS``) and ``-o/--output``: how and where a command writes
    its report, the pair every report command takes."""

    def decorate(func: F) -> F:
        return format_option(*(choices or REPORT_FORMATS), default=default)(output_option(func))

    return decorate


def pool_depth_option(name: str, default: int | None, help_text: str) -> Callable[[F], F]:
    """``name K``: how deep into each run a pool goes (depth-k), for ``pool``, ``plan`` and ``score --pool-bias``."""
    return click.option(name, type=click.IntRange(min=1), default=default, help=help_text)


def resamples_option(name: str, default: int, help_text: str) -> Callable[[F], F]:
    """``name N``: how many topic-bootstrap resamples a command draws (0: none), recorded in its output."""
    return click.option(name, type=click.IntRange(min=0), default=default, help=help_text)


def say(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Print a line for people that carries text from outside (doc ids, names, a check's output): its
    control characters made visible first (``toolkit.formats.text.visible``, the one rule for text shown)."""
    from toolkit.formats.text import visible

    click.echo(visible(text), err=err, nl=nl)


def emit(text: str, output: Path | None) -> None:
    """Write command output to ``-o FILE`` (atomically) or stdout."""
    if output is None or str(output) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from toolkit.formats.textfile import atomic_write_text

    atomic_write_text(output, text)
    click.echo(f"Wrote {output}", err=True)


def invoked_as() -> str:
    """The command as the user ran it, for the next steps a command prints: ``.venv/bin/trec-toolkit`` when that
    is what they typed, ``trec-toolkit`` when the shell found it on PATH, ``python3 -m toolkit`` for a module
    run — so that the printed line can be pasted back as it is.
    """
    import os
    import shlex
    import shutil

    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path("trec-toolkit")
    if script.name == "__main__.py" and script.parent.name == "toolkit":
        python = sys.orig_argv[0] if sys.orig_argv else sys.executable
        return f"{shlex.quote(python)} -m toolkit"
    if script.name != "trec-toolkit":  # called from Python (a test runner, a notebook): the documented name
        return "trec-toolkit"
    found = shutil.which(script.name)
    if found and script.exists() and os.path.samefile(found, script):
        return script.name
    return shlex.quote(str(script))


def show_progress() -> bool:
    """Progress bars only on an interactive stderr (silent in CI and pipes)."""
    return sys.stderr.isatty()


def config_option(func: F) -> F:
    """``--config PATH``: the toolkit.toml to use instead of the nearest one."""
    return file_option(
        "--config", "config_path", help="toolkit.toml to use (default: found from the current folder up)."
    )(func)


@contextmanager
def progress_bar(
    unit: str, *, console: Console | None = None
) -> Iterator[Callable[[str, int, int], None] | None]:
    """Bars on stderr for the library's ``progress`` callbacks: ``update(step, done, total)`` draws one bar per
    step, named after it, with the count, the rate and the time left from the first call on.

    Yields None (the library then reports nothing) when stderr is not a terminal, unless a ``console`` is
    given (tests). Only the CLI imports rich: the library just calls back.
    """
    if console is None and not show_progress():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TaskID,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Items per second since the bar started (rich's own speed waits for two samples)."""

        def render(self, task: Task) -> Text:
            elapsed = task.elapsed or 0.0
            done = task.completed - task.fields.get("first", 0)
            rate = done / elapsed if elapsed > 0 else 0.0
            return Text(f"{rate:.1f} {unit}/s", style="progress.data.speed")

    tasks: dict[str, TaskID] = {}
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        RateColumn(),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
        transient=True,
    ) as bar:

        def update(step: str, done: int, total: int) -> None:
            if step not in tasks:
                tasks[step] = bar.add_task(step, total=total, completed=done, first=done)
            else:
                bar.update(tasks[step], completed=done, total=total)

        yield update


def topics_shown_option(func: F) -> F:
    """``--topics-shown N``: how many topics per candidate the HTML's per-topic view holds (its size bound)."""
    from toolkit.reports.view_limits import DEFAULT_TOPICS_SHOWN

    return click.option(
        "--topics-shown",
        type=click.IntRange(min=0),
        default=None,
        metavar="N",
        help=f"Topics per candidate in the HTML's per-topic view, the most changed first; 0 = all "
        f"(default {DEFAULT_TOPICS_SHOWN}; bounds the file's size).",
    )(func)


#: The paired tests ``--test`` offers: ``toolkit.stats.paired.TESTS``, written out so that ``--help`` does not
#: load numpy (tests/cli hold the two equal).
PAIRED_TESTS = ("randomization", "t", "wilcoxon")


def paired_test_option(help_text: str) -> Callable[[F], F]:
    """``--test``: which paired test decides (``compare``, ``correlate``)."""
    return click.option("--test", type=click.Choice(PAIRED_TESTS), default="randomization", help=help_text)


def seed_option(default: int | None, help_text: str) -> Callable[[F], F]:
    """``--seed N``: the seed a command's random draws or resampling start from, recorded in its output."""
    return click.option("--seed", type=int, default=default, help=help_text)


def allow_failed_option(help_text: str) -> Callable[[F], F]:
    """``--allow-failed``: give verdicts although a run failed some topics (``audit``, ``compare``, ``gate``)."""
    return click.option("--allow-failed", is_flag=True, help=help_text)


def allow_pilot_option(help_text: str) -> Callable[[F], F]:
    """``--allow-pilot``: take pilot runs, which are refused by default (``audit``, ``gate``)."""
    return click.option("--allow-pilot", is_flag=True, help=help_text)


def docs_source_option(dest: str, help_text: str) -> Callable[[F], F]:
    """``--docs SOURCE``: a doc source (``toolkit.pooling.docsource``), else the workspace's ``[docs]``."""
    return click.option("--docs", dest, default=None, metavar="SOURCE", help=help_text)


def overlap_option(default: str, help_text: str) -> Callable[[F], F]:
    """``--overlap FRACTION|all``: the share of items a second assessor also judges
    (``toolkit.judging.assign.parse_overlap`` reads it)."""
    return click.option("--overlap", "overlap_text", default=default, metavar="FRACTION|all", help=help_text)
