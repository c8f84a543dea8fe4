"""What the tests share: the one fake search engine and the one workspace builder.

Imported as ``helpers`` from every test folder (``tests/`` is on ``sys.path``: tests/conftest.py lives there
and the test folders are not packages). A test that needs a workspace with systems builds it with
``make_workspace``; a test that needs a system program runs ``ENGINE`` (``tests/helpers/engine.py``, whose
docstring says what it answers) — so an engine's behaviour and a workspace's layout are written once.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit.model import Topic, TopicSet

#: The repository (the example workspace), for tests that read or copy what it ships.
REPO = Path(__file__).resolve().parents[2]

#: The fake search engine (a stand-alone program; see its docstring).
ENGINE = Path(__file__).with_name("engine.py")

#: Rankings by engine name, then by query id: ``{"good": {"t1": ["a1", "x"]}}``.
Rankings = Mapping[str, Mapping[str, Sequence[str]]]


def engine_argv() -> list[str]:
    """The engine as the runner's tests call it without a workspace: ``doc:QUERY_ID:RANK`` lines."""
    return [sys.executable, str(ENGINE), "{query_id}", "{query}", "{depth}"]


def engine_command(name: str) -> list[str]:
    """A workspace system's argv: the engine copied to ``search.py``, answering from ``rankings.json``."""
    return ["{python}", "search.py", "--engine", name, "{query_id}", "{query}", "{depth}"]


def make_topics(*query_ids: str, query: str = "q") -> TopicSet:
    """A topic set in memory, the query text derived from each id."""
    return TopicSet(
        topics=tuple(Topic(query_id=q, query=f"{query} {q}") for q in query_ids), name="t", sha256="x" * 64
    )


def toml_value(value: Any) -> str:
    """One TOML value (strings as JSON strings, which TOML reads as basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def toml_table(name: str, entries: Mapping[str, Any]) -> str:
    """``[name]`` and its keys; a name that is not a bare key (``systems."<x>"``) is quoted by the caller."""
    return f"[{name}]\n" + "".join(f"{key} = {toml_value(v)}\n" for key, v in entries.items())


def topics_toml(*topics: Mapping[str, Any]) -> str:
    """A TOML topic set, one ``[[topic]]`` per mapping (``{"id": "t1", "query": "alpha", "truth": [...]}``)."""
    return "\n".join(
        "[[topic]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in topic.items()) for topic in topics
    )


def make_workspace(
    root: Path,
    *,
    topics: str | Sequence[Mapping[str, Any]] | None = None,
    topics_file: str = "topics/t.toml",
    engines: Rankings | None = None,
    systems: Mapping[str, Mapping[str, Any]] | None = None,
    workspace: Mapping[str, Any] | None = None,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    config: str = "",
) -> Path:
    """Write a workspace into ``root`` and return the path of its ``toolkit.toml``.

    * ``topics``: the topic set (TOML text, or mappings for ``topics_toml``) written to ``topics_file`` and
      named in ``[workspace] topics``;
    * ``engines``: a ``[systems.NAME]`` per engine, each answering from these rankings by query id through the
      fake engine (copied to ``search.py`` beside ``rankings.json``, so the workspace stands alone);
    * ``systems``: more keys per system (``preflight``, ``pilot`` …), or whole systems of another kind
      (``{"base": {"callable": "mod:fn"}}``);
    * ``workspace``: the ``[workspace]`` keys (``workers = 1`` unless given: one topic at a time keeps a
      test's engine calls in order); the table is left out when neither it, ``topics`` nor ``engines`` is
      given, so that ``make_workspace(root, config=TEXT)`` writes TEXT alone;
    * ``tables``: other tables (``{"audit": {"alpha": 0.01}}``); ``config``: TOML text appended as is.
    """
    root.mkdir(parents=True, exist_ok=True)
    head: dict[str, Any] = {"workers": 1}
    if topics is not None:
        path = root / topics_file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(topics if isinstance(topics, str) else topics_toml(*topics), encoding="utf-8")
        head["topics"] = topics_file
    head.update(workspace or {})
    wanted = topics is not None or engines is not None or workspace is not None
    parts = [toml_table("workspace", head)] if wanted else []
    declared: dict[str, dict[str, Any]] = {}
    if engines is not None:
        shutil.copyfile(ENGINE, root / "search.py")
        (root / "rankings.json").write_text(json.dumps(engines, ensure_ascii=False), encoding="utf-8")
        for name in engines:
            declared[name] = {"command": engine_command(name), "parser": "json", "ids": "results[*].doc_id"}
    for name, extra in (systems or {}).items():
        declared.setdefault(name, {}).update(extra)
    parts += [toml_table(f"systems.{json.dumps(name)}", entries) for name, entries in declared.items()]
    parts += [toml_table(name, entries) for name, entries in (tables or {}).items()]
    config_path = root / "toolkit.toml"
    config_path.write_text("\n".join([*parts, config]), encoding="utf-8")
    return config_path
