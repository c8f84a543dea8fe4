"""Accept what people already hold as the toolkit's ``Run``, ``Qrels`` and ``TopicSet``.

================================  =========================  =============================  ==========================
input                             run                        qrels                          topics
================================  =========================  =============================  ==========================
a path (``str`` or ``Path``)      TREC run file              TREC qrels, ``ir_datasets:ID``  any topic file, ``ir_datasets:ID``
toolkit object                    ``Run``                    ``Qrels``                      ``TopicSet``
pandas ``DataFrame``              ``query_id``/``qid``,      ``query_id``/``qid``,          ``query_id``/``qid``,
                                  ``doc_id``/``docno``,      ``doc_id``/``docno``,          ``query``/``text``/``title``
                                  ``score``                  ``relevance``/``label``
dict of dicts (pytrec_eval)       ``{q: {d: score}}``        ``{q: {d: relevance}}``        ``{q: text}``
ranx                              ``ranx.Run``               ``ranx.Qrels``
iterable of namedtuples           ir_measures ``ScoredDoc``  ir_measures ``Qrel``,          ir_datasets ``queries_iter()``
                                                             ir_datasets ``qrels_iter()``
ir_datasets dataset                                          its qrels                      its queries
================================  =========================  =============================  ==========================

PyTerrier's frames are covered by these names (results ``qid, docno, score, rank``; qrels ``qid, docno, label``;
topics ``qid, query``), ranx's by ``q_id`` and, for qrels, a ``score`` column of integer grades.

Why so strict: a near miss here used to become a silent 0.0 (iterating a DataFrame yields its column names,
so ``Run(results=df)`` had three "topics" called ``query_id, doc_id, score``). Every conversion is checked as
the file readers check files: ids are text — integers are accepted and written as text, floats are refused
because ``301.0`` matches no qrels — without whitespace; scores are finite numbers; grades are integers; a
(topic, doc) pair appears once. PyTerrier's ``docid`` column (Terrier's internal number) is never taken for the
document id. Errors name the source and the 1-based row or item (``<DataFrame>:12: …``); an object of a kind not
in the table is a ``TypeError`` that lists what is accepted.

Heavy libraries are never imported here: a DataFrame or a ranx object is recognised through its library's
module only when that module is already loaded (it must be, for such an object to exist).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import numbers
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

from toolkit.errors import FormatError
from toolkit.formats.irds import is_irds
from toolkit.formats.topics import ID_KEYS, TEXT_KEYS, topic_spec, topics_from_specs
from toolkit.model import Qrels, Run, TopicSet

RUN_KINDS = (
    "a TREC run file path, a toolkit Run, a pandas DataFrame with query_id/qid, doc_id/docno and score columns, "
    "a dict {query_id: {doc_id: score}}, a ranx.Run, or an iterable of ir_measures ScoredDoc"
)
QRELS_KINDS = (
    "a TREC qrels file path or 'ir_datasets:DATASET_ID', a toolkit Qrels, a pandas DataFrame with query_id/qid, "
    "doc_id/docno and relevance/label columns, a dict {query_id: {doc_id: relevance}}, a ranx.Qrels, an iterable "
    "of ir_measures Qrel (e.g. an ir_datasets qrels_iter()), or an ir_datasets dataset"
)
TOPICS_KINDS = (
    "a topic file path or 'ir_datasets:DATASET_ID', a toolkit TopicSet, a pandas DataFrame with query_id/qid and "
    "query/text/title columns, a dict {query_id: text}, an iterable of ir_datasets queries (queries_iter()), or "
    "an ir_datasets dataset"
)

_SPACE = re.compile(r"\s")
T = TypeVar("T")


# --------------------------------------------------------------------------- entry points


def as_run(obj: object, *, name: str | None = None) -> Run:
    """``obj`` as a ``Run`` (see the module docstring for what is accepted); a Run is returned as is."""
    if isinstance(obj, Run):
        return obj if name is None else dataclasses.replace(obj, name=name)
    if isinstance(obj, (str, os.PathLike)):
        if is_irds(obj):
            raise FormatError(str(obj), None, "ir_datasets: sources give topics and qrels, not runs")
        from toolkit.formats.run import read_run

        return read_run(_path(obj), name=name)
    return _from_memory(obj, _RUN, name)


def as_runs(runs: object) -> list[Run]:
    """A list of run-likes as Runs; one run-like on its own is a TypeError (the caller meant a list)."""
    single = isinstance(runs, (str, os.PathLike, Run, Mapping)) or _is_dataframe(runs) or _is_ranx(runs)
    if single or not _is_iterable(runs):
        raise TypeError(f"expected a list of runs, got {_describe(runs)}; wrap one run in a list")
    return [as_run(r) for r in runs]  # type: ignore[attr-defined]


def as_qrels(obj: object, *, name: str | None = None) -> Qrels:
    """``obj`` as ``Qrels`` (see the module docstring for what is accepted); Qrels are returned as is."""
    if isinstance(obj, Qrels):
        return obj if name is None else dataclasses.replace(obj, name=name)
    if isinstance(obj, (str, os.PathLike)):
        from toolkit.formats.qrels import read_qrels

        return read_qrels(_path(obj), name=name)
    return _from_memory(obj, _QRELS, name)


def as_topics(obj: object, *, name: str | None = None) -> TopicSet:
    """``obj`` as a ``TopicSet`` (see the module docstring for what is accepted)."""
    if isinstance(obj, TopicSet):
        return obj if name is None else dataclasses.replace(obj, name=name)
    if isinstance(obj, (str, os.PathLike)):
        from toolkit.formats.topics import read_topics

        topics = read_topics(_path(obj))
        return topics if name is None else dataclasses.replace(topics, name=name)
    _refuse_wrong_kind(obj, "topics", TOPICS_KINDS)
    if _is_dataframe(obj):
        return _topics_from_frame(obj, name=name or "topics")
    if isinstance(obj, Mapping):
        return _topics_from_dict(obj, name=name or "topics")
    if _has_method(obj, "queries_iter"):
        return topics_from_records(obj.queries_iter(), where="<ir_datasets>", name=name or "topics")  # type: ignore[attr-defined]
    if _is_iterable(obj):
        return topics_from_records(obj, where="<iterable>", name=name or "topics")  # type: ignore[arg-type]
    raise TypeError(f"cannot use {_describe(obj)} as topics; pass {TOPICS_KINDS}")


# --------------------------------------------------------------------------- recognising inputs


def _path(obj: str | os.PathLike[str]) -> str | Path:
    return obj if isinstance(obj, str) else Path(obj)


def _is_dataframe(obj: object) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def _is_ranx(obj: object) -> bool:
    ranx = sys.modules.get("ranx")
    return ranx is not None and isinstance(obj, (ranx.Run, ranx.Qrels))


def _is_iterable(obj: object) -> bool:
    return isinstance(obj, Iterable) and not isinstance(obj, (str, bytes, bytearray, Mapping))


def _has_method(obj: object, name: str) -> bool:
    """An ir_datasets dataset (its ``__getattr__`` raises AttributeError for a component it lacks)."""
    return callable(getattr(obj, name, None))


def _describe(obj: object) -> str:
    """``int``, ``pandas.DataFrame``, ``ranx.Qrels``: the type as people import it."""
    kind = type(obj)
    package = kind.__module__.split(".")[0]
    return kind.__qualname__ if package == "builtins" else f"{package}.{kind.__qualname__}"


def _refuse_wrong_kind(obj: object, wanted: str, accepted: str) -> None:
    """A Qrels where a run belongs (and the like) gets an error that says which is which."""
    ranx = sys.modules.get("ranx")
    kinds: dict[type, str] = {Run: "run", Qrels: "qrels", TopicSet: "topics"}
    if ranx is not None:
        kinds.update({ranx.Run: "run", ranx.Qrels: "qrels"})
    for cls, what in kinds.items():
        if isinstance(obj, cls) and what != wanted:
            raise TypeError(
                f"{_describe(obj)} holds {_article(what)}, not {_article(wanted)}; pass {accepted}"
            )


def _article(kind: str) -> str:
    return "a run" if kind == "run" else kind


@dataclasses.dataclass(frozen=True)
class _Kind(Generic[T]):
    """How runs, or qrels, are made from each in-memory form (the module docstring's table, one column)."""

    noun: str  # "run", "qrels": the default name, and what ``_refuse_wrong_kind`` calls it
    accepted: str  # RUN_KINDS, QRELS_KINDS: what a TypeError lists
    ranx_class: str  # "Run", "Qrels"
    from_frame: Callable[..., T]
    from_dict: Callable[..., T]
    from_records: Callable[..., T]
    records_method: str | None = None  # an ir_datasets dataset's iterator of these records


def _from_memory(obj: object, kind: _Kind[T], name: str | None) -> T:
    """``obj`` (not a path, not already the toolkit's object) as ``kind``; a TypeError for any other object."""
    _refuse_wrong_kind(obj, kind.noun, kind.accepted)
    if _is_dataframe(obj):
        return kind.from_frame(obj, name=name or kind.noun)
    ranx = sys.modules.get("ranx")
    if ranx is not None and isinstance(obj, getattr(ranx, kind.ranx_class)):
        where = f"<ranx.{kind.ranx_class}>"
        return kind.from_dict(obj.to_dict(), where=where, name=name or obj.name or kind.noun)
    if isinstance(obj, Mapping):
        return kind.from_dict(obj, where="<dict>", name=name or kind.noun)
    if kind.records_method is not None and _has_method(obj, kind.records_method):
        records = getattr(obj, kind.records_method)()
        return kind.from_records(records, where="<ir_datasets>", name=name or kind.noun)
    if _is_iterable(obj):
        return kind.from_records(obj, where="<iterable>", name=name or kind.noun)
    raise TypeError(f"cannot use {_describe(obj)} as {_article(kind.noun)}; pass {kind.accepted}")


# --------------------------------------------------------------------------- values


def _text_id(value: Any, where: str, line: int | None, what: str) -> str:
    if isinstance(value, str):
        if not value or _SPACE.search(value):
            raise FormatError(
                where, line, f"{what} {value!r} is empty or contains whitespace (TREC files split on it)"
            )
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    raise FormatError(
        where,
        line,
        f"{what} {value!r} is a {type(value).__name__}; ids must be text or integers "
        "(a float id like 301.0 matches no qrels: read ids with dtype=str)",
    )


def _score(value: Any, where: str, line: int | None, what: str) -> float:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        score = float(value)
        if math.isfinite(score):
            return score
    raise FormatError(where, line, f"{what}: score {value!r} is not a finite number")


def _grade(value: Any, where: str, line: int | None, what: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer():
        return int(float(value))
    raise FormatError(where, line, f"{what}: relevance {value!r} is not an integer grade")


# --------------------------------------------------------------------------- dicts and records


def run_from_dict(data: Mapping[Any, Any], *, where: str, name: str) -> Run:
    """A pytrec_eval-style ``{query_id: {doc_id: score}}``, validated and copied."""
    results = _dict_of_dicts(data, where, "score", float, _score)
    if not any(results.values()):
        raise FormatError(where, None, "empty run: no results")
    return Run(results=results, name=name)


def qrels_from_dict(data: Mapping[Any, Any], *, where: str, name: str) -> Qrels:
    """A pytrec_eval-style ``{query_id: {doc_id: relevance}}``, validated and copied."""
    judgments = _dict_of_dicts(data, where, "relevance", int, _grade)
    if not any(judgments.values()):
        raise FormatError(where, None, "empty qrels: no judgments")
    return Qrels(judgments=judgments, name=name)


def _dict_of_dicts(
    data: Mapping[Any, Any], where: str, what: str, plain: type, convert: Any
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for raw_q, docs in data.items():
        q = _text_id(raw_q, where, None, "query id")
        if not isinstance(docs, Mapping):
            raise FormatError(
                where, None, f"query {q!r}: expected {{doc_id: {what}}}, found {_describe(docs)}"
            )
        if q in out:
            raise FormatError(where, None, f"query id {q!r} appears twice (as text and as a number)")
        out[q] = _topic_values(q, docs, where, plain, convert)
    return out


def _topic_values(q: str, docs: Mapping[Any, Any], where: str, plain: type, convert: Any) -> dict[str, Any]:
    """One topic's ``{doc_id: value}`` checked; the common case (text ids, plain floats or ints) is checked
    in bulk — a run at MS MARCO scale has seven million of them."""
    keys = list(docs)
    values = list(docs.values())
    if (
        all(type(k) is str for k in keys)
        and all(type(v) is plain for v in values)
        and (plain is int or all(map(math.isfinite, values)))
        and min(map(len, keys), default=1) > 0
        and not _SPACE.search("\x00".join(keys))
    ):
        return dict(zip(keys, values, strict=True))
    checked = {
        _text_id(d, where, None, f"query {q!r}: doc id"): convert(v, where, None, f"query {q!r}, doc {d!r}")
        for d, v in zip(keys, values, strict=True)
    }
    if len(checked) != len(keys):
        raise FormatError(where, None, f"query {q!r}: a doc id appears twice (as text and as a number)")
    return checked


def _records(
    records: Iterable[Any], where: str, fields: tuple[str, ...], kind: str
) -> Iterator[tuple[int, Any]]:
    """The records numbered from 1, the first checked for the named fields (``ScoredDoc``/``Qrel``-like)."""
    for index, item in enumerate(records, start=1):
        if index == 1:
            names = getattr(item, "_fields", None)
            if not isinstance(names, tuple) or not set(fields) <= set(names):
                found = f"fields ({', '.join(names)})" if isinstance(names, tuple) else _describe(item)
                raise TypeError(
                    f"{where}: items must be {kind} records with fields {', '.join(fields)}, found {found}"
                )
        yield index, item


def _nested(
    records: Iterable[Any], where: str, value: str, kind: str, duplicate: str, read: Callable[..., Any]
) -> dict[str, dict[str, Any]]:
    """``query_id → doc_id → value`` from records with fields ``query_id, doc_id`` and ``value``: runs and
    qrels differ only in the value's field, how it is read and what a repeated pair is called."""
    nested: dict[str, dict[str, Any]] = {}
    for index, item in _records(records, where, ("query_id", "doc_id", value), kind):
        try:
            raw_q, raw_d, raw_v = item.query_id, item.doc_id, getattr(item, value)
        except AttributeError:
            raise FormatError(where, index, f"item is {_describe(item)}, not a {kind}") from None
        q = _text_id(raw_q, where, index, "query_id")
        d = _text_id(raw_d, where, index, "doc_id")
        docs = nested.setdefault(q, {})
        if d in docs:
            raise FormatError(where, index, duplicate.format(d=d, q=q))
        docs[d] = read(raw_v, where, index, f"query {q!r}, doc {d!r}")
    return nested


def run_from_records(records: Iterable[Any], *, where: str, name: str) -> Run:
    """Records with ``query_id, doc_id, score`` (ir_measures ``ScoredDoc``, ir_datasets scoreddocs)."""
    from toolkit.formats.run import DUPLICATE_DOC

    results = _nested(records, where, "score", "ScoredDoc", DUPLICATE_DOC, _score)
    if not results:
        raise FormatError(where, None, "empty run: no results")
    return Run(results=results, name=name)


def qrels_from_records(records: Iterable[Any], *, where: str, name: str) -> Qrels:
    """Records with ``query_id, doc_id, relevance`` (ir_measures ``Qrel``, ir_datasets ``qrels_iter()``)."""
    duplicate = "duplicate judgment of doc {d!r} for query {q!r}; keep one per (query, doc)"
    judgments = _nested(records, where, "relevance", "Qrel", duplicate, _grade)
    if not judgments:
        raise FormatError(where, None, "empty qrels: no judgments")
    return Qrels(judgments=judgments, name=name)


def topics_from_records(
    records: Iterable[Any], *, where: str, name: str, path: str | None = None
) -> TopicSet:
    """Records with a query id and text (ir_datasets ``queries_iter()``; dicts too); other fields → metadata."""
    specs: list[tuple[int | None, dict[str, Any]]] = []
    for index, item in enumerate(records, start=1):
        if hasattr(item, "_asdict"):
            fields = dict(item._asdict())
        elif isinstance(item, Mapping):
            fields = dict(item)
        else:
            raise TypeError(
                f"{where}: items must be query records (namedtuples or dicts), found {_describe(item)}"
            )
        specs.append((index, _checked_spec(fields, where, index)))
    return _topic_set(specs, where, name, path)


def _checked_spec(fields: dict[str, Any], where: str, line: int | None) -> dict[str, Any]:
    fields = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in fields.items()}
    spec = topic_spec(fields)
    if "id" not in spec:
        raise FormatError(where, line, f"no query id field ({', '.join(ID_KEYS)}) among {sorted(fields)}")
    spec["id"] = _text_id(spec["id"], where, line, "query id")
    if "query" not in spec:
        raise FormatError(
            where,
            line,
            f"query {spec['id']!r}: no query text ({', '.join(TEXT_KEYS)}) among {sorted(fields)}",
        )
    return spec


def _topics_from_dict(data: Mapping[Any, Any], *, name: str) -> TopicSet:
    specs: list[tuple[int | None, dict[str, Any]]] = []
    for raw_q, value in data.items():
        fields = dict(value) if isinstance(value, Mapping) else {"query": value}
        specs.append((None, _checked_spec({"id": raw_q, **fields}, "<dict>", None)))
    return _topic_set(specs, "<dict>", name)


def _topic_set(
    specs: list[tuple[int | None, dict[str, Any]]], where: str, name: str, path: str | None = None
) -> TopicSet:
    """Validated like a file; the digest (of the specs as sorted JSON) names the content in manifests."""
    digest = hashlib.sha256()
    for _, spec in specs:
        digest.update(json.dumps(spec, sort_keys=True, default=str).encode("utf-8") + b"\n")
    return topics_from_specs(where, specs, name=name, path=path, sha256=digest.hexdigest())


# --------------------------------------------------------------------------- DataFrames


def _run_from_frame(df: Any, *, name: str) -> Run:
    from toolkit.formats.frames import run_from_frame

    return run_from_frame(df, name=name)


def _qrels_from_frame(df: Any, *, name: str) -> Qrels:
    from toolkit.formats.frames import qrels_from_frame

    return qrels_from_frame(df, name=name)


def _topics_from_frame(df: Any, *, name: str) -> TopicSet:
    from toolkit.formats.frames import topic_rows

    specs: list[tuple[int | None, dict[str, Any]]] = [
        (row, _checked_spec(fields, "<DataFrame>", row)) for row, fields in topic_rows(df)
    ]
    return _topic_set(specs, "<DataFrame>", name)


_RUN: _Kind[Run] = _Kind("run", RUN_KINDS, "Run", _run_from_frame, run_from_dict, run_from_records)
_QRELS: _Kind[Qrels] = _Kind(
    "qrels", QRELS_KINDS, "Qrels", _qrels_from_frame, qrels_from_dict, qrels_from_records, "qrels_iter"
)
