"""The fast way through a large topic file whose topics are an id and a query and nothing else.

A query set of MS MARCO's size is a million lines of ``id<TAB>query`` (or ``{"id": …, "query": …}``, or
``<top><num>…<title>…</top>`` blocks, or ``<topic number="…"><query>…</query></topic>`` elements). Read
topic by topic — a spec dict, a check, a ``Topic`` each — that took longer than scoring. Here a block of such
topics is taken apart with a few passes of ``str`` methods and one regular expression each, checked as a whole
(empty ids and queries, whitespace in ids, comment lines, repeated ids) and appended to the columns of
``toolkit.model.TopicColumns``.

These readers only ever answer for files they fully understand: whatever does not have the simple shape —
a header other than ``id``/``query``, a comment or blank line, a query with a tab, a JSON object with more
keys, an SGML block with a ``<desc>``, XML with attributes, entities or comments — and every error, makes
them answer ``None``, and the careful reader of ``toolkit.formats.topics`` reads the file from the start: the
same topics, or the one ``path:line`` error it has always given. So their results are the careful reader's by
construction (tests hold them to it, file by file and error by error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.textfile import BOM, decode_text, iter_byte_blocks
from toolkit.model import Topic, TopicColumns

#: Column names (lower case) a TSV header may give the id and the query under, read here as plain topics.
_TSV_HEADER_IDS = ("id", "query_id", "qid")
_TSV_HEADER_TEXTS = ("query", "text", "title")


def _messy(queries: list[str]) -> bool:
    """Whitespace inside a query other than single spaces, which the careful reader collapses
    (``" ".join(text.split())``); every whitespace character but the space is unprintable, so ``isprintable``
    answers at C speed (an unprintable character of another kind only costs the collapsing)."""
    joined = "x".join(queries)
    return "  " in joined or not joined.isprintable()


class Columns:
    """Topics as they are read: ids, query texts, the id → position index (which finds repeated ids), and
    whole ``Topic``s, by position, only for those that carry more than an id and a query."""

    __slots__ = ("ids", "index", "queries", "rich")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.queries: list[str] = []
        self.index: dict[str, int] = {}
        self.rich: dict[int, Topic] = {}

    def result(self) -> TopicColumns:
        return TopicColumns(tuple(self.ids), self.queries, self.rich, self.index)

    def add(self, ids: list[str], queries: list[str], *, comments: bool = False) -> bool:
        """Append topics if they pass the careful reader's checks (ids and queries stripped and not empty, no
        whitespace inside an id, no id repeated; ``comments``: no id starting with ``#``, a comment line)."""
        ids, queries = list(map(str.strip, ids)), list(map(str.strip, queries))
        if not all(ids) or not all(queries):
            return False
        joined = "\0".join(ids)  # a NUL in an id (JSON can escape one) can only make this answer False
        if len(joined.split()) != 1 or (comments and ("\0#" in joined or joined.startswith("#"))):
            return False
        start = len(self.ids)
        self.index.update(zip(ids, range(start, start + len(ids)), strict=True))
        if len(self.index) != start + len(ids):
            return False
        self.ids.extend(ids)
        self.queries.extend(queries)
        return True


def tsv_columns(path: str | Path, digest: Any) -> Columns | None:
    """``id<TAB>query`` lines (under an optional ``id``/``query`` header), else None."""
    return _line_columns(path, digest, _tsv_block)


def jsonl_columns(path: str | Path, digest: Any) -> Columns | None:
    """One ``{"id": …, "query": …}`` object a line (any of ``id``/``query_id``/``qid`` with any of
    ``query``/``text``/``title``, the same two keys on every line), else None."""
    return _line_columns(path, digest, _jsonl_block)


def _line_columns(
    path: str | Path,
    digest: Any,
    block_columns: Callable[[list[str], bool], tuple[list[str], list[str]] | None],
) -> Columns | None:
    out = Columns()
    first = True
    comments = block_columns is _tsv_block
    try:
        for data in iter_byte_blocks(path, digest=digest):
            if not first and data.startswith(BOM):
                return None  # a mark inside the file is a character of the line: the careful reader keeps it
            text = decode_text(path, data)  # its error's line may be wrong here: the careful reader redoes it
            lines = text.split("\n")
            if lines[-1] == "":
                lines.pop()
            got = block_columns(lines, first) if lines else None
            first = False
            if got is None or not out.add(*got, comments=comments):
                return None
    except (FormatError, ValueError):
        return None
    return out if out.ids else None


#: First cells that make the careful reader take a TSV's first line for a header (or refuse it as one).
_TSV_HEADERISH_IDS = {"", "query_id", "qid", "id", "q_id", "topic_id"}


def _tsv_block(lines: list[str], first: bool) -> tuple[list[str], list[str]] | None:
    if first:
        names = [c.strip().lower() for c in lines[0].split("\t")]
        if names[0] in _TSV_HEADERISH_IDS or (len(names) >= 2 and names[1] in _TSV_HEADER_TEXTS):
            if len(names) != 2 or names[0] not in _TSV_HEADER_IDS or names[1] not in _TSV_HEADER_TEXTS:
                return None
            lines = lines[1:]
        if not lines:
            return None
    if set(map(str.count, lines, repeat("\t"))) != {1}:
        return None  # a line without its tab, or a query holding one
    cells = "\t".join(lines).split("\t")
    return cells[0::2], cells[1::2]


def _jsonl_block(lines: list[str], first: bool) -> tuple[list[str], list[str]] | None:
    """The lines parsed as one JSON array (two and a half times faster than line by line), which gives each
    line's own object exactly when: every line starts with ``{`` and ends with ``}``, the lines are joined by a
    raw newline (which no JSON string may hold, so no string spans two lines), there are as many objects as
    lines, and every object is flat (two string values). Then the braces outside strings are the objects' own,
    each line holds whole objects, and as many objects as lines means one object a line."""
    lines = list(map(str.strip, lines))
    if not all(lines) or set(map(itemgetter(0), lines)) != {"{"} or set(map(itemgetter(-1), lines)) != {"}"}:
        return None  # a blank or comment line, or not an object
    try:
        objects = json.loads("[" + ",\n".join(lines) + "]")
    except (ValueError, RecursionError):
        return None
    if len(objects) != len(lines) or set(map(type, objects)) != {dict}:
        return None
    keys = objects[0].keys()
    if set(map(len, objects)) != {2}:
        return None  # two keys each, and the two of the first object on every one (itemgetter below)
    id_key = next((k for k in _TSV_HEADER_IDS if k in keys), None)
    text_key = next((k for k in _TSV_HEADER_TEXTS if k in keys), None)
    if id_key is None or text_key is None:
        return None
    try:
        ids = list(map(itemgetter(id_key), objects))
        queries = list(map(itemgetter(text_key), objects))
    except KeyError:
        return None
    if set(map(type, ids)) != {str} or set(map(type, queries)) != {str}:
        return None
    return ids, queries


# --------------------------------------------------------------------------- TREC SGML and Web-track XML

#: Bytes of text taken apart at once: the matches of a chunk are held, not a million of them.
CHUNK_CHARS = 1 << 20

# Greedy, and labels spelled as character classes rather than (?i:…): a lazy or case-folded pattern was four
# times slower. A query's trailing blanks are stripped afterwards, as the careful reader strips them.
_SGML_TOPIC = re.compile(
    r"(\s*<top>\s*<num>[ \t]*(?:[Nn][Uu][Mm][Bb][Ee][Rr]:[ \t]*)?([^\s<]+)\s*(?:</num>\s*)?"
    r"<title>[ \t]*(?:[Tt][Oo][Pp][Ii][Cc]:[ \t]*)?([^<\n]*)\s*(?:</title>\s*)?</top>)"
)
#: XML's own whitespace (``\s`` would also take characters XML refuses).
_XS = "[ \t\r\n]*"
_XML_TOPIC = re.compile(
    rf"""({_XS}<topic[ \t\r\n]+number="([^\s"'<>&]+)"{_XS}>{_XS}<query>([^<&]*)</query>{_XS}</topic>)"""
)
_XML_HEAD = re.compile(
    rf"""{_XS}(?:<\?xml[ \t]+version=(["'])1\.[01]\1(?:[ \t]+encoding=(["'])[Uu][Tt][Ff]-?8\2)?[ \t]*\?>)?"""
    rf"""{_XS}<([A-Za-z_][\w.-]*){_XS}>"""
)
#: Characters XML 1.0 does not allow in a document (expat refuses them; so must the fast way).
_NOT_XML = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text_ok(text: str) -> bool:
    """No character XML refuses (``isprintable`` answers for most text at C speed; the pattern for the rest)."""
    return text.isprintable() or _NOT_XML.search(text) is None


def sgml_columns(text: str) -> Columns | None:
    """A file of nothing but ``<top> <num> ID <title> QUERY </top>`` blocks (labels ``Number:``/``Topic:``
    allowed, closing tags optional), else None."""
    return _chunked(text, 0, _content_end(text, len(text), 0, None), "</top>", _SGML_TOPIC, None)


def xml_columns(text: str) -> Columns | None:
    """``<ROOT><topic number="ID"><query>QUERY</query></topic>…</ROOT>`` and nothing else (an XML declaration
    of version 1.0/1.1 and UTF-8 allowed), else None."""
    head = _XML_HEAD.match(text)
    if head is None or head.group(3).lower() == "topic" or "]]>" in text:
        return None
    tail = f"</{head.group(3)}>"
    end = _content_end(text, len(text), head.end(), " \t\r\n")
    if not text.startswith(tail, end - len(tail)):
        return None
    body_end = _content_end(text, end - len(tail), head.end(), " \t\r\n")
    return _chunked(text, head.end(), body_end, "</topic>", _XML_TOPIC, _xml_text_ok)


def _content_end(text: str, end: int, floor: int, blanks: str | None) -> int:
    """``end`` moved back over whitespace (``blanks``, else any) without copying a large text as ``rstrip``
    would."""
    while end > floor and (text[end - 1] in blanks if blanks else text[end - 1].isspace()):
        end -= 1
    return end


def _chunked(
    text: str,
    start: int,
    end: int,
    closer: str,
    pattern: re.Pattern[str],
    text_ok: Callable[[str], bool] | None,
) -> Columns | None:
    """The topics of ``text[start:end]`` if ``pattern``'s matches cover it exactly, chunk by chunk (and
    ``text_ok`` accepts their ids and queries)."""
    out = Columns()
    while start < end:
        cut = text.find(closer, min(start + CHUNK_CHARS, end) - len(closer))
        cut = end if cut < 0 or cut + len(closer) > end else cut + len(closer)
        found = pattern.findall(text, start, cut)
        if not found or sum(map(len, map(itemgetter(0), found))) != cut - start:
            return None  # something between or inside the blocks that the simple shape does not cover
        ids = list(map(itemgetter(1), found))
        queries = list(map(itemgetter(2), found))
        if text_ok is not None and not (text_ok("".join(ids)) and text_ok("".join(queries))):
            return None
        if _messy(queries):
            queries = [" ".join(q.split()) for q in queries]
        if not out.add(ids, queries):
            return None
        start = cut
    return out if out.ids else None
