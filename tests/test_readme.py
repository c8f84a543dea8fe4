"""The README's quickstart is the contract with a new user: exactly two commands, the second is CI's."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quickstart_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quickstart", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quickstart_has_exactly_two_commands() -> None:
    commands = quickstart_commands()
    assert len(commands) == 2
    assert commands[0].startswith("python3 -m venv .venv")
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert quickstart_commands()[1] in ci.splitlines()


def test_readme_is_a_front_door() -> None:
    """At most 10 KB, Quickstart first: reference material belongs in docs/ (tests/test_docs.py checks it)."""
    data = (ROOT / "README.md").read_bytes()
    assert len(data) <= 10 * 1024, f"README.md is {len(data)} bytes; move reference material into docs/"
    headings = re.findall(r"^## (.+)$", data.decode("utf-8"), re.M)
    assert headings[0] == "Quickstart"
