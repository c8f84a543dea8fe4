"""Systems from ``toolkit.toml`` (``[systems.NAME]``) or from an inline ``--command``.

```toml
[systems.bm25]
command = ["{python}", "-m", "toolkit.example", "search", "{query}", "--limit", "{depth}"]  # or one string
parser = "json"                      # json | regex | lines | tsv | trec (default: lines; json for url)
ids = "results[*].doc_id"            # json: JMESPath to the doc ids …
scores = "results[*].score"          # … and, optionally, to the system's own scores (manifest only)
# pattern = 'pydoc://\\S+'           # regex: ids in order of first appearance (group "id", else the match)
timeout = 30                         # optional per-system defaults for `run`
retries = 0
workers = 4
preflight = ["{python}", "-m", "toolkit.example", "info"]   # run once before a run; its stdout → manifest
# pilot = true                       # runs of this system are pilots, not for the record
env = { LANG = "C.UTF-8" }           # command only: extra environment

[systems.es]
url = "http://localhost:9200/docs/_search"
method = "POST"                      # GET (default) or POST
params = { q = "{query}" }           # query string (URL-encoded)
body = { query = { match = { text = "{query}" } }, size = "{depth}" }
headers = { Authorization = "ApiKey ${ES_API_KEY}" }   # never sent on a redirect to another host
ids = "hits.hits[*]._id"
max_response = "64 MiB"              # the largest reply accepted (bytes, or a number with KiB/MiB/GiB)
preflight = "http://localhost:9200/_cluster/health"   # http: a URL fetched with the headers (or argv)

[systems.mine]
callable = "mypackage.search:run"    # function(query, depth) -> [doc_id | (doc_id, score), …]
```
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkit.errors import ConfigError
from toolkit.systems.base import System
from toolkit.systems.command import CommandSystem, split_command
from toolkit.systems.http import DEFAULT_MAX_RESPONSE, HttpSystem
from toolkit.systems.parsers import Parser
from toolkit.systems.preflight import Preflight, parse_preflight
from toolkit.systems.python import PythonSystem

#: Keys a ``[systems.NAME]`` table may hold, by kind (plus the shared ones).
SHARED_KEYS = {
    "parser",
    "ids",
    "scores",
    "pattern",
    "timeout",
    "retries",
    "workers",
    "depth",
    "description",
    "preflight",
    "pilot",
}
KIND_KEYS = {
    "command": {"command", "env"},
    "http": {"url", "method", "params", "body", "headers", "max_response"},
    "python": {"callable"},
}
#: Keys that are options of ``run`` rather than of the system itself.
RUN_OPTION_KEYS = ("timeout", "retries", "workers", "depth", "pilot")


def load_systems(
    table: Mapping[str, Any], *, root: Path | None = None, where: str = "toolkit.toml"
) -> dict[str, System]:
    """Every system of a ``[systems]`` table, validated (unknown keys and kinds are errors); commands run in
    ``root`` (the workspace folder) and errors name ``where`` (the config file)."""
    systems: dict[str, System] = {}
    for name, spec in table.items():
        if not isinstance(spec, dict):
            raise ConfigError(f"{where}: [systems.{name}] must be a table")
        try:
            systems[name] = system_from_config(name, spec, root=root)
        except ConfigError as exc:
            raise ConfigError(f"{where}: [systems.{name}]: {exc}") from None
    return systems


def run_options(system: System) -> dict[str, Any]:
    """The per-system ``run`` defaults declared in ``toolkit.toml`` (timeout, retries, workers, depth, pilot)."""
    return dict(getattr(system, "options", {}) or {})


def system_from_config(name: str, spec: Mapping[str, Any], *, root: Path | None = None) -> System:
    kinds = [
        kind for kind, key in (("command", "command"), ("http", "url"), ("python", "callable")) if key in spec
    ]
    if len(kinds) != 1:
        raise ConfigError('give exactly one of command = […], url = "…" or callable = "module:function"')
    kind = kinds[0]
    unknown = set(spec) - SHARED_KEYS - KIND_KEYS[kind]
    if unknown:
        allowed = sorted(SHARED_KEYS | KIND_KEYS[kind])
        raise ConfigError(f"unknown key(s) {sorted(unknown)} for a {kind} system; allowed: {allowed}")
    options = _options(spec)
    system: System
    if kind == "command":
        raw = spec["command"]
        if isinstance(raw, str):
            argv = split_command(raw)
        elif isinstance(raw, list) and raw and all(isinstance(a, str) for a in raw):
            argv = list(raw)
        else:
            raise ConfigError("command must be a list of strings (argv) or one string")
        env = spec.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise ConfigError("env must be a table of strings")
        system = CommandSystem(
            name,
            tuple(argv),
            parser=_parser(spec, "lines"),
            cwd=root,
            env=env,
            options=options,
            preflight=_preflight(spec, kind, root=root, env=env),
        )
    elif kind == "http":
        for key in ("params", "headers"):
            value = spec.get(key, {})
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ConfigError(f"{key} must be a table of strings")
        max_response = parse_size(spec.get("max_response", DEFAULT_MAX_RESPONSE))
        system = HttpSystem(
            name,
            str(spec["url"]),
            parser=_parser(spec, "json"),
            method=str(spec.get("method", "GET")).upper(),
            params=spec.get("params", {}),
            body=spec.get("body"),
            headers=spec.get("headers", {}),
            options=options,
            max_response=max_response,
            preflight=_preflight(
                spec, kind, root=root, headers=spec.get("headers", {}), max_response=max_response
            ),
        )
    else:
        if any(k in spec for k in ("parser", "ids", "scores", "pattern")):
            raise ConfigError("a callable returns doc ids itself; parser/ids/scores/pattern do not apply")
        system = PythonSystem(
            name, str(spec["callable"]), options=options, preflight=_preflight(spec, kind, root=root)
        )
    return system


def system_from_command(
    template: str | list[str],
    *,
    name: str = "command",
    parser: str = "lines",
    ids: str | None = None,
    scores: str | None = None,
    pattern: str | None = None,
    root: Path | None = None,
) -> System:
    """An inline command system (``run --command 'prog search {query} --limit {depth}'``)."""
    argv = split_command(template) if isinstance(template, str) else list(template)
    return CommandSystem(
        name,
        tuple(argv),
        parser=Parser(parser, ids=ids, scores=scores, pattern=pattern),
        cwd=root,
    )


_SIZE = re.compile(r"([0-9]+)\s*(B|KiB|MiB|GiB)?")
_UNITS = {None: 1, "B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def parse_size(value: Any) -> int:
    """``max_response = 1048576`` or ``"1 MiB"`` → bytes (binary units only, so "MB" cannot be misread)."""
    match = _SIZE.fullmatch(value.strip()) if isinstance(value, str) else None
    if match:
        size = int(match.group(1)) * _UNITS[match.group(2)]
    elif isinstance(value, int) and not isinstance(value, bool):
        size = value
    else:
        size = 0
    if size < 1:
        raise ConfigError(
            f'max_response must be a positive number of bytes, or one with a unit ("512 KiB", "64 MiB", '
            f'"1 GiB"), not {value!r}'
        )
    return size


def _parser(spec: Mapping[str, Any], default: str) -> Parser:
    return Parser(
        str(spec.get("parser", default)),
        ids=spec.get("ids"),
        scores=spec.get("scores"),
        pattern=spec.get("pattern"),
    )


def _preflight(
    spec: Mapping[str, Any],
    kind: str,
    *,
    root: Path | None,
    env: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    max_response: int = DEFAULT_MAX_RESPONSE,
) -> Preflight | None:
    if "preflight" not in spec:
        return None
    return parse_preflight(
        spec["preflight"], kind=kind, cwd=root, env=env, headers=headers, max_response=max_response
    )


def _options(spec: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in RUN_OPTION_KEYS:
        if key not in spec:
            continue
        value = spec[key]
        if key == "pilot":
            if not isinstance(value, bool):
                raise ConfigError("pilot must be true or false")
            out[key] = value
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(f"{key} must be a non-negative number")
        if key != "timeout" and not isinstance(value, int):
            raise ConfigError(f"{key} must be an integer")
        out[key] = value
    return out
