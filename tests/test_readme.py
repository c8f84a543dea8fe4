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


#: Box-drawing characters with an arm going down, and with an arm going up.
DOWN, UP = set("│┐┌┤├┬┼"), set("│┘└┤├┴┼")
LINES = DOWN | UP | set("─▶◀")


def pipeline_drawings() -> dict[str, list[str]]:
    """The pipeline drawing (the code block that starts ``topics ──run──▶``) of each page that shows it."""
    found = {}
    for page in ("README.md", "docs/index.md", "docs/design.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        block = re.search(r"```\n(topics ──run──▶.*?)```", text, re.S)
        assert block is not None, f"{page} has no pipeline drawing"
        found[page] = block.group(1).rstrip("\n").splitlines()
    return found


def test_the_pipeline_drawing_is_one_drawing_and_its_lines_meet() -> None:
    """Every arm going down meets one going up in the same column on the next line, and every arm going up
    meets one going down or a word (a branch from a stage): a drawing edited by hand drifts a column and no
    longer joins."""
    drawings = pipeline_drawings()
    lines = drawings["README.md"]
    assert all(other == lines for other in drawings.values()), "the pipeline drawings differ; copy README's"
    padded = [line.ljust(max(map(len, lines))) for line in lines]
    for row, (above, below) in enumerate(zip(padded, padded[1:], strict=False)):
        for column, (a, b) in enumerate(zip(above, below, strict=True)):
            where = f"line {row + 1}, column {column + 1}: {a!r} over {b!r}"
            assert a not in DOWN or b in UP, where
            assert b not in UP or a in DOWN or (a.strip() and a not in LINES), where


def test_the_changelog_keeps_a_changelog() -> None:
    """What a user needs, in Keep a Changelog's shape: release headings, its six kinds of change, one bullet
    per change, no notes addressed to whoever writes it (comments) and no issue numbers."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "<!--" not in text
    assert not re.search(r"\bissues? \d+", text, re.I)
    releases = re.findall(r"^## (.+)$", text, re.M)
    assert releases and all(
        re.fullmatch(r"\[Unreleased\]|\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}", r) for r in releases
    )
    kinds = set(re.findall(r"^### (.+)$", text, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds
