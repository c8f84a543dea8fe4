"""TREC topic markup: SGML ``<top>`` blocks (ad hoc, TIPSTER, later tracks) and Web-track XML.

SGML topics come in two spellings and the reader takes both: the classic one where a field runs until the next
tag (``<num> Number: 301`` … ``<title> …``) and the later one with closing tags (``<num>301</num>``). Reading the
second as the first used to give topic ids like ``301</num>``, which match no qrels, so every topic silently
scored 0 — hence the tokenizer below: every tag ends the text of the field before it, whatever its kind.

TIPSTER fields (``<head>``, ``<dom>``, ``<con>``, ``<fac>``, ``<nat>``, ``<def>``, ``<smry>``) and any field
this module does not know are kept as topic metadata under readable names, their ``Label:`` prefixes removed.
When a topic has no ``<title>`` (TREC-4 topics have only ``<desc>``), its description is its query.

Web-track XML (``<topic number="1" type="faceted"><query>…</query><description>…</description><subtopic
number="1" type="nav">…</subtopic></topic>``) is parsed with the standard library's expat parser; entity
declarations are refused (no entity expansion from a topic file). Subtopics and other elements and attributes
become metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError

Spec = tuple[int | None, dict[str, Any]]

#: SGML tag → (topic field or metadata key, the label TREC puts before the text).
_SGML_FIELDS: dict[str, tuple[str, str | None]] = {
    "num": ("id", r"Number:"),
    "title": ("query", r"Topic:"),
    "desc": ("description", r"Description:"),
    "narr": ("narrative", r"Narrative:"),
    "head": ("head", None),
    "dom": ("domain", r"Domain:"),
    "con": ("concepts", r"Concepts?:|Concept\(s\):"),
    "fac": ("factors", r"Factors?:|Factor\(s\):"),
    "nat": ("nationality", r"Nationality:"),
    "def": ("definitions", r"Definitions?:|Definition\(s\):"),
    "smry": ("summary", r"Summary:"),
}
_TOPIC_FIELDS = {"id", "query", "description", "narrative"}
#: Each field's label pattern, compiled once (not once per topic).
_LABELS = {name: re.compile(rf"^(?:{label})\s*", re.I) for name, (_, label) in _SGML_FIELDS.items() if label}

_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_TOP_OPEN = re.compile(r"<top>", re.I)
_TOP_CLOSE = re.compile(r"</top>", re.I)
_TOP_OPEN_CLOSE = re.compile(r"<(/?)top>", re.I)
_TAG = re.compile(r"<(/?)([A-Za-z][\w.-]*)[^<>]*>")


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


class _Lines:
    """Line numbers of rising offsets in one text, counted from the previous one: linear in the text, where
    counting from the start for each of a million topics was quadratic."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.line = 1

    def at(self, offset: int) -> int:
        if offset < self.offset:
            return _line(self.text, offset)
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _clean(text: str) -> str:
    return " ".join(text.split())


def looks_like_sgml(text: str) -> bool:
    return _TOP_OPEN.search(text) is not None


def looks_like_xml(text: str) -> bool:
    return re.search(r"<topic\b", text) is not None


def sgml_specs(path: str | Path, text: str) -> Iterator[Spec]:
    """One spec per ``<top>`` block; a block left open or nested in another is an error at its line.

    The blocks are checked first, all of them, so that a block left open is reported before any topic's own
    error; then the topics are made one at a time (a file of a million topics is never held as specs).
    """
    lines = _Lines(text)
    first = _TOP_OPEN.search(text)
    if first is None or _TOP_CLOSE.search(text, first.end()) is None:
        raise FormatError(
            path,
            lines.at(first.start()) if first else None,
            "no <top> … </top> blocks found; expected TREC topics (or use .toml/.tsv/.jsonl/.xml)",
        )
    inside = -1  # the end of the block the scan is in (-1: none)
    for tag in _TOP_OPEN_CLOSE.finditer(text):
        if tag.group(1):  # </top>
            continue
        start = tag.start()
        if start < inside:
            raise FormatError(
                path, lines.at(start), "<top> inside another <top>; is a </top> missing before it?"
            )
        close = _TOP_CLOSE.search(text, tag.end())
        if close is None:
            raise FormatError(
                path, lines.at(start), "<top> without its </top>; close each topic before the next starts"
            )
        inside = close.end()
    lines = _Lines(text)
    for block in _TOP.finditer(text):
        yield lines.at(block.start()), _sgml_topic(path, text, block, lines)


def _sgml_topic(path: str | Path, text: str, block: re.Match[str], lines: _Lines) -> dict[str, Any]:
    body = block.group(1)
    base = block.start(1)
    parts: dict[str, list[str]] = {}
    current: str | None = None
    start = 0
    for tag in _TAG.finditer(body):
        name = tag.group(2).lower()
        if current is not None:
            parts[current].append(body[start : tag.start()])
        if tag.group(1) == "/":
            current = None
        else:
            if name == "top":
                raise FormatError(
                    path, lines.at(base + tag.start()), "<top> inside another <top>; is a </top> missing?"
                )
            if name == "num" and "num" in parts:
                raise FormatError(
                    path, lines.at(base + tag.start()), "second <num> in one <top>; is a </top> missing?"
                )
            current = name
            parts.setdefault(name, [])
        start = tag.end()
    if current is not None:
        parts[current].append(body[start:])

    spec: dict[str, Any] = {}
    metadata: dict[str, str] = {}
    for name, pieces in parts.items():
        key, label = _SGML_FIELDS.get(name, (name, None))
        value = _clean(" ".join(pieces))
        if label:
            value = _LABELS[name].sub("", value)
        if not value:
            continue
        if key in _TOPIC_FIELDS:
            spec[key] = value
        else:
            metadata[key] = value
    if "id" not in spec:
        raise FormatError(path, lines.at(block.start()), "topic without <num> (e.g. <num> Number: 301)")
    if "query" not in spec and "description" in spec:
        spec["query"] = spec["description"]  # TREC-4 style: the description is the whole topic
    spec["metadata"] = metadata
    return spec


# --------------------------------------------------------------------------- Web-track XML

_XML_FIELDS = {
    "query": "query",
    "description": "description",
    "desc": "description",
    "narrative": "narrative",
}


def xml_specs(path: str | Path, text: str) -> Iterator[Spec]:
    """One spec per ``<topic>`` element, wherever it sits under the root."""
    import xml.etree.ElementTree as ET

    entity = re.search(r"<!ENTITY", text, re.I)
    if entity:
        raise FormatError(
            path,
            _line(text, entity.start()),
            "XML entity declarations are not accepted in topic files; write the text out",
        )
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        message = re.sub(r":\s*line \d+, column \d+$", "", str(exc))
        raise FormatError(
            path,
            exc.position[0] if exc.position else None,
            f'invalid XML ({message}); expected <topic number="…"> elements',
        ) from None
    elements: list[Any] = (
        [root] if _local(root.tag) == "topic" else [e for e in root.iter() if _local(e.tag) == "topic"]
    )
    if not elements:
        raise FormatError(
            path,
            None,
            'no <topic> elements found; expected Web-track XML like <topics><topic number="1"><query>…</query>'
            "</topic></topics>",
        )
    counter = _Lines(text)
    found = [counter.at(m.start()) for m in re.finditer(r"<topic\b", text)]
    # a <topic inside a comment or CDATA shifts the count: then no exact lines
    lines: list[int | None] = list(found) if len(found) == len(elements) else [None] * len(elements)
    del root  # the topics hold the tree from here on, each freed once read (a million-topic tree is large)
    for i, where in enumerate(lines):
        element = elements[i]
        elements[i] = None
        spec = _xml_topic(path, where, element)
        element.clear()  # a topic nested in this one keeps its own children: it is in ``elements`` itself
        yield where, spec


def _local(tag: Any) -> str:
    """Tag name without its ``{namespace}``."""
    return str(tag).rsplit("}", 1)[-1].lower()


def _xml_topic(path: str | Path, line: int | None, element: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for attr, value in element.attrib.items():
        if _local(attr) in ("number", "id") and "id" not in spec:
            spec["id"] = value.strip()
        else:
            metadata[_local(attr)] = value
    children: list[str] = []
    for child in element:
        tag = _local(child.tag)
        children.append(tag)
        value = _clean("".join(child.itertext()))
        if tag == "subtopic":
            metadata.setdefault("subtopics", []).append({**child.attrib, "text": value})
        elif tag in ("number", "num") and "id" not in spec:
            spec["id"] = value
        elif tag in _XML_FIELDS and _XML_FIELDS[tag] not in spec:
            spec[_XML_FIELDS[tag]] = value
        elif value:
            if tag in metadata:
                previous = metadata[tag]
                metadata[tag] = [*previous, value] if isinstance(previous, list) else [previous, value]
            else:
                metadata[tag] = value
    if "query" not in spec:
        if "title" in metadata and isinstance(metadata["title"], str):
            spec["query"] = metadata.pop("title")
        elif _clean(element.text or ""):
            spec["query"] = _clean(element.text or "")
        else:
            where = f"topic {spec['id']!r}" if spec.get("id") else "topic"
            found = ", ".join(f"<{c}>" for c in dict.fromkeys(children)) or "no child elements"
            raise FormatError(path, line, f"{where}: no <query> or <title> element (found {found})")
    if not spec.get("id"):
        raise FormatError(path, line, 'topic without a number; expected <topic number="…">')
    spec["metadata"] = metadata
    return spec
