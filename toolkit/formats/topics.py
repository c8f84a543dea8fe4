"""Topic sets: TOML (the rich format), TSV, TREC SGML, Web-track XML, JSONL and ``ir_datasets:DATASET_ID``.

The TOML schema (documented in docs/formats.md):

```toml
[topicset]                 # optional
name = "stdlib"
description = "…"

[grades]                   # optional: grade definitions shown to assessors (default: 0–3 TREC style)
0 = "Not relevant …"
3 = "Highly relevant …"

[classes.fragment]         # optional: override a class's measures
measures = ["P@5", "P@10", "Rprec"]

[[topic]]
id = "q001"                # required, unique, a string (numbers are accepted and kept as text)
query = "OrderedDict"      # required
class = "canonical"        # optional; one of docs/design.md §6 or a class declared under [classes]
description = "…"          # optional
narrative = "…"            # optional
truth = ['^pydoc://collections\\.OrderedDict$']            # regex(es) on doc ids, grade 1 …
# truth = [{ pattern = '…', grade = 2 }, { pattern = '…', grade = 1 }]   # … or with grades
prefer = [{ modern = '^pydoc://subprocess$', legacy = '^pydoc://os\\.system$' }]  # class deprecation
measures = ["RR@10"]       # optional per-topic override
metadata = { source = "…" }  # optional: anything else worth keeping with the topic

[[topic]]
id = "out-01"
query = "pandas DataFrame"
expect = "empty"           # should find nothing: scored by its refusal outcome alone, no truth/prefer/measures
```

Every regex is compiled at load and all bad ones are reported in one error. The other formats map their fields
onto the same keys (``topic_spec``) and keep whatever else they carry in ``Topic.metadata``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.numbers import NumberError, parse_grade
from toolkit.formats.structured import json_line_object, loads_toml
from toolkit.formats.textfile import decode_text, iter_text_lines, read_bytes
from toolkit.formats.topic_columns import Columns
from toolkit.model import (
    CLASS_MEASURES,
    DEFAULT_GRADES,
    EXPECT_EMPTY,
    NO_METADATA,
    Preference,
    Topic,
    TopicColumns,
    TopicSet,
    TruthPattern,
)

TOPIC_KEYS = {
    "id",
    "query",
    "class",
    "description",
    "narrative",
    "truth",
    "prefer",
    "measures",
    "metadata",
    "expect",
}

#: Field names that carry a topic's id, and its query text, in the formats people hold (first present wins).
ID_KEYS = ("id", "query_id", "qid")
TEXT_KEYS = ("query", "text", "title")

Spec = tuple[int | None, dict[str, Any]]


def read_topics(path: str | Path) -> TopicSet:
    """Read a topic set: ``ir_datasets:DATASET_ID``, else by extension (``.toml``, ``.tsv``, ``.jsonl``,
    ``.xml``), else by content (TREC SGML ``<top>`` blocks or Web-track XML ``<topic>`` elements)."""
    from toolkit.formats.irds import is_irds, read_irds_topics

    if is_irds(path):
        return read_irds_topics(str(path))
    from toolkit.formats import topic_columns, trec_topics

    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    suffix = Path(name).suffix.lower()
    stem = Path(name).stem
    if suffix in (".tsv", ".jsonl", ".ndjson"):  # line formats are streamed (toolkit.formats.textfile)
        digest = hashlib.sha256()
        fast = (topic_columns.tsv_columns if suffix == ".tsv" else topic_columns.jsonl_columns)(path, digest)
        if fast is not None:
            return TopicSet(topics=fast.result(), name=stem, path=str(path), sha256=digest.hexdigest())
        digest = hashlib.sha256()  # read again, the careful way: the same topics, or the error with its line
        lines = iter_text_lines(path, digest=digest)
        rows = _tsv_specs(path, lines) if suffix == ".tsv" else _jsonl_specs(path, lines)
        topics = _build(path, rows, set(CLASS_MEASURES))
        return TopicSet(topics=topics, name=stem, path=str(path), sha256=digest.hexdigest())
    raw = read_bytes(path)
    text = decode_text(path, raw)
    sha = hashlib.sha256(raw).hexdigest()
    del raw  # the text is what is parsed: a million-topic file need not be held twice
    if suffix == ".toml":
        return _from_toml(path, text, stem, sha)
    if suffix == ".xml" or (not trec_topics.looks_like_sgml(text) and trec_topics.looks_like_xml(text)):
        fast = topic_columns.xml_columns(text)
        specs: Iterable[Spec] = trec_topics.xml_specs(path, text)
    elif not trec_topics.looks_like_sgml(text) and "\t" in text:
        raise FormatError(
            path,
            None,
            "no <top> blocks, but tab-separated lines: name the file .tsv to read it as TSV topics",
        )
    else:
        fast = topic_columns.sgml_columns(text)
        specs = trec_topics.sgml_specs(path, text)
    if fast is not None:
        return TopicSet(topics=fast.result(), name=stem, path=str(path), sha256=sha)
    return topics_from_specs(path, specs, name=stem, path=str(path), sha256=sha)


def topics_from_specs(
    where: str | Path, specs: Iterable[Spec], *, name: str, path: str | None, sha256: str | None = None
) -> TopicSet:
    """A validated ``TopicSet`` from ``(line, spec)`` pairs; ``where`` names the source in errors, ``path``
    is recorded (None for a set that came from no file)."""
    topics = _build(where, specs, set(CLASS_MEASURES))
    return TopicSet(topics=topics, name=name, path=path, sha256=sha256)


def topic_spec(fields: Mapping[str, Any]) -> dict[str, Any]:
    """One topic's spec from a record of named fields (a JSONL object, a TSV row under a header, a DataFrame
    row, an ir_datasets query): the id is the first of ``id``/``query_id``/``qid``, the query the first
    non-empty ``query``/``text``/``title``; TOML topic keys keep their meaning and every other non-empty field
    goes to ``metadata``, so nothing is lost."""
    rest = {str(k): v for k, v in fields.items()}
    spec: dict[str, Any] = {}
    for key in ID_KEYS:
        if key in rest:
            spec["id"] = rest.pop(key)
            break
    for key in TEXT_KEYS:
        value = rest.get(key)
        if isinstance(value, str) and value.strip():
            spec["query"] = rest.pop(key)
            break
    for key in TOPIC_KEYS - {"id", "query", "metadata"}:
        if key in rest:
            spec[key] = rest.pop(key)
    metadata = rest.pop("metadata", None)
    spec["metadata"] = dict(metadata) if isinstance(metadata, Mapping) else {}
    if metadata is not None and not isinstance(metadata, Mapping):
        spec["metadata"]["metadata"] = metadata
    for key, value in rest.items():
        if value is not None and value != "":
            spec["metadata"][key] = _plain(value)
    return spec


def _plain(value: Any) -> Any:
    """Namedtuples (ir_datasets subtopics) as dicts, tuples as lists: metadata that prints and serialises."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# --------------------------------------------------------------------------- TOML


def _from_toml(path: str | Path, text: str, stem: str, sha: str) -> TopicSet:
    import tomllib  # only TOML topic sets need it

    try:
        data = loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = int(match.group(1)) if match else None
        raise FormatError(path, line, f"invalid TOML: {exc}") from None
    unknown = set(data) - {"topicset", "grades", "classes", "topic"}
    if unknown:
        raise FormatError(
            path,
            None,
            f"unknown top-level key(s) {sorted(unknown)}; expected [topicset], [grades], [classes], [[topic]]",
        )
    meta = data.get("topicset", {})
    grades = _grades(path, data.get("grades"))
    class_measures = dict(CLASS_MEASURES)
    for cls, spec in data.get("classes", {}).items():
        if not isinstance(spec, dict) or not isinstance(spec.get("measures", []), list):
            raise FormatError(path, None, f'[classes.{cls}] must be a table with measures = ["…"]')
        class_measures[cls] = tuple(str(m) for m in spec.get("measures", CLASS_MEASURES.get(cls, ())))
    raw_topics = data.get("topic")
    if not isinstance(raw_topics, list) or not raw_topics:
        raise FormatError(path, None, "no topics; add [[topic]] tables with id and query")
    specs: list[Spec] = []
    lines = _topic_lines(text, len(raw_topics))
    for index, item in enumerate(raw_topics, start=1):
        if not isinstance(item, dict):
            raise FormatError(path, None, f"topic #{index} must be a table")
        specs.append((lines[index - 1], {"_index": index, **item}))
    topics = _build(path, specs, set(class_measures))
    return TopicSet(
        topics=topics,
        name=str(meta.get("name", stem)),
        path=str(path),
        sha256=sha,
        description=str(meta.get("description", "")),
        grades=grades,
        class_measures=class_measures,
    )


_TOPIC_HEADER = re.compile(r"^\s*\[\[\s*topic\s*\]\]\s*(#.*)?$")


def _topic_lines(text: str, count: int) -> list[int | None]:
    """The line of each ``[[topic]]`` header, so that errors about a topic name its line (tomllib gives no
    positions). When the headers cannot be matched one to one with the topics (topics written as an inline
    array, a header inside a multi-line string), no line is claimed rather than a wrong one."""
    found = [n for n, line in enumerate(text.splitlines(), start=1) if _TOPIC_HEADER.match(line)]
    return list(found) if len(found) == count else [None] * count


def _grades(path: str | Path, raw: Any) -> dict[int, str]:
    if raw is None:
        return dict(DEFAULT_GRADES)
    if not isinstance(raw, dict) or not raw:
        raise FormatError(
            path, None, '[grades] must map grade numbers to definitions, e.g. 0 = "Not relevant"'
        )
    grades: dict[int, str] = {}
    for key, value in raw.items():
        try:
            grades[parse_grade(str(key))] = str(value)
        except NumberError as exc:
            raise FormatError(
                path, None, f"[grades] key {key!r} is not an integer grade ({exc.reason})"
            ) from None
    return dict(sorted(grades.items()))


# --------------------------------------------------------------------------- TSV / JSONL

#: Header cells that name a topic id column, and a query text column (compared in lower case).
_TSV_ID_HEADERS = {"query_id", "qid", "id", "q_id", "topic_id"}
_TSV_TEXT_HEADERS = {"query", "text", "title"}


def _tsv_specs(path: str | Path, all_lines: Iterable[tuple[int, str]]) -> Iterable[Spec]:
    """``query_id<TAB>text`` lines, or a table under a header row (``qid<TAB>query``, as pandas writes it).

    A header is recognised by its cells: an id column name (``query_id``, ``qid``, ``id``, ``q_id``,
    ``topic_id``) and a text column name (``query``, ``text``, ``title``); an empty first cell is a pandas
    index column and is dropped. A first line that names only one of the two is refused rather than read as a
    topic (it would score 0 and pull every mean down).
    """
    lines = _tsv_lines(all_lines)
    header: list[str] | None = None
    skip_first = False
    for number, line in lines:
        header, skip_first = _tsv_header(path, number, [c.strip() for c in line.split("\t")])
        if header is None:
            yield _tsv_plain(path, number, line)
        break
    for number, line in lines:
        if header is None:
            yield _tsv_plain(path, number, line)
            continue
        cells = [c.strip() for c in line.split("\t")]
        if skip_first:
            cells = cells[1:]
        if len(cells) != len(header):
            raise FormatError(
                path,
                number,
                f"expected {len(header)} tab-separated columns under the header ({' '.join(header)}), "
                f"found {len(cells)}",
            )
        yield number, topic_spec(dict(zip(header, cells, strict=True)))


def _tsv_lines(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Non-blank, non-comment lines, keeping leading and trailing tabs (empty cells count under a header)."""
    for number, line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, line.strip(" \r\n")


def _tsv_header(path: str | Path, number: int, cells: list[str]) -> tuple[list[str] | None, bool]:
    names = [c.lower() for c in cells]
    skip_first = len(names) > 2 and names[0] == "" and names[1] in _TSV_ID_HEADERS
    if skip_first:
        names = names[1:]
    has_id = bool(names) and names[0] in _TSV_ID_HEADERS
    has_text = any(n in _TSV_TEXT_HEADERS for n in names[1:])
    if has_id and has_text:
        return names, skip_first
    if has_id or (len(names) >= 2 and names[1] in _TSV_TEXT_HEADERS):
        raise FormatError(
            path,
            number,
            f"this looks like a header row ({' '.join(cells)}) but it needs an id column "
            f"({'/'.join(sorted(_TSV_ID_HEADERS))}) first and a text column (query/text/title); "
            "rename the columns, or delete the header line",
        )
    return None, False


def _tsv_plain(path: str | Path, number: int, line: str) -> Spec:
    parts = line.split("\t")
    if len(parts) < 2 or not parts[0].strip() or not parts[1].strip():
        raise FormatError(path, number, "expected query_id<TAB>text")
    return number, {"id": parts[0].strip(), "query": "\t".join(parts[1:]).strip()}


#: what a line of a JSON Lines topic file holds (``ir_datasets export … queries --format jsonl`` writes it)
_EXPECTED_JSONL = 'one topic object per line, like {"id": "q1", "query": "…"}'


def _jsonl_specs(path: str | Path, lines: Iterable[tuple[int, str]]) -> Iterable[Spec]:
    """One object a line; ``ir_datasets export DATASET queries --format jsonl`` output reads as is."""
    for number, line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        yield number, topic_spec(json_line_object(path, number, line, _EXPECTED_JSONL))


# --------------------------------------------------------------------------- validation


def _where(spec: Mapping[str, Any]) -> str:
    return f"topic #{spec['_index']}" if "_index" in spec else "topic"


#: What a spec may hold: the topic keys, and the position TOML topics are numbered by in errors.
_SPEC_KEYS = frozenset(TOPIC_KEYS | {"_index"})
_WHITESPACE = re.compile(r"\s")


def _build(path: str | Path, specs: Iterable[Spec], classes: set[str]) -> TopicColumns:
    """Validate topic specs as they come (a million-topic file is never held as specs); collect every bad regex
    before raising one error that lists them all.

    A format error of the file itself (bad JSON, a TSV line without its text) comes before a topic's
    error however far apart they are, as when every spec was read before any was checked: when a topic is
    refused, the rest of the file is read for such an error first.
    """
    specs = iter(specs)
    try:
        with _collector_paused():
            return _checked_topics(path, specs, classes)
    except FormatError:
        for _ in specs:  # an error of the file's format later on is the one to report
            pass
        raise


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while topics are made, back as it was after.

    A topic and its spec are containers, so a million of them trigger thousands of collections, each of which
    walks every topic made so far — half the time of reading a million-topic file. Topics hold no cycles, so
    nothing the pause leaves behind needs the collector.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _checked_topics(path: str | Path, specs: Iterator[Spec], classes: set[str]) -> TopicColumns:
    seen = Columns()
    index, ids, queries, rich = seen.index, seen.ids, seen.queries, seen.rich
    bad_patterns: list[str] = []
    for line, spec in specs:
        if not spec.keys() <= _SPEC_KEYS:
            unknown = set(spec) - _SPEC_KEYS
            raise FormatError(
                path, line, f"{_where(spec)}: unknown key(s) {sorted(unknown)}; allowed: {sorted(TOPIC_KEYS)}"
            )
        raw_id = spec.get("id")
        if raw_id is None or isinstance(raw_id, bool) or str(raw_id).strip() == "":
            raise FormatError(path, line, f"{_where(spec)}: missing id ({', '.join(ID_KEYS)})")
        query_id = str(raw_id).strip()
        if _WHITESPACE.search(query_id):
            raise FormatError(
                path, line, f"topic {query_id!r}: id must not contain whitespace (TREC files split on it)"
            )
        if query_id in index:
            raise FormatError(path, line, f"duplicate topic id {query_id!r}; topic ids must be unique")
        query = spec.get("query")
        if not isinstance(query, str) or not query.strip():
            raise FormatError(path, line, f"topic {query_id!r}: missing query text ({', '.join(TEXT_KEYS)})")
        position = len(ids)
        index[query_id] = position
        ids.append(query_id)
        queries.append(query.strip())
        if len(spec) <= 3 and not spec.get("metadata") and spec.keys() <= _PLAIN_KEYS:
            continue  # id and query: nothing to check, and no Topic to make (TopicColumns makes it on access)
        cls = spec.get("class")
        if cls is not None and cls not in classes:
            raise FormatError(
                path,
                line,
                f"topic {query_id!r}: unknown class {cls!r}; use one of {sorted(classes)} or declare [classes.{cls}]",
            )
        expect = _expect(path, line, query_id, spec)
        truth = _truth(path, line, query_id, spec.get("truth", []), bad_patterns)
        prefs = _prefs(path, line, query_id, spec.get("prefer", []), bad_patterns)
        if cls == "deprecation" and not prefs and not bad_patterns and expect is None:
            raise FormatError(
                path,
                line,
                f"topic {query_id!r}: class deprecation needs prefer = [{{modern = …, legacy = …}}]",
            )
        measures = spec.get("measures", [])
        if not isinstance(measures, list):
            raise FormatError(path, line, f"topic {query_id!r}: measures must be a list of strings")
        metadata = spec.get("metadata", {})
        if not isinstance(metadata, Mapping):
            raise FormatError(path, line, f"topic {query_id!r}: metadata must be a table of named values")
        rich[position] = Topic(
            query_id=query_id,
            query=query.strip(),
            query_class=cls,
            description=str(spec.get("description", "") or ""),
            narrative=str(spec.get("narrative", "") or ""),
            truth=truth,
            preferences=prefs,
            measures=tuple(str(m) for m in measures),
            metadata=dict(metadata) if metadata else NO_METADATA,
            expect=expect,
        )
    if not ids:
        raise FormatError(path, None, "no topics found")
    if bad_patterns:
        raise FormatError(
            path, None, f"{len(bad_patterns)} invalid regex pattern(s): " + "; ".join(bad_patterns)
        )
    return seen.result()


#: The keys of a spec that is just a topic (TSV, JSONL, ir_datasets): nothing in it needs a check of its own.
_PLAIN_KEYS = frozenset({"id", "query", "metadata", "_index"})


def _expect(path: str | Path, line: int | None, query_id: str, spec: Mapping[str, Any]) -> str | None:
    """``expect = "empty"`` (an empty cell or null: not declared). Such a topic should find nothing, so truth,
    preference pairs and measures of its own would be claims about relevant documents it cannot have."""
    raw = spec.get("expect")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if not isinstance(raw, str) or raw.strip().lower() != EXPECT_EMPTY:
        raise FormatError(
            path,
            line,
            f'topic {query_id!r}: expect = {raw!r} is not known; the one value is "{EXPECT_EMPTY}" (a topic that '
            "should find nothing), or leave the key out",
        )
    declared = [key for key in ("truth", "prefer", "measures") if _declared(spec.get(key))]
    if declared:
        raise FormatError(
            path,
            line,
            f'topic {query_id!r}: expect = "{EXPECT_EMPTY}" says nothing should be found, so it cannot declare '
            f"{' or '.join(declared)} (its only measure is the refusal outcome); remove {', '.join(declared)}, "
            'or remove expect = "empty" if the topic has right answers',
        )
    return EXPECT_EMPTY


def _declared(value: Any) -> bool:
    """A key with content: a TSV cell or a JSON value that is empty or null declares nothing."""
    if isinstance(value, str):
        return bool(value.strip())
    return bool(value)


def _compile(pattern: Any, query_id: str, bad: list[str]) -> re.Pattern[str] | None:
    if not isinstance(pattern, str) or not pattern:
        bad.append(f"topic {query_id}: pattern {pattern!r} is not a non-empty string")
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        bad.append(f"topic {query_id}: {pattern!r} ({exc})")
        return None


def _entries(
    path: str | Path, line: int | None, raw: Any, single: tuple[type, ...], refusal: str
) -> list[Any]:
    """A topic key that takes one entry or a list of them (``truth``, ``prefer``): always the list; anything
    else is the ``FormatError`` ``refusal``."""
    if isinstance(raw, single):
        return [raw]
    if not isinstance(raw, list):
        raise FormatError(path, line, refusal)
    return raw


def _truth(
    path: str | Path, line: int | None, query_id: str, raw: Any, bad: list[str]
) -> tuple[TruthPattern, ...]:
    out: list[TruthPattern] = []
    for item in _entries(
        path, line, raw, (str, dict), f"topic {query_id!r}: truth must be a regex or a list of regexes/tables"
    ):
        grade: Any = 1
        pattern = item
        if isinstance(item, dict):
            pattern = item.get("pattern")
            grade = item.get("grade", 1)
        if isinstance(grade, bool) or not isinstance(grade, int):
            raise FormatError(path, line, f"topic {query_id!r}: truth grade {grade!r} must be an integer")
        regex = _compile(pattern, query_id, bad)
        if regex is not None:
            out.append(TruthPattern(pattern=pattern, grade=grade, regex=regex))
    return tuple(out)


def _prefs(
    path: str | Path, line: int | None, query_id: str, raw: Any, bad: list[str]
) -> tuple[Preference, ...]:
    out: list[Preference] = []
    for item in _entries(
        path, line, raw, (dict,), f"topic {query_id!r}: prefer must be a list of {{modern = …, legacy = …}}"
    ):
        if not isinstance(item, dict) or set(item) != {"modern", "legacy"}:
            raise FormatError(
                path, line, f"topic {query_id!r}: each prefer entry needs exactly modern and legacy"
            )
        modern = _compile(item["modern"], query_id, bad)
        legacy = _compile(item["legacy"], query_id, bad)
        if modern is not None and legacy is not None:
            out.append(Preference(item["modern"], item["legacy"], modern, legacy))
    return tuple(out)
