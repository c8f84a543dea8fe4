"""Write docs/cli.md, the command-line reference, from the commands' own ``--help``.

The reference is generated so that it cannot drift from the CLI: every command of ``trec-toolkit`` (the click
group ``toolkit.cli.main``, walked recursively in the order ``--help`` lists them) gets a section with its
help text exactly as ``trec-toolkit … --help`` prints it in a terminal of 100 columns or more. ``tests/test_docs.py`` fails when the
committed page differs from what this script writes, so a changed option is a one-command fix:

    .venv/bin/python docs/gen_cli.py          # rewrite docs/cli.md
    .venv/bin/python docs/gen_cli.py --check  # exit 1 when docs/cli.md is out of date
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

PAGE = Path(__file__).resolve().parent / "cli.md"
#: click lays help out at min(terminal columns, max_content_width) - 2, and toolkit.cli.main declares
#: max_content_width = 100: so this is the help of every terminal at least 100 columns wide.
WIDTH = 100 - 2

HEADER = """\
# Command-line reference

Every command of `trec-toolkit`, with its help exactly as `trec-toolkit COMMAND --help` prints it. This page is
generated from the commands themselves by `docs/gen_cli.py` (`.venv/bin/python docs/gen_cli.py` rewrites it;
a test fails when it is out of date), so it is never behind the code. The guides explain what the commands
are for: start at the [index](index.md).

Every command takes `-h`/`--help`; `trec-toolkit --debug COMMAND …` shows a traceback instead of the one-line
`Error: …` (exit codes: 0 ok, 1 data or runtime error, 2 usage error, 3 a check failed, 130 interrupted).
"""


def walk(command: click.Command, ctx: click.Context) -> Iterator[tuple[click.Command, click.Context]]:
    """``command`` and every command under it, depth first, in the order ``--help`` lists them."""
    yield command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            yield from walk(sub, sub.make_context(name, [], parent=ctx, resilient_parsing=True))


def commands() -> list[tuple[str, click.Command, click.Context]]:
    """(command path without the program name, command, its context) for every command, the root first."""
    from toolkit.cli import main

    # make_context, as click itself does: it applies each command's context_settings (-h as well as --help)
    root = main.make_context("trec-toolkit", [], resilient_parsing=True, terminal_width=WIDTH)
    return [(" ".join(ctx.command_path.split()[1:]), command, ctx) for command, ctx in walk(main, root)]


def render() -> str:
    """The whole page: one section per command, its help in a text block."""
    parts = [HEADER]
    for path, command, ctx in commands():
        title = f"trec-toolkit {path}".strip()
        help_text = command.get_help(ctx).rstrip()
        parts.append(f"## `{title}`\n\n```text\n{help_text}\n```\n")
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE} is out of date: run .venv/bin/python docs/gen_cli.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"Wrote {PAGE} ({len(commands())} commands)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
