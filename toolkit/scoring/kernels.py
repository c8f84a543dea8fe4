"""Scoring with the measure table: one ``Batch`` per run, each measure by its kernel, every topic at once.

Why one batch: trec_eval forms each topic's ranked relevance list (grades by rank, -1 not judged, -2 judged
< 0) and every measure reads it. Here that list is formed once for all topics — by the column-wise join
(``toolkit.treceval.batch``) when the run and the qrels were read column-wise, else from the run's canonical
rankings and the qrels' dicts, both giving the same ``Batch`` (a test holds the one to the other) — and every
measure runs on it: the vectorised kernel where the row has one (``toolkit.treceval.vector``, the doubles
trec_eval 10 prints), else the row's reference port topic by topic. Whatever the input's shape, one measure is
computed by one kernel.

Why a list batch for small inputs: people run ``score`` in loops, on a few hundred results, where importing
numpy costs more than all the scoring. A run of at most ``SMALL_RESULTS`` results read line by line (not
column-wise) is formed into ``ListBatch``, plain lists, and every measure is computed by the row's reference
port (``calc``: trec_eval's C code ported statement for statement, which the kernels are held to) — no numpy
import. ``tests/scoring/test_small_path.py`` holds this path to the column path on random inputs, value for value.

The topics and their values follow ``score``'s rules, which are trec_eval ``-c``'s:

* a topic the run has no results for is scored as trec_eval ``-c`` scores it: on a stand-in ranking of one
  doc the qrels do not judge, with ``num_ret``, ``utility``, ``rbp_resid`` and ``unj`` then set to 0;
* each topic's grade counts are its own (trec_eval carries a table over from the previous topic when a topic
  has no grade ≥ 0, and crashes on some); a topic the qrels do not judge at all is scored against no
  judgments (nothing is relevant);
* ``gm_map``/``gm_bpref`` are kept per topic as the value whose log trec_eval averages (AP or bpref, floored
  at 1e-5), and averaged as geometric means by ``toolkit.scoring.evaluate``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolkit.errors import ToolkitError
from toolkit.model import Qrels, Run
from toolkit.scoring.table import Located
from toolkit.treceval.measures.base import GEOMETRIC, RELVALUE_NONPOOL, RELVALUE_UNJUDGED, Settings

#: Most results a run read line by line may have for ``TableScorer`` to score it with ``ListBatch`` (pure
#: Python, the reference ports) instead of numpy: about what fits the line readers' files (under 256 KiB), where
#: the ports take a few milliseconds and importing numpy takes tens.
SMALL_RESULTS = 20_000


@dataclass(frozen=True)
class ListBatch:
    """A ``toolkit.treceval.vector.Batch`` as plain lists, for small inputs: per topic its relevance list (rank
    order, ``RELVALUE_*`` for docs without a usable judgment) and its qrels grades. Only the reference ports
    read it (``res_rels``), so building and scoring it imports no numpy."""

    rels: tuple[list[int], ...]
    grades: tuple[list[int], ...]

    @property
    def topics(self) -> int:
        return len(self.rels)

    def judged(self) -> ListBatch:
        """Every doc the qrels do not judge (≥ 0) left out of the rankings: trec_eval ``-J``."""
        return ListBatch(tuple([r for r in rel if r >= 0] for rel in self.rels), self.grades)

    def res_rels(self, t: int, level: int, *, judged_only: bool = False) -> Any:
        from toolkit.treceval.vector import form_res_rels

        return form_res_rels(self.rels[t], self.grades[t], level, judged_only=judged_only)


class TableScorer:
    """Scores runs against one qrels for measures located in the table (build once, reuse over runs)."""

    def __init__(self, qrels: Qrels, measures: Mapping[str, Located]) -> None:
        self.qrels = qrels
        self.measures = dict(measures)
        self._dicts: dict[str, dict[str, int]] | None = None

    @property
    def qrels_dict(self) -> dict[str, dict[str, int]]:
        if self._dicts is None:
            self._dicts = {q: dict(d) for q, d in self.qrels.judgments.items()}
        return self._dicts

    def score(self, run: Run, query_ids: Sequence[str]) -> dict[str, dict[str, float]]:
        """Per-topic values of every measure for ``query_ids`` (distinct), in that order.

        The topics the qrels judge are one batch (column-wise when both sides were read so), the others a
        second one, from dicts (a topic set's topics nobody judged: few, and none of their docs is judged).
        """
        if not self.measures or not query_ids:
            return {q: {} for q in query_ids}
        judged = set(
            self.qrels.judgments
        )  # a set: a qrels mapping may answer ``in`` in Python, once per topic
        answered = {q for q, docs in run.results.items() if docs}
        inside = [q for q in query_ids if q in judged]
        outside = [q for q in query_ids if q not in judged and q in answered]
        silent = next((q for q in query_ids if q not in judged and q not in answered), None)
        out: dict[str, dict[str, float]] = {q: {} for q in (*inside, *outside)}
        lists = small(run, self.qrels)
        dicts = from_lists if lists else from_dicts
        if inside:
            if lists:
                batch = from_lists(run, self.qrels_dict, inside)
            else:
                batch = build(run, self.qrels, inside, lambda: self.qrels_dict)
            self._score(run, inside, batch, out)
        if outside:
            self._score(run, outside, dicts(run, {}, outside), out)
        if silent is None:
            return out if len(out) == len(query_ids) else {q: out[q] for q in query_ids}
        # A topic neither the qrels nor the run have is scored on nothing, so every such topic has the same
        # values: computed once, and that one dict shared by them all — a topic set of a million topics with a
        # thousand judged holds one, not a million (callers read these values; they do not change them).
        nothing: dict[str, dict[str, float]] = {silent: {}}
        self._score(run, [silent], dicts(run, {}, [silent]), nothing)
        every = dict.fromkeys(query_ids, nothing[silent])  # in query_ids order, at C speed
        every.update(out)
        return every

    def _score(self, run: Run, query_ids: list[str], batch: Any, out: dict[str, dict[str, float]]) -> None:
        judged = batch.judged() if any(m.judged_only for m in self.measures.values()) else batch
        empty = [not run.results.get(q) for q in query_ids]
        for name, located in self.measures.items():
            values = _values(located, judged if located.judged_only else batch)
            if any(empty) and _reset(located):
                values = [0.0 if e else v for e, v in zip(empty, values, strict=True)]
            for query_id, value in zip(query_ids, values, strict=True):
                out[query_id][name] = value


def _values(located: Located, batch: Any) -> list[float]:
    """One measure's per-topic values as Python floats (a geometric mean's per-topic ``exp`` applied): on a
    ``ListBatch`` by the row's reference port, without numpy; on a ``Batch`` by ``compute`` and numpy's ``exp``,
    as before the list batch existed (numpy's ``exp`` and ``math.exp`` need not agree to the last bit)."""
    geometric = located.row.average == GEOMETRIC
    if isinstance(batch, ListBatch):
        return [math.exp(v) if geometric else float(v) for v in compute_port(located, batch)]
    import numpy as np

    values = compute(located, batch)
    return list((np.exp(values) if geometric else values).tolist())


def small(run: Run, qrels: Qrels) -> bool:
    """Whether ``TableScorer`` scores this pair with a ``ListBatch``: neither read column-wise (numpy is loaded
    then, and the column join is faster) and the run at most ``SMALL_RESULTS`` results."""
    if (
        getattr(run.results, "columns", None) is not None
        or getattr(qrels.judgments, "columns", None) is not None
    ):
        return False
    total = 0
    for docs in run.results.values():
        total += len(docs)
        if total > SMALL_RESULTS:
            return False
    return True


def _reset(located: Located) -> bool:
    """Whether trec_eval ``-c`` sets this value to 0 on a topic the run lacks (matched by its printed name)."""
    from toolkit.treceval.evaluate import RESET_NAMES

    return located.printed in RESET_NAMES or located.printed.startswith("unj")


def compute(located: Located, batch: Any) -> Any:
    """One measure's per-topic values on ``batch``: the row's kernel when it gives trec_eval's values there,
    else its reference port, topic by topic."""
    import numpy as np

    from toolkit.treceval import vector
    from toolkit.treceval.measures.beyond import GradeScaleError

    row = located.row
    if row.kernel is not None and vector.usable(row.name, located.params, batch, located.level, fresh=True):
        try:
            return np.asarray(row.kernel(batch, located.level, located.params)[0], np.float64)
        except GradeScaleError as exc:
            raise ToolkitError(f"{located.printed}: {exc}") from None
    return np.array(compute_port(located, batch), np.float64)


def compute_port(located: Located, batch: Any) -> list[float]:
    """One measure's per-topic values on ``batch`` (a ``Batch`` or a ``ListBatch``) by the row's reference port."""
    from toolkit.treceval.measures.beyond import GradeScaleError

    settings = Settings(relevance_level=located.level, judged_only=located.judged_only)
    try:
        return [
            located.row.calc(
                settings, batch.res_rels(t, located.level, judged_only=located.judged_only), located.params
            )[0]
            for t in range(batch.topics)
        ]
    except GradeScaleError as exc:
        raise ToolkitError(f"{located.printed}: {exc}") from None


# --- the batch, from columns or from dicts ---------------------------------------------------------------------


def build(run: Run, qrels: Qrels, query_ids: Sequence[str], dicts: Any) -> Any:
    """The ``Batch`` of ``query_ids``: each topic's ranking (or trec_eval ``-c``'s one-doc stand-in when the run
    has none) and its qrels grades (none when the qrels do not judge it)."""
    ranked = getattr(run.results, "columns", None)
    judged = getattr(qrels.judgments, "columns", None)
    if (
        ranked is not None
        and judged is not None
        and not ranked.binary
        and not judged.binary
        and not judged.clash
    ):
        return _from_columns(ranked, judged, query_ids)
    return from_dicts(run, dicts(), query_ids)


def _from_columns(ranked: Any, judged: Any, query_ids: Sequence[str]) -> Any:
    from toolkit.treceval.batch import build_batch

    run_index = ranked.topic_index()
    qrels_index = {q: t for t, q in enumerate(judged.topics)}
    pairs = [(run_index.get(q, -1), qrels_index[q]) for q in query_ids]
    return build_batch(ranked, judged, pairs)


def from_lists(run: Run, judgments: Mapping[str, Mapping[str, int]], query_ids: Sequence[str]) -> ListBatch:
    """``from_dicts`` as a ``ListBatch``: the same relevance lists and grades, without numpy."""
    from toolkit.scoring.engine import ranking

    rels: list[list[int]] = []
    grades: list[list[int]] = []
    for query_id in query_ids:
        judged = judgments.get(query_id) or {}
        docs = ranking(run, query_id) if run.results.get(query_id) else ()
        rel = [_relvalue(judged.get(d)) for d in docs]
        rels.append(rel or [RELVALUE_NONPOOL])  # trec_eval -c's stand-in: one doc the qrels do not judge
        grades.append(sorted(judged.values(), reverse=True))
    return ListBatch(tuple(rels), tuple(grades))


def _relvalue(grade: int | None) -> int:
    """A ranked doc's entry in trec_eval's relevance list: its grade, or ``RELVALUE_*`` when it has none usable."""
    if grade is None:
        return RELVALUE_NONPOOL
    return RELVALUE_UNJUDGED if grade < 0 else int(grade)


def from_dicts(run: Run, judgments: Mapping[str, Mapping[str, int]], query_ids: Sequence[str]) -> Any:
    """``build`` from the run's canonical rankings and the qrels as dicts (any input's shape)."""
    import numpy as np

    from toolkit.scoring.engine import ranking
    from toolkit.treceval.vector import Batch

    missing = np.iinfo(np.int64).min
    rels: list[Any] = []
    grades: list[Any] = []
    lengths = np.zeros(len(query_ids), np.int64)
    qlengths = np.zeros(len(query_ids), np.int64)
    for t, query_id in enumerate(query_ids):
        judged = judgments.get(query_id) or {}
        docs = ranking(run, query_id) if run.results.get(query_id) else ()
        values = np.fromiter((judged.get(d, missing) for d in docs), np.int64, len(docs))
        if not len(docs):
            values = np.array([missing], np.int64)  # trec_eval -c's stand-in: one doc the qrels do not judge
        rels.append(values)
        lengths[t] = len(values)
        topic_grades = np.sort(np.fromiter(judged.values(), np.int64, len(judged)))[::-1]
        grades.append(topic_grades)
        qlengths[t] = len(topic_grades)
    rel = np.concatenate(rels) if rels else np.zeros(0, np.int64)
    rel = np.where(rel == missing, RELVALUE_NONPOOL, np.where(rel < 0, RELVALUE_UNJUDGED, rel))
    starts = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    qstarts = np.concatenate(([0], np.cumsum(qlengths))).astype(np.int64)
    all_grades = np.concatenate(grades) if grades else np.zeros(0, np.int64)
    return Batch(starts, rel, qstarts, all_grades)
