"""The ``trec-toolkit`` command line: a thin click shell over the library.

Commands are loaded lazily (``COMMANDS`` maps a name to ``module:attribute``) so that ``--help`` and quick
commands never pay for pandas, scipy or textual. One handler at the boundary turns a ``ToolkitError``
into a single ``Error: …`` line and its exit code (docs/design.md §5); ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings
from collections.abc import Callable
from typing import Any

import click

from toolkit import __version__
from toolkit.errors import EXIT_DATA, EXIT_INTERRUPTED, ToolkitError


def visible(text: str) -> str:
    """``toolkit.formats.text.visible``, imported only when an error or warning is printed (``--help`` stays
    instant): messages quote file names, ids and names from outside."""
    from toolkit.formats.text import visible as make_visible

    return make_visible(text)


#: command name → "module:attribute"; each command lives in its own module under toolkit/cli/.
COMMANDS: dict[str, str] = {
    "run": "toolkit.cli.run:command",
    "truth": "toolkit.cli.truth:command",
    "score": "toolkit.cli.score:command",
    "compare": "toolkit.cli.compare:command",
    "correlate": "toolkit.cli.correlate:command",
    "plan": "toolkit.cli.plan:command",
    "gate": "toolkit.cli.gate:command",
    "audit": "toolkit.cli.audit:command",
    "pool": "toolkit.cli.pool:command",
    "assign": "toolkit.cli.assign:command",
    "judge": "toolkit.cli.judge:command",
    "adjudicate": "toolkit.cli.adjudicate:command",
    "progress": "toolkit.cli.progress:command",
    "judgments": "toolkit.cli.judgments:group",
    "agree": "toolkit.cli.agree:command",
    "export": "toolkit.cli.export:command",
    "trec_eval": "toolkit.cli.trec_eval:command",
    "example": "toolkit.cli.example:group",
    "campaign": "toolkit.cli.campaign:group",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when invoked (or listed by --help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if self._available(name)]

    @staticmethod
    def _available(name: str) -> bool:
        module = COMMANDS[name].split(":")[0]
        return importlib.util.find_spec(module) is not None

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None or not self._available(cmd_name):
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)  # type: ignore[no-any-return]

    def invoke(self, ctx: click.Context) -> Any:
        debug = bool(ctx.params.get("debug"))
        try:
            return super().invoke(ctx)
        except ToolkitError as exc:
            if debug:
                raise
            click.echo(f"Error: {visible(str(exc))}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except BrokenPipeError:
            ctx.exit(EXIT_DATA)
        except Exception as exc:  # noqa: BLE001 - the boundary: never show a traceback to a user
            if debug:
                raise
            click.echo(
                f"Error: internal error {type(exc).__name__}: {visible(str(exc))} (rerun with --debug for the traceback, "
                "and please report it)",
                err=True,
            )
            ctx.exit(EXIT_DATA)


def _warning_printer() -> Callable[..., None]:
    """A ``warnings.showwarning`` that prints each warning once per command as one ``Warning: …`` line.

    Python's "default" filter shows a warning once per place that raised it, so one condition found by two
    steps (the scorer and the report both warn about the same unjudged topics) printed twice; here the text
    decides, and a fresh printer per command keeps one command's warnings from hiding the next one's (tests
    run many commands in one process).
    """
    shown: set[str] = set()

    def show(
        message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None
    ) -> None:
        text = visible(str(message))
        if text not in shown:
            shown.add(text)
            click.echo(f"Warning: {text}", err=True)

    return show


@click.group(
    cls=LazyGroup,
    # show_default: every command's options show their default (inherited by the subcommands' contexts)
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100, "show_default": True},
)
@click.version_option(__version__, prog_name="trec-toolkit")
@click.option("--debug", is_flag=True, help="Show full tracebacks instead of one-line errors.")
def main(debug: bool) -> None:
    """Audit-grade search evaluation the TREC way.

    \b
    The pipeline:  run → truth → score / compare / gate / audit
                   run → pool → assign → judge → agree → adjudicate → export
    \b
    Examples:
      trec-toolkit audit                       # the whole example audit from toolkit.toml
      trec-toolkit score runs/bm25.run --qrels qrels/stdlib.qrels --topics topics/stdlib.toml --by-class
      trec-toolkit compare runs/bm25.run runs/bm25f.run --qrels qrels/stdlib.qrels --format md -o audit.md
    """
    warnings.showwarning = _warning_printer()
    warnings.simplefilter("always")


def run_cli() -> None:  # pragma: no cover - console entry alias
    main(prog_name="trec-toolkit")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
