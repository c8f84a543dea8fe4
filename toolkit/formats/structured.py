"""JSON and TOML parsed with nesting too deep reported as a parse error, not a crash.

Python's ``json`` and ``tomllib`` recurse once per nested array or object, so 200,000 ``[`` — a few hundred
kilobytes — raise ``RecursionError``, which no reader expects: the command died with "internal error". Every
reader of JSON or TOML from outside (topic sets, judgments, corpora, manifests, ``toolkit.toml``, key
files, a system's or a doc command's answer) parses through these two functions, which turn it into the
parser's own error class — ``json.JSONDecodeError`` or ``tomllib.TOMLDecodeError``, both a ``ValueError``
— at the line where the nesting went past ``DEPTH``, so each reader's existing handling names
``path:line`` (or fails that one topic, for a system's answer).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError

#: Nesting beyond which the parse error points (the parsers themselves stop near Python's recursion limit).
DEPTH = 100
TOO_DEEP = "arrays or objects nested too deeply for the parser; nothing real nests this far"


def loads_json(text: str) -> Any:
    """``json.loads``; nesting too deep is a ``json.JSONDecodeError`` at the line it gets too deep."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, text, deep_position(text)) from None


def json_line_object(path: str | Path, number: int, line: str, expected: str) -> dict[str, Any]:
    """Line ``number`` of a JSON Lines file, which must hold ``expected`` (a JSON object, described for the
    user): every JSON Lines reader (topics, judgments, a corpus) refuses a bad line in these same words."""
    try:
        value = loads_json(line)
    except json.JSONDecodeError as exc:
        raise FormatError(path, number, f"invalid JSON ({exc.msg}); expected {expected}") from None
    if not isinstance(value, dict):
        shown = json.dumps(value, ensure_ascii=False)
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        raise FormatError(path, number, f"expected {expected}, found {shown}")
    return value


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``; nesting too deep is a ``tomllib.TOMLDecodeError`` naming its line."""
    import tomllib  # only TOML files need it (``score`` on TREC files does not)

    try:
        return tomllib.loads(text)
    except RecursionError:
        at = deep_position(text)
        line = text.count("\n", 0, at) + 1
        raise tomllib.TOMLDecodeError(f"{TOO_DEEP} (at line {line})") from None


def deep_position(text: str) -> int:
    """Where the brackets outside strings first nest past ``DEPTH`` (0 when they never do)."""
    depth = 0
    quote = ""
    escaped = False
    for position, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > DEPTH:
                return position
        elif char in "]}":
            depth -= 1
    return 0
