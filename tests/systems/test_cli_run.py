"""``trec-toolkit run``: the real command through click, exact messages and exit codes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ENGINE, make_workspace

from toolkit.cli import main
from toolkit.formats.run import read_run

FAKE_COMMAND = f"{sys.executable} {ENGINE} {{query_id}} {{query}} {{depth}}"


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAKE_DELAY", "0")
    make_workspace(
        tmp_path,
        topics="ok1\tfirst query\ncrash1\tsecond\nok2\tthird\n",
        topics_file="topics/t.tsv",
        workspace={"depth": 2},
        systems={"fake": {"command": ["{python}", str(ENGINE), "{query_id}", "{query}", "{depth}"]}},
    )
    return tmp_path


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args))


def test_named_system_from_toolkit_toml(ws: Path) -> None:
    result = invoke("run", "fake")
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert (
        lines[0]
        == "Warning: 1 of 3 topics failed and have no results (crash1: exit code 3); see runs/fake.run.json"
    )
    assert lines[1].startswith("Wrote runs/fake.run (3 topics, 1 failed; latency p50 ")
    run = read_run(ws / "runs" / "fake.run")
    assert run.ranking("ok2") == ["doc:ok2:1", "doc:ok2:2"]
    assert result.stdout == ""


def test_inline_command(ws: Path) -> None:
    result = invoke("run", "mine", "--command", FAKE_COMMAND, "--depth", "1", "-o", "out/mine.run")
    assert result.exit_code == 0, result.stderr
    assert (ws / "out" / "mine.run").read_text().splitlines() == [
        "ok1 Q0 doc:ok1:1 1 1.0 mine",
        "ok2 Q0 doc:ok2:1 1 1.0 mine",
    ]


def test_every_topic_failing_is_an_error(ws: Path) -> None:
    (ws / "topics" / "bad.tsv").write_text("crash1\tx\ncrash2\ty\n", encoding="utf-8")
    result = invoke("run", "fake", "--topics", "topics/bad.tsv")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: every topic failed (2); first: crash1: exit code 3: RuntimeError: index corrupt "
        "(details in runs/fake.run.json)\n"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ("run", "nope"),
            2,
            "Error: unknown system 'nope' ({ws}/toolkit.toml); declared: fake; or give --command\n",
        ),
        (("run",), 2, "Error: name a system (fake) or give --command TEMPLATE\n"),
        (
            ("run", "--command", "x {query}"),
            2,
            "Error: with --command, name the system (trec-toolkit run NAME --command …) or give -o\n",
        ),
        (
            ("run", "fake", "--parser", "json"),
            2,
            "Error: --parser/--ids/--scores/--pattern apply to --command; a named system's come from toolkit.toml\n",
        ),
        (("run", "fake", "--depth", "0"), 2, "Error: --depth must be at least 1, not 0\n"),
        (
            ("run", "fake", "--topics", "missing.toml"),
            1,
            "Error: missing.toml: file not found; check the path\n",
        ),
        (
            ("run", "x", "--command", "no-such-prog-q {query}"),
            1,
            "Error: system 'x': program 'no-such-prog-q' not found; check the command or PATH\n",
        ),
        (
            ("run", "x", "--command", "prog {query}", "--parser", "json"),
            1,
            'Error: parser "json" needs ids = "<JMESPath>", e.g. ids = "results[*].doc_id"\n',
        ),
    ],
)
def test_usage_errors(ws: Path, args: tuple[str, ...], code: int, message: str) -> None:
    result = invoke(*args)
    assert (result.exit_code, result.stderr) == (code, message.format(ws=ws))


def test_no_topic_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("run", "x", "--command", f"{sys.executable} -c pass {{query}}")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: no topic set: pass --topics PATH or set [workspace] topics in toolkit.toml\n",
    )


def test_paths_are_recorded_relative_to_the_workspace_from_any_folder(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib
    import json

    sub = ws / "deep" / "er"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    result = invoke("run", "fake")
    assert result.exit_code == 0, result.stderr
    manifest = json.loads((ws / "runs" / "fake.run.json").read_text())
    expected = hashlib.sha256((ws / "topics" / "t.tsv").read_bytes()).hexdigest()
    assert manifest["inputs"]["topics"] == {"path": "topics/t.tsv", "sha256": expected}
    assert manifest["topic_set"]["path"] == "topics/t.tsv"
