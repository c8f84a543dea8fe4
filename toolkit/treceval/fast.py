"""The drop-in's fast path: read column-wise, join, compute every measure for all topics at once.

``trec_eval(options)`` tries this first. It applies when every measure asked for has a vectorised kernel
(``toolkit.treceval.vector``), the files read column-wise the way trec_eval reads them (``read_ranked`` and
``read_judgment_columns`` with ``binary=True``: any bytes, scores as ``atof`` reads plain decimals, grades as
``atol``), and nothing in them depends on trec_eval's state carried between topics or on its failure modes:
no ``-J``, ``-D``, NaN score, duplicate doc or judgment, blank or comment line in the qrels, topic without a
grade ≥ 0, or (without ``-c``) qrels topic missing from the run. Otherwise it returns None and the reference
loop (``toolkit.treceval.evaluate``) runs, which reproduces all of those.

The lines, their order and the averages are the loop's: topics in byte order of their ids, each measure's
values per topic, totals added topic by topic in that order.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from toolkit.treceval.measures.base import NOTHING, RUNID, STRING
from toolkit.treceval.options import ActiveMeasure, Options, active_measures

STAND_IN_DOC = b"ceci_nest_pas_un_docno"


def fast_trec_eval(options: Options, *, run_data: bytes | None = None) -> Any:
    """The ``TrecEvalResult`` trec_eval prints, or None when only the reference loop can tell.

    ``run_data``: standard input's bytes when the run comes from there (``Options.run_from_stdin``).
    """
    from toolkit.formats.qrels import read_judgment_columns
    from toolkit.formats.ranked import read_ranked
    from toolkit.formats.tables import release_memory
    from toolkit.treceval import vector
    from toolkit.treceval.evaluate import RESET_NAMES
    from toolkit.treceval.resrels import MAX_LEVELS

    if options.judged_only or options.debug_query is not None or options.max_docs < 1:
        return None
    if options.relevance_level < 0:
        return None
    measures = active_measures(options)
    if not all(
        m.definition.name in ("runid", "num_q") or m.definition.name in vector.KERNELS for m in measures
    ):
        return None
    if not options.qrels:
        return None
    if _small(options, run_data):
        return None  # the reference loop reads and scores small files sooner than numpy and pyarrow import
    # Read as the reference loop reads them, in trec_eval's order (qrels, then run): the files named by the
    # bytes given (options hold them one character per byte), and an unreadable file or a limit passed is the
    # same FormatError it raises (``trec_eval`` turns it into trec_eval's exit code).
    # streamed, never held whole: a qrels gzip bomb costs a block here, and the reference loop streams it too
    qrels = read_judgment_columns(Path(os.fsdecode(options.qrels.encode("latin-1"))), binary=True)
    if qrels is None or qrels.clash or len(qrels.grades) != qrels.lines:
        return None  # blank or comment lines: trec_eval reads them its own way
    if len(qrels.grades) and int(qrels.grades.max()) >= MAX_LEVELS:
        return None  # the drop-in's own limit, which the reference loop reports
    if options.run_from_stdin and run_data is None:
        return None
    if options.run_from_stdin:
        fast = read_ranked("<stdin>", data=run_data, binary=True)
    else:
        fast = read_ranked(Path(os.fsdecode(options.run.encode("latin-1"))), binary=True)
    if fast is None:
        return None
    run, _first, last = fast
    run_id = last.split(b" ")[5].decode("latin-1")
    order = sorted(range(len(qrels.topics)), key=lambda t: qrels.topics[t].encode("latin-1"))
    run_index = run.topic_index()
    pairs = [(run_index.get(qrels.topics[t], -1), t) for t in order]
    missing = [k for k, (r, _) in enumerate(pairs) if r < 0]
    if missing and not options.complete:
        return None  # trec_eval stops at the first such topic: the reference loop says where
    stand_in = _stand_in_grades(qrels, [pairs[k][1] for k in missing])
    from toolkit.treceval.batch import build_batch

    max_docs = None if options.max_docs >= 2147483647 else options.max_docs
    batch = build_batch(run, qrels, pairs, max_docs=max_docs, stand_in=stand_in)
    del run, fast  # the measures need only the batch: the run's columns go back to the system
    release_memory()
    if (batch.max_grade() < 0).any():
        return None  # trec_eval's grade-count table carries over from topic to topic there
    level = options.relevance_level
    values: list[list[Any]] = []
    for m in measures:
        name = m.definition.name
        if name == "runid":
            values.append([])
        elif name == "num_q":
            values.append([_ones(batch.topics)])
        elif not vector.usable(name, m.params, batch, level):
            return None
        else:
            values.append(vector.compute(name, m.params, batch, level))
    for k in missing:  # the stand-in's counts trec_eval resets to 0 (matched by printed name)
        for m, arrays in zip(measures, values, strict=True):
            for j, name in enumerate(m.names):
                if name in RESET_NAMES or name.startswith("unj"):
                    arrays[j][k] = 0.0
    topic_ids = [qrels.topics[t] for _, t in pairs]
    return _result(options, measures, values, topic_ids, run_id, qrels)


def _ones(n: int) -> Any:
    import numpy as np

    return np.ones(n)


def _small(options: Options, run_data: bytes | None) -> bool:
    """Both inputs under ``toolkit.formats.limits.SMALL_FILE`` (plain files, or standard input's bytes): the
    line-by-line reference loop answers them, as ``score`` reads such files with its line readers."""
    from toolkit.formats import limits

    qrels = Path(os.fsdecode(options.qrels.encode("latin-1")))
    if not limits.is_small_file(qrels):
        return False
    if options.run_from_stdin:
        return run_data is not None and len(run_data) < limits.SMALL_FILE
    return limits.is_small_file(Path(os.fsdecode(options.run.encode("latin-1"))))


def _stand_in_grades(qrels: Any, topics: list[int]) -> list[int]:
    """The grade of trec_eval's stand-in doc in each of ``topics`` (-1 when not judged, -2 when judged < 0)."""
    import numpy as np

    if not topics:
        return []
    judged = np.flatnonzero(np.isin(qrels.codes, topics))
    names = qrels.doc_ids(judged)
    grade = {}
    for row, name in zip(judged.tolist(), names, strict=True):
        if name.encode("latin-1") == STAND_IN_DOC:
            value = int(qrels.grades[row])
            grade[int(qrels.codes[row])] = -2 if value < 0 else value
    return [grade.get(t, -1) for t in topics]


def _result(
    options: Options,
    measures: list[ActiveMeasure],
    values: list[list[Any]],
    topic_ids: list[str],
    run_id: str,
    qrels: Any,
) -> Any:
    import numpy as np

    from toolkit.treceval.evaluate import OutputLine, TrecEvalResult, summary_lines

    columns = [[array.tolist() for array in arrays] for arrays in values]
    lines: list[OutputLine] = []
    if options.per_topic:
        shown = [
            (m.names, cols, m.definition.value)
            for m, cols in zip(measures, columns, strict=True)
            if m.definition.per_topic and m.definition.value not in (RUNID, STRING)
        ]
        flat = [
            (name, col, kind) for names, cols, kind in shown for name, col in zip(names, cols, strict=True)
        ]
        for i, query_id in enumerate(topic_ids):
            lines.extend([OutputLine(name, query_id, col[i], kind) for name, col, kind in flat])
    if options.summary:
        topics = len(topic_ids)
        for m, arrays in zip(measures, values, strict=True):
            totals = [0.0] * max(len(m.names), 1)
            if m.definition.average != NOTHING:
                totals = [float(np.add.accumulate(a)[-1]) if len(a) else 0.0 for a in arrays]
            lines.extend(summary_lines(m, totals, topics, topics, options, run_id, lambda: _positive(qrels)))
    return TrecEvalResult(tuple(lines))


def _positive(qrels: Any) -> int:
    import numpy as np

    return int(np.count_nonzero(qrels.grades > 0))
