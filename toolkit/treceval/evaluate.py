"""trec_eval 10's evaluation loop: every qrels topic, every measure, accumulated and averaged in its order.

The result is the list of lines trec_eval prints (``OutputLine``: measure, topic or ``all``, value, how to
print it) and, when trec_eval would stop part-way, the error it stops with: the lines before it are what
trec_eval has printed by then (``-q`` prints a topic's lines once all its measures are computed).

Semantics worth knowing, all trec_eval's:

* topics are the qrels' topics in byte order; run topics without qrels are ignored;
* a qrels topic missing from the run stops trec_eval (exit 4, "result qid … not found in qrels") unless ``-c``,
  which scores a stand-in ranking of one unjudged doc and then resets ``num_ret``, ``utility``, ``relstring``,
  ``unj_*`` and ``rbp_resid`` (when they have their default names) to 0;
* averages divide by the topics evaluated, or under ``-c`` by all qrels topics; ``num_ret``, ``num_rel_ret``
  and ``num_nonrel_judged_ret`` are sums; ``num_rel`` is a sum, but under ``-c`` it counts every judgment > 0 in
  the qrels whatever ``-l`` says; ``gm_map``/``gm_bpref`` are geometric means of values floored at 1e-5.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from toolkit.errors import FormatError
from toolkit.formats.as_trec_eval import (
    TrecEvalQrels,
    TrecEvalRun,
    read_qrels_as_trec_eval,
    read_run_as_trec_eval,
)
from toolkit.treceval.cnum import div, exp, log
from toolkit.treceval.errors import TrecEvalError
from toolkit.treceval.measures.base import (
    GEOMETRIC,
    MEAN,
    MIN_GEO_MEAN,
    NOTHING,
    NUM_Q,
    NUM_REL,
    RUNID,
    STRING,
    ResRels,
)
from toolkit.treceval.measures.sets import MeasureFailure
from toolkit.treceval.options import ActiveMeasure, Options, active_measures
from toolkit.treceval.resrels import STOP, FormFailure, LevelsState, form_res_rels

#: The ranking trec_eval scores for a qrels topic the run lacks, under -c.
STAND_IN = [("ceci_nest_pas_un_docno", 1.0)]
#: Values trec_eval resets to 0 after scoring the stand-in (matched by full value name, as it matches them).
RESET_NAMES = ("num_ret", "utility", "rbp_resid")
EMPTY = ResRels(0, 0, 0, 0, 0, 0, {}, [])


class OutputLine(NamedTuple):
    """One printed line: ``kind`` is ``double`` (%6.4f), ``long`` (%ld), ``string`` (quoted) or ``runid``.

    A named tuple rather than a dataclass: ``-q`` with trec_eval's default measures prints ~30 lines a topic,
    and building them is then part of the evaluation's time.
    """

    measure: str
    query_id: str
    value: Any
    kind: str


@dataclass(frozen=True)
class TrecEvalResult:
    """What trec_eval prints on stdout, and the error it then stops with (None when it finishes)."""

    lines: tuple[OutputLine, ...]
    error: TrecEvalError | None = None


def trec_eval(options: Options) -> TrecEvalResult:
    """Read the files named in ``options`` and evaluate; ``TrecEvalError`` when it stops before printing.

    The column-wise path (``toolkit.treceval.fast``) answers whenever it can vouch for trec_eval's result;
    everything else goes through the reference loop below.
    """
    from toolkit.treceval.fast import fast_trec_eval

    try:
        # standard input read once, for either path, as a file is read: gunzipped, within the input limits
        stdin = _read_stdin(options) if options.run_from_stdin else None
        result = fast_trec_eval(options, run_data=stdin)
        if result is not None:
            return result
        qrels = read_qrels_as_trec_eval(options.qrels)
        run = read_run_as_trec_eval(options.run, data=stdin)
    except FormatError as exc:
        raise TrecEvalError(str(exc), exit_code=2) from None
    return evaluate(options, qrels, run)


def _read_stdin(options: Options) -> bytes:
    """Standard input's bytes, read as a file is read: gunzipped, within the input limits.

    trec_eval reads the qrels before the run, so when standard input cannot be read, an error in the qrels is
    the one to report.
    """
    import sys

    from toolkit.formats.textfile import read_bytes

    try:
        return read_bytes("<stdin>", stream=sys.stdin.buffer)
    except FormatError:
        read_qrels_as_trec_eval(options.qrels)
        raise


def evaluate(options: Options, qrels: TrecEvalQrels, run: TrecEvalRun) -> TrecEvalResult:
    """The evaluation loop of trec_eval.c ``main`` over already-read files."""
    measures = active_measures(options)
    settings = options.settings()
    state = LevelsState()
    totals = [[0.0] * max(len(m.names), 1) for m in measures]
    lines: list[OutputLine] = []
    evaluated = 0
    for query_id, judgments in qrels.topics.items():
        if options.debug_query is not None and query_id != options.debug_query:
            continue
        docs = run.topics.get(query_id)
        stand_in = docs is None
        if docs is None:
            if not options.complete:
                return TrecEvalResult(tuple(lines), _missing(query_id, run))
            docs = STAND_IN
        rr: ResRels | None = None
        values: list[list[Any]] = []
        for measure in measures:
            definition = measure.definition
            try:
                if rr is None and definition.uses_res_rels:
                    rr = form_res_rels(settings, query_id, judgments, docs, state)
                values.append(definition.calc(settings, rr or EMPTY, measure.params))
            except (FormFailure, MeasureFailure) as exc:
                kind = exc.kind if isinstance(exc, FormFailure) else STOP
                if kind == STOP:
                    error = TrecEvalError(
                        f"{exc} (trec_eval 10 stops: Can't calculate measure '{definition.name}')",
                        exit_code=4,
                    )
                else:
                    error = TrecEvalError(str(exc), exit_code=1)
                return TrecEvalResult(tuple(lines), error)
        if stand_in:
            for measure, vals in zip(measures, values, strict=True):
                for k, name in enumerate(measure.names):
                    if name in RESET_NAMES or name.startswith("unj"):
                        vals[k] = 0.0
                    elif name == "relstring":
                        vals[k] = ""
        evaluated += 1
        for measure, vals, total in zip(measures, values, totals, strict=True):
            definition = measure.definition
            if definition.average != NOTHING:
                for k, value in enumerate(vals):
                    total[k] += value
            if options.per_topic and definition.per_topic:
                lines.extend(
                    OutputLine(name, query_id, value, definition.value)
                    for name, value in zip(measure.names, vals, strict=True)
                )
    if evaluated == 0:
        error = TrecEvalError("no topic has both results and judgments (trec_eval 10 exits 7)", exit_code=7)
        return TrecEvalResult(tuple(lines), error)
    if options.summary:
        topics = len(qrels.topics) if options.complete else evaluated
        positive = lambda: sum(1 for docs in qrels.topics.values() for _, grade in docs if grade > 0)  # noqa: E731
        for measure, total in zip(measures, totals, strict=True):
            lines.extend(summary_lines(measure, total, topics, evaluated, options, run.run_id, positive))
    return TrecEvalResult(tuple(lines))


def _missing(query_id: str, run: TrecEvalRun) -> TrecEvalError:
    return TrecEvalError(
        f"qrels topic {query_id!r} has no results in {run.path}; trec_eval 10 stops here (exit 4) with the "
        f"message \"result qid '{query_id}' not found in qrels\"; add -c to score it 0",
        exit_code=4,
    )


def summary_lines(
    measure: ActiveMeasure,
    total: list[float],
    topics: int,
    evaluated: int,
    options: Options,
    run_id: str,
    positive_judgments: Callable[[], int],
) -> list[OutputLine]:
    """The ``all`` lines of one measure from its totals (``positive_judgments``: qrels grades > 0, for -c)."""
    definition = measure.definition
    if definition.value == RUNID:
        return [OutputLine("runid", "all", run_id, RUNID)]
    if definition.value == STRING:
        return []
    values = list(total)
    if definition.average == MEAN:
        values = [div(v, topics) if topics else v for v in values]
    elif definition.average == GEOMETRIC:
        added = values[0] + (topics - evaluated) * log(MIN_GEO_MEAN) if options.complete else values[0]
        values = [exp(div(added, topics))]
    elif definition.average == NUM_Q:
        values = [float(topics)]
    elif definition.average == NUM_REL and options.complete:
        values = [float(positive_judgments())]
    return [
        OutputLine(name, "all", value, definition.value)
        for name, value in zip(measure.names, values, strict=True)
    ]
