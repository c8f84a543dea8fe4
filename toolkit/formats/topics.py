"""Topic sets: TOML (the rich format), TSV, TREC SGML topics and JSONL.

The TOML schema (documented in the README):

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
class = "canonical"        # optional; one of DESIGN §6 or a class declared under [classes]
description = "…"          # optional
narrative = "…"            # optional
truth = ['^pydoc://collections\\.OrderedDict$']            # regex(es) on doc ids, grade 1 …
# truth = [{ pattern = '…', grade = 2 }, { pattern = '…', grade = 1 }]   # … or with grades
prefer = [{ modern = '^pydoc://subprocess$', legacy = '^pydoc://os\\.system$' }]  # class deprecation
measures = ["RR@10"]       # optional per-topic override
```

Every regex is compiled at load and all bad ones are reported in one error.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.textfile import decode_text, iter_data_lines, read_bytes
from toolkit.model import CLASS_MEASURES, DEFAULT_GRADES, Preference, Topic, TopicSet, TruthPattern

TOPIC_KEYS = {"id", "query", "class", "description", "narrative", "truth", "prefer", "measures"}


def read_topics(path: str | Path) -> TopicSet:
    """Read a topic set, choosing the format by extension (``.toml``, ``.tsv``, ``.jsonl``, else TREC SGML)."""
    raw = read_bytes(path)
    text = decode_text(path, raw)
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    suffix = Path(name).suffix.lower()
    stem = Path(name).stem
    sha = hashlib.sha256(raw).hexdigest()
    if suffix == ".toml":
        return _from_toml(path, text, stem, sha)
    if suffix == ".tsv":
        specs = list(_tsv_specs(path, text))
    elif suffix in (".jsonl", ".ndjson"):
        specs = list(_jsonl_specs(path, text))
    else:
        specs = list(_sgml_specs(path, text))
    topics = _build(path, specs, set(CLASS_MEASURES))
    return TopicSet(topics=topics, name=stem, path=str(path), sha256=sha)


# --------------------------------------------------------------------------- TOML


def _from_toml(path: str | Path, text: str, stem: str, sha: str) -> TopicSet:
    try:
        data = tomllib.loads(text)
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
    specs: list[tuple[int | None, dict[str, Any]]] = []
    for index, item in enumerate(raw_topics, start=1):
        if not isinstance(item, dict):
            raise FormatError(path, None, f"topic #{index} must be a table")
        specs.append((None, {"_index": index, **item}))
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
            grades[int(key)] = str(value)
        except ValueError:
            raise FormatError(path, None, f"[grades] key {key!r} is not an integer grade") from None
    return dict(sorted(grades.items()))


# --------------------------------------------------------------------------- TSV / JSONL / SGML


def _tsv_specs(path: str | Path, text: str) -> Iterable[tuple[int | None, dict[str, Any]]]:
    for number, line in iter_data_lines(path, text):
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0].strip() or not parts[1].strip():
            raise FormatError(path, number, "expected query_id<TAB>text")
        yield number, {"id": parts[0].strip(), "query": "\t".join(parts[1:]).strip()}


_JSON_ALIASES = {"query_id": "id", "qid": "id", "text": "query", "title": "query"}


def _jsonl_specs(path: str | Path, text: str) -> Iterable[tuple[int | None, dict[str, Any]]]:
    for number, line in iter_data_lines(path, text):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(
                path, number, f"invalid JSON ({exc.msg}); expected one topic object per line"
            ) from None
        if not isinstance(obj, dict):
            raise FormatError(path, number, 'expected a JSON object like {"id": "q1", "query": "…"}')
        spec: dict[str, Any] = {_JSON_ALIASES.get(str(k), str(k)): v for k, v in obj.items()}
        yield number, spec


_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_FIELD = re.compile(r"<(num|title|desc|narr)>(.*?)(?=<(?:num|title|desc|narr)>|\Z)", re.S | re.I)


def _sgml_specs(path: str | Path, text: str) -> Iterable[tuple[int | None, dict[str, Any]]]:
    blocks = list(_TOP.finditer(text))
    if not blocks:
        raise FormatError(
            path, None, "no <top> … </top> blocks found; expected TREC topics (or use .toml/.tsv/.jsonl)"
        )
    for block in blocks:
        line = text.count("\n", 0, block.start()) + 1
        fields = {m.group(1).lower(): " ".join(m.group(2).split()) for m in _FIELD.finditer(block.group(1))}
        num = re.sub(r"^Number:\s*", "", fields.get("num", ""), flags=re.I).strip()
        desc = re.sub(r"^Description:\s*", "", fields.get("desc", ""), flags=re.I).strip()
        narr = re.sub(r"^Narrative:\s*", "", fields.get("narr", ""), flags=re.I).strip()
        title = re.sub(r"^Topic:\s*", "", fields.get("title", ""), flags=re.I).strip()
        if not num:
            raise FormatError(path, line, "topic without <num> Number: …")
        yield line, {"id": num, "query": title, "description": desc, "narrative": narr}


# --------------------------------------------------------------------------- validation


def _where(spec: Mapping[str, Any]) -> str:
    return f"topic #{spec['_index']}" if "_index" in spec else "topic"


def _build(
    path: str | Path, specs: list[tuple[int | None, dict[str, Any]]], classes: set[str]
) -> tuple[Topic, ...]:
    """Validate topic specs; collect every bad regex before raising one error that lists them all."""
    if not specs:
        raise FormatError(path, None, "no topics found")
    seen: dict[str, int | None] = {}
    bad_patterns: list[str] = []
    topics: list[Topic] = []
    for line, spec in specs:
        unknown = set(spec) - TOPIC_KEYS - {"_index"}
        if unknown:
            raise FormatError(
                path, line, f"{_where(spec)}: unknown key(s) {sorted(unknown)}; allowed: {sorted(TOPIC_KEYS)}"
            )
        raw_id = spec.get("id")
        if raw_id is None or isinstance(raw_id, bool) or str(raw_id).strip() == "":
            raise FormatError(path, line, f"{_where(spec)}: missing id")
        query_id = str(raw_id).strip()
        if any(c.isspace() for c in query_id):
            raise FormatError(
                path, line, f"topic {query_id!r}: id must not contain whitespace (TREC files split on it)"
            )
        if query_id in seen:
            raise FormatError(path, line, f"duplicate topic id {query_id!r}; topic ids must be unique")
        seen[query_id] = line
        query = spec.get("query")
        if not isinstance(query, str) or not query.strip():
            raise FormatError(path, line, f"topic {query_id!r}: missing query text")
        cls = spec.get("class")
        if cls is not None and cls not in classes:
            raise FormatError(
                path,
                line,
                f"topic {query_id!r}: unknown class {cls!r}; use one of {sorted(classes)} or declare [classes.{cls}]",
            )
        truth = _truth(path, line, query_id, spec.get("truth", []), bad_patterns)
        prefs = _prefs(path, line, query_id, spec.get("prefer", []), bad_patterns)
        if cls == "deprecation" and not prefs and not bad_patterns:
            raise FormatError(
                path,
                line,
                f"topic {query_id!r}: class deprecation needs prefer = [{{modern = …, legacy = …}}]",
            )
        measures = spec.get("measures", [])
        if not isinstance(measures, list):
            raise FormatError(path, line, f"topic {query_id!r}: measures must be a list of strings")
        topics.append(
            Topic(
                query_id=query_id,
                query=query.strip(),
                query_class=cls,
                description=str(spec.get("description", "") or ""),
                narrative=str(spec.get("narrative", "") or ""),
                truth=truth,
                preferences=prefs,
                measures=tuple(str(m) for m in measures),
            )
        )
    if bad_patterns:
        raise FormatError(
            path, None, f"{len(bad_patterns)} invalid regex pattern(s): " + "; ".join(bad_patterns)
        )
    return tuple(topics)


def _compile(pattern: Any, query_id: str, bad: list[str]) -> re.Pattern[str] | None:
    if not isinstance(pattern, str) or not pattern:
        bad.append(f"topic {query_id}: pattern {pattern!r} is not a non-empty string")
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        bad.append(f"topic {query_id}: {pattern!r} ({exc})")
        return None


def _truth(
    path: str | Path, line: int | None, query_id: str, raw: Any, bad: list[str]
) -> tuple[TruthPattern, ...]:
    if isinstance(raw, (str, dict)):
        raw = [raw]
    if not isinstance(raw, list):
        raise FormatError(
            path, line, f"topic {query_id!r}: truth must be a regex or a list of regexes/tables"
        )
    out: list[TruthPattern] = []
    for item in raw:
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
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise FormatError(
            path, line, f"topic {query_id!r}: prefer must be a list of {{modern = …, legacy = …}}"
        )
    out: list[Preference] = []
    for item in raw:
        if not isinstance(item, dict) or set(item) != {"modern", "legacy"}:
            raise FormatError(
                path, line, f"topic {query_id!r}: each prefer entry needs exactly modern and legacy"
            )
        modern = _compile(item["modern"], query_id, bad)
        legacy = _compile(item["legacy"], query_id, bad)
        if modern is not None and legacy is not None:
            out.append(Preference(item["modern"], item["legacy"], modern, legacy))
    return tuple(out)
