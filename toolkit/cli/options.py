"""Options and output helpers shared by several commands (``--format``, ``-o``, progress bars)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def output_option(func: F) -> F:
    return click.option(
        "-o",
        "--output",
        "output",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Write to this file instead of stdout ('-' = stdout).",
    )(func)


def qrels_option(func: F) -> F:
    """``--qrels QRELS`` (required), shared by the commands that score runs."""
    return click.option(
        "--qrels",
        "qrels_path",
        required=True,
        type=click.Path(dir_okay=False, path_type=Path),
        help="TREC qrels file (.gz ok).",
    )(func)


def topics_option(help_text: str) -> Callable[[F], F]:
    """``--topics TOPICS`` (optional); each command says what the topic set is used for."""

    def decorate(func: F) -> F:
        return click.option(
            "--topics",
            "topics_path",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help=help_text,
        )(func)

    return decorate


def format_option(*choices: str, default: str = "table") -> Callable[[F], F]:
    def decorate(func: F) -> F:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(list(choices)),
            default=default,
            show_default=True,
            help="Output format.",
        )(func)

    return decorate


def emit(text: str, output: Path | None) -> None:
    """Write command output to ``-o FILE`` (atomically) or stdout."""
    if output is None or str(output) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from toolkit.formats.textfile import atomic_write_text

    atomic_write_text(output, text)
    click.echo(f"Wrote {output}", err=True)


def show_progress() -> bool:
    """Progress bars only on an interactive stderr (silent in CI and pipes)."""
    return sys.stderr.isatty()
