"""``--serve`` for the campaign screens (``judge``, ``progress``): the options and the one way to use them.

The served command is this same CLI, run again by textual-serve for each browser tab, with the options of
the screen and without ``--serve``; the library side (``toolkit.tui.serve``) checks the host and serves.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from toolkit.errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])


def serve_options(func: F) -> F:
    """``--serve``, ``--host``, ``--port``, ``--allow-remote``, ``--public-url``."""
    options = [
        click.option(
            "--serve",
            is_flag=True,
            help="Serve the screen to a web browser instead of this terminal (one app per browser tab).",
        ),
        click.option("--host", default="127.0.0.1", help="Address to listen on with --serve."),
        click.option("--port", type=click.IntRange(1, 65535), default=8000, help="Port for --serve."),
        click.option(
            "--allow-remote",
            is_flag=True,
            help="Let --host be an address other machines reach (the printed URL, with its secret, is the key).",
        ),
        click.option(
            "--public-url",
            metavar="URL",
            help="The address browsers use to reach the server (behind a proxy), e.g. https://judge.example.org.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def serve(
    args: list[str], *, host: str, port: int, allow_remote: bool, public_url: str | None, title: str, who: str
) -> None:
    """Serve ``trec-toolkit ARGS`` (which must not contain ``--serve``); ``who`` says what a visitor can do."""
    from toolkit.tui.serve import check_host, is_local, serve_command, served

    if served():
        raise UsageError("--serve inside a served screen: this screen is already in a browser")
    check_host(host, allow_remote=allow_remote)
    if not is_local(host):
        click.echo(
            f"Warning: anyone who has the URL below and can reach {host} port {port} {who}; "
            "there is no other login.",
            err=True,
        )
    serve_command([sys.executable, "-m", "toolkit", *args], host=host, port=port, title=title, url=public_url)


def need_terminal(command: str, *, serves: bool = True) -> None:
    """Refuse, in one line, to open a screen without a terminal (Textual would draw into a pipe and wait on
    an input that never comes); a served screen has the browser instead."""
    from toolkit.tui.serve import served

    if served():
        return
    missing = [name for name, stream in (("input", sys.stdin), ("output", sys.stdout)) if not _isatty(stream)]
    if missing:
        verb = "are" if len(missing) > 1 else "is"
        raise UsageError(
            f"{command} needs a terminal: its standard {' and '.join(missing)} {verb} not one; run it in a "
            "terminal" + (", or with --serve to use it in a browser" if serves else "")
        )


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False
