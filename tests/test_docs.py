"""The documentation keeps up with the code: every command, every ``toolkit.toml`` key, every link.

* docs/cli.md is what ``docs/gen_cli.py`` writes from the commands' ``--help`` now;
* every command of the click tree (walked here, not by the generator) has its section there and is explained
  in a hand-written page;
* every key the code reads from ``toolkit.toml`` is in docs/workspace.md's table for its section — the keys
  come from the code's own declarations (``RUN_DEFAULTS``, ``SHARED_KEYS``, ``AUDIT_DEFAULTS``, the judging
  screen's ``ACTIONS``) and from the lines that read a table (``settings.get("depth")``), never from the page;
* every environment variable the code reads is in docs/workspace.md's table of them;
* every relative link of README.md and docs/*.md reaches a file, and its ``#anchor`` a heading there;
* every page is in mkdocs.yml's nav, and every "docs/design.md §N" the code cites exists.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
GENERATED = {"cli.md"}


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli", DOCS / "gen_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def command_paths(command: click.Command, ctx: click.Context, prefix: str = "") -> Iterator[str]:
    """Every command under ``command`` as its path after the program name ("judgments export")."""
    if not isinstance(command, click.Group):
        return
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        assert sub is not None, name
        path = f"{prefix} {name}".strip()
        yield path
        yield from command_paths(sub, click.Context(sub, info_name=name, parent=ctx), path)


def all_commands() -> list[str]:
    from toolkit.cli import COMMANDS, main

    paths = list(command_paths(main, click.Context(main, info_name="trec-toolkit")))
    assert set(COMMANDS) <= set(paths)  # the walk reached every registered command
    return paths


def hand_written() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in PAGES if p.name not in GENERATED)


# --- the CLI reference ---------------------------------------------------------------------------------


def test_cli_reference_is_what_the_generator_writes_now() -> None:
    expected = load_generator().render()
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert current == expected, "docs/cli.md is out of date: run .venv/bin/python docs/gen_cli.py"


@pytest.mark.parametrize("args", [["score"], ["judgments", "import"]])
def test_the_reference_holds_the_help_the_installed_command_prints(args: list[str]) -> None:
    """The generator's help is the console script's, at a 100-column terminal (the CLI's widest)."""
    script = Path(sys.executable).with_name("trec-toolkit")
    env = {**os.environ, "COLUMNS": "100"}
    done = subprocess.run([str(script), *args, "--help"], capture_output=True, text=True, env=env, check=True)
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert f"## `trec-toolkit {' '.join(args)}`\n\n```text\n{done.stdout.rstrip()}\n```" in page


def test_every_command_has_a_reference_section_and_a_guide() -> None:
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    guides = hand_written()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = all_commands()
    assert len(commands) >= 20
    no_section = [c for c in commands if f"## `trec-toolkit {c}`" not in page]
    assert not no_section, f"docs/cli.md has no section for {no_section}"
    unexplained = [c for c in commands if f"trec-toolkit {c}" not in guides and f"`{c} " not in guides]
    assert not unexplained, f"no hand-written page in docs/ explains {unexplained}"
    top = [c for c in commands if " " not in c]
    not_in_table = [c for c in top if f"](docs/cli.md#trec-toolkit-{c.replace(' ', '-')})" not in readme]
    assert not not_in_table, f"the README's command table does not link {not_in_table}"


# --- toolkit.toml ---------------------------------------------------------------------------------------


def source(relative: str) -> str:
    return (ROOT / relative).read_text(encoding="utf-8")


def scanned(pattern: str, *files: str) -> set[str]:
    """The keys ``pattern`` (one group) finds in ``files`` (all of toolkit/ when none is named)."""
    paths = [ROOT / f for f in files] if files else sorted((ROOT / "toolkit").rglob("*.py"))
    found = {m for p in paths for m in re.findall(pattern, p.read_text(encoding="utf-8"))}
    assert found, f"{pattern!r} found nothing in {files or 'toolkit/'}: the code changed, update this test"
    return found


@functools.cache
def config_keys() -> dict[str, frozenset[str]]:
    """Every key the code reads from toolkit.toml, by table (scanned once per process: the parametrized
    tests below read it again for every table)."""
    from toolkit.pipeline.audit import AUDIT_DEFAULTS
    from toolkit.systems.config import KIND_KEYS, SHARED_KEYS
    from toolkit.tui.keymap import ACTIONS, GRADE_PREFIX
    from toolkit.workspace import MOVED_TO_WORKSPACE, RUN_DEFAULTS

    keys = {
        "workspace": set(RUN_DEFAULTS) | set(MOVED_TO_WORKSPACE) | scanned(r'\bsettings\.get\("(\w+)"'),
        "systems.NAME": SHARED_KEYS | set().union(*KIND_KEYS.values()),
        "docs": scanned(r'_argv_list\(section, "(\w+)"', "toolkit/pooling/docsource.py")
        | scanned(r'\bsection\.get\("(\w+)"', "toolkit/pooling/docsource.py")
        | scanned(r'\bdocs\.get\("(\w+)"'),
        "audit": set(AUDIT_DEFAULTS),
        "gate": scanned(r'section\("gate"\)\.get\("(\w+)"'),
        "judge": scanned(r'\bjudge\.get\("(\w+)"'),
        "judge.keys": {f"{GRADE_PREFIX}N", *ACTIONS},
    }
    return {table: frozenset(found) for table, found in keys.items()}


def test_the_key_list_covers_every_table_the_code_reads() -> None:
    tables = {t.split(".")[0] for t in config_keys()}
    read = (
        scanned(r'\bsection\("(\w+)"\)')
        | scanned(r'\bconfig\.get\("(\w+)"\)', "toolkit/judging/guidelines.py", "toolkit/tui/keymap.py")
        | {"workspace"}  # Workspace.settings
    )
    assert read <= tables, f"tables read by the code but missing from config_keys: {read - tables}"


def test_the_key_list_covers_the_shipped_toolkit_toml() -> None:
    keys = config_keys()
    config = tomllib.loads(source("toolkit.toml"))
    for table, values in config.items():
        name = "systems.NAME" if table == "systems" else table
        entries = [k for spec in values.values() for k in spec] if table == "systems" else list(values)
        missing = set(entries) - keys[name]
        assert not missing, f"toolkit.toml [{table}] has keys the scan did not find: {missing}"


def key_table(page: str, table: str) -> set[str]:
    """The keys in the first column of the tables under the heading ``### `[TABLE]```."""
    match = re.search(rf"^### `\[{re.escape(table)}\]`\n(.*?)(?=^#{{1,3}} )", page + "\n## ", re.S | re.M)
    assert match is not None, f"docs/workspace.md has no heading ### `[{table}]`"
    return set(re.findall(r"^\| `([\w.-]+)` \|", match.group(1), re.M))


@pytest.mark.parametrize("table", list(config_keys()))
def test_every_toolkit_toml_key_is_documented(table: str) -> None:
    page = (DOCS / "workspace.md").read_text(encoding="utf-8")
    documented = key_table(page, table)
    missing = config_keys()[table] - documented
    assert not missing, f"docs/workspace.md does not document [{table}] {sorted(missing)}"
    unknown = documented - config_keys()[table]
    assert not unknown, (
        f"docs/workspace.md documents [{table}] keys the code does not read: {sorted(unknown)}"
    )


# --- environment variables ------------------------------------------------------------------------------

#: Read by libpq (through psycopg) for a PostgreSQL campaign, not by the toolkit's own code.
READ_BY_LIBPQ = {"PGPASSWORD"}


def environment_variables() -> set[str]:
    """Every variable the code reads: ``os.environ.get("X")``, ``os.environ["X"]``, and names kept in a
    constant (``MAX_LINE_ENV = "X"``) for a lookup by variable."""
    looked_up = scanned(r'\benviron(?:\.get\(|\[)"([A-Z][A-Z0-9_]*)"')
    return looked_up | scanned(r'(?m)^\w*_ENV = "([A-Z][A-Z0-9_]*)"$')


def test_the_environment_scan_finds_what_it_should() -> None:
    from toolkit.example.search import CACHE_ENV
    from toolkit.formats.limits import MAX_DECOMPRESSED_ENV, MAX_DOCUMENT_ENV, MAX_LINE_ENV

    assert {CACHE_ENV, MAX_DECOMPRESSED_ENV, MAX_DOCUMENT_ENV, MAX_LINE_ENV, "XDG_STATE_HOME"} <= (
        environment_variables()
    )


def test_every_environment_variable_is_documented() -> None:
    page = (DOCS / "workspace.md").read_text(encoding="utf-8")
    match = re.search(r"^## Environment variables\n(.*?)(?=^## )", page, re.S | re.M)
    assert match is not None, "docs/workspace.md has no section ## Environment variables"
    table = re.search(r"^\| variable \| default \| what it does \|\n(?:\|.*\n)+", match.group(1), re.M)
    assert table is not None, "the section has no table | variable | default | what it does |"
    documented = set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", table.group(0), re.M))
    read = environment_variables()
    assert not read - documented, f"docs/workspace.md does not document {sorted(read - documented)}"
    unknown = documented - read - READ_BY_LIBPQ
    assert not unknown, f"docs/workspace.md documents variables the code does not read: {sorted(unknown)}"


# --- links, nav, design citations ---------------------------------------------------------------------


def heading_anchors(text: str) -> set[str]:
    """The anchors of a page's headings, as both GitHub and MkDocs (Python-Markdown's toc) make them; a link
    must work on both, so only anchors they agree on count."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    anchors = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, re.M):
        plain = re.sub(r"[`*]", "", heading)
        github = re.sub(r"[^\w\- ]", "", plain.lower()).replace(" ", "-")
        ascii_only = unicodedata.normalize("NFKD", plain).encode("ascii", "ignore").decode("ascii")
        toc = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_only).strip().lower())
        if github == toc:
            anchors.add(github)
    return anchors


def links(path: Path) -> Iterator[tuple[str, str]]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"[a-z]+:", target):
            yield target, f"{path.relative_to(ROOT)} → {target}"


def test_every_relative_link_reaches_a_file_and_heading() -> None:
    broken = []
    for page in [ROOT / "README.md", *PAGES]:
        for target, where in links(page):
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.is_file():
                broken.append(f"{where}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in heading_anchors(dest.read_text("utf-8")):
                broken.append(f"{where}: no heading with that anchor")
    assert not broken, "\n".join(broken)


def test_the_link_check_catches_a_broken_anchor() -> None:
    assert "a-b_c" in heading_anchors("## A `b_c`\n")
    assert "the-workspace" not in heading_anchors("# The workspace's files\n")
    assert "x" not in heading_anchors("```\n# x\n```\n")


def test_every_page_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = set(re.findall(r"^\s*- (?:[^:\n]+: )?([\w./-]+\.md)\s*$", config, re.M))
    assert nav == {p.name for p in PAGES}
    assert re.search(r"^strict: true$", config, re.M)


def test_design_citations_name_sections_of_docs_design() -> None:
    design = (DOCS / "design.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", design, re.M))
    assert sections >= {"1", "3", "5", "7", "8", "9"}
    cited: dict[str, set[str]] = {}
    files = [
        *(ROOT / "toolkit").rglob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
        *PAGES,
        ROOT / "pyproject.toml",
    ]
    for path in files:
        text = path.read_text(encoding="utf-8")
        old = re.search(r"\bDESIGN §", text)  # the design document of the project's own notes, not shipped
        assert old is None, (
            f"{path.relative_to(ROOT)} cites DESIGN by section: cite docs/design.md §N instead"
        )
        for group in re.findall(r"design(?:\.md)? (§\d+(?:, §\d+)*)", text):
            for number in re.findall(r"§(\d+)", group):
                cited.setdefault(number, set()).add(str(path.relative_to(ROOT)))
    assert cited, "no citation found: the pattern is out of date"
    missing = {n: sorted(where) for n, where in cited.items() if n not in sections}
    assert not missing, f"cited sections that docs/design.md lacks: {missing}"


# --- help that tells the truth ----------------------------------------------------------------------------


def test_run_settings_help_states_the_defaults_the_code_uses() -> None:
    """``run``'s and ``pool``'s help name the fallback of each run setting as ``RUN_DEFAULTS`` holds it; the
    workers default is 4 only on a machine with 4 CPUs or more (``min(4, os.cpu_count())``)."""
    from toolkit.cli import main
    from toolkit.workspace import RUN_DEFAULTS

    def helps(name: str) -> dict[str, str]:
        command = main.get_command(click.Context(main), name)
        assert command is not None
        return {p.name: p.help or "" for p in command.params if isinstance(p, click.Option) and p.name}

    run, pool = helps("run"), helps("pool")
    for key in ("depth", "timeout", "retries"):
        assert f"(default: toolkit.toml, else {RUN_DEFAULTS[key]:g})" in run[key], (key, run[key])
    assert RUN_DEFAULTS["workers"] == min(4, os.cpu_count() or 1)
    cpus = "else 4, or the number of CPUs when fewer"
    assert cpus in run["workers"], run["workers"]
    assert cpus in pool["workers"], pool["workers"]
