"""Turn what a system printed or answered into ranked hits: ``json`` (JMESPath), ``regex``, ``lines``,
``tsv``, ``trec``.

Order is the system's order (first = best) for every parser except ``trec``, whose lines are ordered the way
trec_eval orders them (score desc, doc_id desc), since that is what a TREC-printing system means. Doc ids are
deduplicated keeping the first occurrence. A doc id with whitespace cannot go into a TREC file, so output
holding one is refused (the call is recorded as failed) rather than silently mangled.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolkit.errors import ConfigError
from toolkit.formats.structured import loads_json
from toolkit.systems.base import CallFailed, Hit

PARSERS = ("json", "regex", "lines", "tsv", "trec")


@dataclass(frozen=True)
class Parser:
    """A configured parser: ``kind`` plus ``ids``/``scores`` (JMESPath, json) or ``pattern`` (regex)."""

    kind: str = "lines"
    ids: str | None = None
    scores: str | None = None
    pattern: str | None = None
    _compiled: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in PARSERS:
            raise ConfigError(f"unknown parser {self.kind!r}; use one of {', '.join(PARSERS)}")
        if self.kind == "json":
            if not self.ids:
                raise ConfigError('parser "json" needs ids = "<JMESPath>", e.g. ids = "results[*].doc_id"')
            import jmespath
            from jmespath.exceptions import JMESPathError

            try:
                compiled = (
                    jmespath.compile(self.ids),
                    jmespath.compile(self.scores) if self.scores else None,
                )
            except JMESPathError as exc:
                raise ConfigError(f"invalid JMESPath expression: {exc}") from None
            object.__setattr__(self, "_compiled", compiled)
        elif self.kind == "regex":
            if not self.pattern:
                raise ConfigError('parser "regex" needs pattern = "<regex>", e.g. pattern = "pydoc://\\\\S+"')
            try:
                object.__setattr__(self, "_compiled", re.compile(self.pattern))
            except re.error as exc:
                raise ConfigError(f"invalid regex {self.pattern!r}: {exc}") from None

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"parser": self.kind}
        for key in ("ids", "scores", "pattern"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        return out

    def parse(self, text: str) -> list[Hit]:
        """Hits in the system's order; ``CallFailed`` when the text is not what the parser expects."""
        if self.kind == "json":
            hits = self._json(text)
        elif self.kind == "regex":
            hits = self._regex(text)
        elif self.kind == "tsv":
            hits = _tsv(text)
        elif self.kind == "trec":
            hits = _trec(text)
        else:
            hits = [Hit(line.strip()) for line in text.splitlines() if line.strip()]
        return dedupe(hits)

    def parse_data(self, data: Any) -> list[Hit]:
        """Hits from already-decoded JSON (the http system decodes the body itself)."""
        if self.kind != "json":
            return self.parse(data if isinstance(data, str) else json.dumps(data))
        return dedupe(self._from_json(data))

    def _json(self, text: str) -> list[Hit]:
        try:
            data = loads_json(text)
        except json.JSONDecodeError as exc:
            raise CallFailed(
                f"output is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            ) from None
        return self._from_json(data)

    def _from_json(self, data: Any) -> list[Hit]:
        ids_expr, scores_expr = self._compiled
        ids = ids_expr.search(data)
        if ids is None:
            return []
        if not isinstance(ids, list):
            ids = [ids]
        scores = scores_expr.search(data) if scores_expr is not None else None
        if scores is not None and (not isinstance(scores, list) or len(scores) != len(ids)):
            raise CallFailed(
                f"scores expression {self.scores!r} gave {_count(scores)} values for {len(ids)} ids"
            )
        hits = []
        for index, doc_id in enumerate(ids):
            if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
                raise CallFailed(f"ids expression {self.ids!r} gave a non-string id {_short(doc_id)}")
            hits.append(Hit(str(doc_id), _score(scores[index]) if scores is not None else None))
        return hits

    def _regex(self, text: str) -> list[Hit]:
        regex: re.Pattern[str] = self._compiled
        group: int | str = "id" if "id" in regex.groupindex else 0  # plain groups are for alternation
        return [Hit(m.group(group)) for m in regex.finditer(text) if m.group(group)]


def _count(value: Any) -> int | str:
    return len(value) if isinstance(value, list) else "no list of"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        score = float(value)
    except ValueError:
        return None
    return score if math.isfinite(score) else None


def _tsv(text: str) -> list[Hit]:
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.rstrip("\r\n").split("\t")
        if len(parts) > 2:
            raise CallFailed(
                f"tsv output line {number}: expected doc_id<TAB>score, found {len(parts)} columns"
            )
        score = None
        if len(parts) == 2 and parts[1].strip():
            score = _score(parts[1].strip())
            if score is None:
                raise CallFailed(
                    f"tsv output line {number}: expected a numeric score, found {parts[1].strip()!r}"
                )
        hits.append(Hit(parts[0].strip(), score))
    return hits


def _trec(text: str) -> list[Hit]:
    rows: list[tuple[str, float]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 6:
            raise CallFailed(
                f"trec output line {number}: expected 6 columns (query_id Q0 doc_id rank score run_tag)"
            )
        score = _score(parts[4])
        if score is None:
            raise CallFailed(f"trec output line {number}: expected a numeric score, found {parts[4]!r}")
        rows.append((parts[2], score))
    rows.sort(key=lambda r: (r[1], r[0]), reverse=True)  # trec_eval's order: score desc, doc_id desc
    return [Hit(doc_id, score) for doc_id, score in rows]


def dedupe(hits: Iterable[Hit]) -> list[Hit]:
    """First occurrence wins; an empty id or one with whitespace fails the call (it cannot be a TREC doc id)."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        if not hit.doc_id or any(c.isspace() for c in hit.doc_id):
            raise CallFailed(
                f"invalid doc id {_short(hit.doc_id)}: doc ids must be non-empty and without whitespace"
            )
        if hit.doc_id in seen:
            continue
        seen.add(hit.doc_id)
        out.append(hit)
    return out
