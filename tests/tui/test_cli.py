"""The `judge`, `adjudicate` and `progress` commands up to the point where the screen opens: bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.errors import ConfigError
from toolkit.tui.keymap import load_keymap, short_label
from toolkit.tui.widgets import query_terms

KNOWN = "grade-0, grade-1, grade-2, grade-3, skip, unrateable, undo, next, previous, note, guidelines, find, help, quit"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_judge_needs_an_assessor(campaign: Path) -> None:
    result = run("judge", str(campaign))
    assert result.exit_code == 2
    assert result.output == "Error: judge: pass --assessor NAME (or --progress for the organiser's screen)\n"


def test_judge_a_missing_campaign(tmp_path: Path) -> None:
    missing = tmp_path / "nope.sqlite"
    for args in (
        ("judge", str(missing), "--assessor", "alice"),
        ("adjudicate", str(missing), "-a", "carol"),
        ("progress", str(missing)),
        ("judge", str(missing), "--progress"),
    ):
        result = run(*args)
        assert result.exit_code == 1, args
        assert (
            result.output
            == f"Error: {missing}: no such campaign; create one with `trec-toolkit pool RUN… -o {missing}`\n"
        )


def test_judge_an_unknown_assessor(campaign: Path) -> None:
    result = run("judge", str(campaign), "--assessor", "zoe")
    assert result.exit_code == 1
    assert result.output == (
        "Error: assessor 'zoe' has no items in this campaign (assessors: alice); "
        "give them a share with `trec-toolkit assign`\n"
    )


def test_judge_a_bad_key_file(campaign: Path, tmp_path: Path) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text('[judge.keys]\njump = "j"\n')
    result = run("judge", str(campaign), "--assessor", "alice", "--keys", str(keys))
    assert result.exit_code == 1
    assert result.output == f"Error: {keys}: unknown binding 'jump'; known: {KNOWN}\n"


def test_keymap_sources_and_precedence(tmp_path: Path) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text('skip = "k"\ngrade-3 = "f, 3"\n')
    config = {"judge": {"keys": {"skip": "space", "undo": "backspace"}}}
    assert load_keymap([0, 1, 2, 3], config=config, keys_file=keys) == {
        "skip": "k",
        "undo": "backspace",
        "grade-3": "f,3",
    }
    with pytest.raises(
        ConfigError, match=r"toolkit.toml \[judge.keys\]: skip must be a non-empty string of keys"
    ):
        load_keymap([0, 1], config={"judge": {"keys": {"skip": 1}}})
    with pytest.raises(ConfigError, match="nope.toml: key file not found"):
        load_keymap([0, 1], keys_file=tmp_path / "nope.toml")


def test_grade_labels_and_query_terms() -> None:
    assert short_label(3, "Highly relevant: the page a user is looking for") == "Highly relevant"
    assert short_label(1, "somewhat") == "Grade 1"
    assert query_terms("How do I make a type Hashable?") == ["hashable", "make", "type"]


def test_a_keymap_that_binds_one_key_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match="^key '2' is bound to both grade-2 and skip; give one of them another key$"
    ):
        load_keymap([0, 1, 2, 3], config={"judge": {"keys": {"skip": "2"}}})
    with pytest.raises(
        ConfigError, match="^key '/' is bound to both find and help; give one of them another key$"
    ):
        load_keymap([0, 1, 2, 3], config={"judge": {"keys": {"help": "/"}}})
    # moving a key away first makes it free
    assert load_keymap([0, 1], config={"judge": {"keys": {"skip": "1", "grade-1": "f"}}}) == {
        "skip": "1",
        "grade-1": "f",
    }


def test_document_format_default_and_a_bad_value() -> None:
    from toolkit.judging.guidelines import default_document_format
    from toolkit.judging.records import Document
    from toolkit.tui.widgets import render_document

    assert default_document_format({}) == "text"  # undeclared: the reading that is never wrong
    assert default_document_format({"docs": {"format": "markdown"}}) == "markdown"
    with pytest.raises(
        ConfigError,
        match=r"^toolkit.toml \[docs\] format: 'rst' is not a document format; use one of text, markdown, html$",
    ):
        default_document_format({"docs": {"format": "rst"}})
    # a document's own format (from its source) comes before the workspace's default
    own = Document("d", "", "# Heading\n\nbody", None, format="text")
    assert render_document(own, "", doc_format="markdown").body.plain.startswith("# Heading")  # type: ignore[attr-defined]
