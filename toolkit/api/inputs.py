"""What ``score``, ``compare`` and ``agree`` take: one run or several, named; judgments of every kind.

**Runs.** One run (anything ``toolkit.formats.interop.as_run`` takes), a list of them, or a dict
``{name: run}``. Scores and comparisons are keyed by run name, so every run needs a distinct one: a file is
named after its path (``runs/bm25.run`` → ``bm25``), a ``Run`` and a named ``ranx.Run`` keep theirs, and an
in-memory run without a name of its own (a DataFrame, a dict, ir_measures records) is ``run`` when it is
alone and ``run1``, ``run2`` … by its position in a list. ``names=[…]`` names a list's runs (``names="bm25"``
one run's); a dict's keys are its names. Two runs of one name are an error that says how to name them — never
one silently overwriting the other.

Telling a dict of runs from one pytrec_eval run ``{query_id: {doc_id: score}}``: in a run, the inner values
are numbers; in a dict of runs, the values are runs (paths, frames, ``Run``s, or themselves dicts of dicts).

**Judgments** (``agree``): a campaign (a ``Campaign``, a ``.sqlite`` path or a ``postgresql://`` URL), a
judgments file (TSV, CSV, JSONL), a DataFrame with ``assessor, query_id, doc_id, grade`` columns (what
``Campaign.judgments()`` returns), or an iterable of ``(assessor, query_id, doc_id, grade)`` tuples or
campaign ``Judgment`` records. Only graded ``judge`` decisions count: skips and unrateables are left out.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.agreement.judgments import Rating
from toolkit.errors import UsageError
from toolkit.model import Qrels, Run, TopicSet

if TYPE_CHECKING:
    from toolkit.stats.rankings import DocText

RUNS_KINDS = (
    "one run (a TREC run file path, a toolkit Run, a pandas DataFrame, a dict {query_id: {doc_id: score}}, a "
    "ranx.Run or ir_measures ScoredDocs), a list of runs, or a dict {name: run}"
)
JUDGMENTS_KINDS = (
    "a campaign (toolkit.Campaign, a .sqlite path or a postgresql:// URL), a judgments file path (TSV, CSV, "
    "JSONL), a pandas DataFrame with assessor, query_id, doc_id and grade columns, or an iterable of "
    "(assessor, query_id, doc_id, grade) tuples or campaign Judgment records"
)

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def named_runs(runs: Any, names: str | Sequence[str] | None = None) -> list[Run]:
    """``runs`` (see the module docstring) as ``Run``s with distinct names, in the order given."""
    from toolkit.formats.interop import as_run

    if isinstance(runs, Mapping) and not _is_pytrec_run(runs):
        if names is not None:
            raise UsageError(
                "names= with a dict of runs: the dict's keys are the names; pass one or the other"
            )
        for key in runs:
            if not isinstance(key, str) or not key:
                raise TypeError(f"a dict of runs needs text names as keys, found {key!r}; {RUNS_KINDS}")
        out = [as_run(run, name=key) for key, run in runs.items()]
    else:
        items = [runs] if _is_one_run(runs) else _listed(runs)
        given = _names(names, len(items))
        out = []
        for i, item in enumerate(items, start=1):
            own = _own_name(item)
            default = own or ("run" if len(items) == 1 else f"run{i}")
            out.append(as_run(item, name=given[i - 1] if given else default))
    if not out:
        raise UsageError("no runs given; pass one run, a list of runs or a dict {name: run}")
    _check_distinct(out)
    return out


def _listed(runs: Any) -> list[Any]:
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Iterable):
        if _is_other_kind(runs):
            from toolkit.formats.interop import as_run

            as_run(runs)  # raises the TypeError that says what the object holds instead
        raise TypeError(f"cannot use {_describe(runs)} as runs; pass {RUNS_KINDS}")
    return list(runs)


def _is_other_kind(obj: Any) -> bool:
    """Qrels or topics where runs belong (``as_run`` names the mix-up)."""
    ranx = sys.modules.get("ranx")
    return isinstance(obj, (Qrels, TopicSet)) or (ranx is not None and isinstance(obj, ranx.Qrels))


def _names(names: str | Sequence[str] | None, count: int) -> list[str] | None:
    if names is None:
        return None
    listed = [names] if isinstance(names, str) else list(names)
    if len(listed) != count:
        raise UsageError(f"{len(listed)} name(s) for {count} run(s); pass one name per run, in order")
    for name in listed:
        if not isinstance(name, str) or not name:
            raise TypeError(f"run names must be non-empty text, found {name!r}")
    return listed


def _check_distinct(runs: list[Run]) -> None:
    seen: set[str] = set()
    for run in runs:
        if run.name in seen:
            raise UsageError(
                f"two runs are named {run.name!r}; name them with names=[…] or pass a dict {{name: run}}"
            )
        seen.add(run.name)


def _is_one_run(obj: Any) -> bool:
    """One run rather than a collection of runs: a path, a Run, a frame, a ranx.Run, a pytrec_eval dict, or
    ir_measures records (a sequence whose first item is a ``ScoredDoc``-like record)."""
    if isinstance(obj, (str, os.PathLike, Run)) or _is_frame(obj) or _is_ranx_run(obj):
        return True
    if isinstance(obj, Mapping):
        return _is_pytrec_run(obj)
    if isinstance(obj, Sequence) and obj:
        return _is_record(obj[0])
    return isinstance(obj, Iterable) and not isinstance(obj, Sequence)  # a generator of records


def _is_pytrec_run(obj: Mapping[Any, Any]) -> bool:
    """``{query_id: {doc_id: score}}``: the first non-empty inner mapping holds numbers, not runs."""
    for docs in obj.values():
        if not isinstance(docs, Mapping):
            return False
        for value in docs.values():
            return not isinstance(value, Mapping)
    return True  # only empty topics: a (empty) run, refused by as_run with its own message


def _is_record(obj: Any) -> bool:
    fields = getattr(obj, "_fields", None)
    return isinstance(fields, tuple) and {"query_id", "doc_id", "score"} <= set(fields)


def _own_name(obj: Any) -> str | None:
    """The name a run carries itself: a file's stem, a Run's name, a named ranx.Run's name."""
    if isinstance(obj, (str, os.PathLike)):
        from toolkit.formats.run import run_name

        return run_name(os.fspath(obj))
    if isinstance(obj, Run):
        return obj.name
    if _is_ranx_run(obj):
        return obj.name or None
    return None


def _is_frame(obj: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def _is_ranx_run(obj: Any) -> bool:
    ranx = sys.modules.get("ranx")
    return ranx is not None and isinstance(obj, ranx.Run)


def _describe(obj: Any) -> str:
    kind = type(obj)
    package = kind.__module__.split(".")[0]
    return kind.__qualname__ if package == "builtins" else f"{package}.{kind.__qualname__}"


# --------------------------------------------------------------------------- judgments


@dataclass(frozen=True)
class Judgments:
    """Graded judgments and the campaign's grade scale when known."""

    ratings: tuple[Rating, ...]
    labels: tuple[int, ...] | None = None


def load_judgments(
    source: Any, *, labels: Sequence[int] | None = None, include_gold: bool = False
) -> Judgments:
    """``source`` (see the module docstring) as graded judgments; a TypeError names what is accepted."""
    from toolkit.api.campaign import Campaign

    if isinstance(source, Campaign):
        return _from_campaign(source.location, include_gold)
    if isinstance(source, (str, os.PathLike)):
        from toolkit.agreement.judgments import is_campaign, read_judgments_tsv

        source = os.fspath(source)
        if _URL.match(source) or is_campaign(source):
            return _from_campaign(source, include_gold)
        loaded = read_judgments_tsv(source, labels=labels)
        return Judgments(loaded.judgments)
    if _is_frame(source):
        from toolkit.formats.judgment_frames import judgments_from_frame

        rows = judgments_from_frame(source)
        return Judgments(
            tuple(Rating(r.assessor, r.query_id, r.doc_id, r.grade) for r in rows if r.grade is not None)
        )
    if isinstance(source, (Mapping, bytes)) or not isinstance(source, Iterable):
        raise TypeError(f"cannot use {_describe(source)} as judgments; pass {JUDGMENTS_KINDS}")
    from toolkit.agreement.agree import normalise

    try:
        ratings = normalise(source)
    except (TypeError, ValueError):
        raise TypeError(
            f"cannot use {_describe(source)} as judgments: its items are not (assessor, query_id, doc_id, "
            f"grade) tuples or Judgment records; pass {JUDGMENTS_KINDS}"
        ) from None
    _check_items(ratings)
    return Judgments(tuple(ratings))


def _check_items(ratings: Sequence[Rating]) -> None:
    """Names and grades from Python objects meet the judgments file's rules (``<iterable>:ITEM: …``)."""
    from toolkit.errors import FormatError
    from toolkit.formats.judgments import grade_problem
    from toolkit.formats.names import assessor_problem

    for number, rating in enumerate(ratings, start=1):
        problem = assessor_problem(rating.assessor) or grade_problem(str(rating.grade))
        if problem:
            raise FormatError("<iterable>", number, problem)


def _from_campaign(location: Any, include_gold: bool) -> Judgments:
    from toolkit.agreement.judgments import read_campaign

    loaded = read_campaign(location, include_gold=include_gold)
    return Judgments(loaded.judgments, loaded.labels)


DOCS_KINDS = (
    "a .jsonl/.tsv corpus path, a folder of files, a campaign (.sqlite path or postgresql:// URL), or a dict "
    "{doc_id: (title, text)}"
)


def doc_texts_of(docs: Any, doc_ids: Sequence[str]) -> dict[str, DocText]:
    """The titles and snippets of ``doc_ids`` from ``docs`` (``compare(docs=…)``: one of ``DOCS_KINDS``)."""
    from toolkit.stats.rankings import DocText, doc_text, doc_texts

    if isinstance(docs, Mapping):
        out = {}
        for d in doc_ids:
            entry = docs.get(d)
            if entry is None:
                out[d] = DocText(error="not in docs")
            elif isinstance(entry, str):
                out[d] = doc_text("", entry)
            else:
                title, text = entry
                out[d] = doc_text(str(title), str(text))
        return out
    if isinstance(docs, str | os.PathLike):
        from toolkit.pooling.docsource import fetch_documents
        from toolkit.pooling.snapshots import doc_source_for

        return doc_texts(fetch_documents(doc_source_for(os.fspath(docs)), doc_ids))
    raise TypeError(f"docs= takes {DOCS_KINDS}, not {type(docs).__name__}")
