"""Identifier components, shared by the corpus builder (the ``ident`` column) and the bm25f query side."""

from __future__ import annotations

import re

_COMPONENT = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier(name: str) -> list[str]:
    """``JSONDecoder`` → JSON, Decoder; ``move_to_end`` → move, to, end; ``os.path`` → os, path."""
    parts: list[str] = []
    for piece in re.split(r"[._\W]+", name):
        parts.extend(_COMPONENT.findall(piece))
    return parts


def identifier_text(name: str) -> str:
    """Every component of a dotted name, lower-cased, in order, once each (the ``ident`` column)."""
    seen: dict[str, None] = {}
    for part in split_identifier(name):
        seen.setdefault(part.lower(), None)
    return " ".join(seen)
