"""[systems.NAME] in toolkit.toml and inline --command systems."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import make_workspace

from toolkit.errors import ConfigError
from toolkit.systems import (
    CommandSystem,
    HttpSystem,
    PythonSystem,
    fill_argv,
    run_options,
    system_from_command,
)
from toolkit.workspace import Workspace, load_workspace


def workspace(tmp_path: Path, text: str) -> Workspace:
    return load_workspace(make_workspace(tmp_path, config=text))


def test_all_three_kinds(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        """
[systems.cmd]
command = ["{python}", "-m", "x", "{query}"]
parser = "json"
ids = "results[*].doc_id"
timeout = 5
retries = 2

[systems.str]
command = "prog search '{query}' --limit {depth}"

[systems.web]
url = "http://localhost:9200/_search"
method = "post"
body = { size = "{depth}" }
ids = "hits.hits[*]._id"

[systems.py]
callable = "mypkg.search:run"
""",
    )
    systems = ws.systems()
    assert isinstance(systems["cmd"], CommandSystem) and systems["cmd"].cwd == tmp_path.resolve()
    assert run_options(systems["cmd"]) == {"timeout": 5, "retries": 2}
    assert isinstance(systems["str"], CommandSystem)
    assert systems["str"].argv == ("prog", "search", "{query}", "--limit", "{depth}")
    assert systems["str"].parser.kind == "lines"
    assert isinstance(systems["web"], HttpSystem) and systems["web"].method == "POST"
    assert systems["web"].parser.kind == "json"
    assert isinstance(systems["py"], PythonSystem)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('command = ["a", "{query}"]\nurl = "http://x"', "give exactly one of command"),
        ('description = "nothing"', "give exactly one of command"),
        ('command = ["a", "{query}"]\nheaders = {}', r"unknown key\(s\) \['headers'\] for a command system"),
        ('command = ["a", "--limit", "{depth}"]', "the command must contain {query}"),
        ('command = ["a", "{query}"]\nparser = "xml"', "unknown parser 'xml'"),
        ('command = ["a", "{query}"]\nparser = "json"', 'parser "json" needs ids'),
        ('command = ["a", "{query}"]\ntimeout = -1', "timeout must be a non-negative number"),
        ('command = ["a", "{query}"]\nretries = 1.5', "retries must be an integer"),
        ('url = "ftp://x"\nids = "a"', "url must start with http:// or https://"),
        ('url = "http://x"\nmethod = "PUT"\nids = "a"', "method must be GET or POST"),
        ('callable = "pkg:f"\nparser = "json"', "parser/ids/scores/pattern do not apply"),
        ("command = 3", "command must be a list of strings"),
    ],
)
def test_config_errors_name_the_system(tmp_path: Path, body: str, message: str) -> None:
    ws = workspace(tmp_path, f"[systems.bad]\n{body}\n")
    with pytest.raises(ConfigError, match=r"toolkit\.toml: \[systems\.bad\]: .*" + message):
        ws.systems()


def test_inline_command_is_split_like_a_shell_line_but_not_run_by_one() -> None:
    system = system_from_command("search --q '{query}' --n {depth}", name="inline")
    assert isinstance(system, CommandSystem)
    assert system.argv == ("search", "--q", "{query}", "--n", "{depth}")
    with pytest.raises(ConfigError, match="cannot split command"):
        system_from_command("search 'unclosed {query}")


def test_fill_argv_placeholders() -> None:
    argv = fill_argv(
        ["{python}", "x={query}", "{query_id}", "{depth}", '{"json": {}}'],
        query="a b",
        query_id="q1",
        depth="5",
    )
    assert argv == [sys.executable, "x=a b", "q1", "5", '{"json": {}}']
