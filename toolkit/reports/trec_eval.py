"""trec_eval's output layout: ``measure<TAB>topic<TAB>value``, the measure padded to 22 characters.

``trec-toolkit trec_eval`` prints its lines through ``render_trec_eval``, and ``score --format trec`` through
``render_lines`` after ``scores_lines`` has named the toolkit's measures the way trec_eval names them (``AP`` →
``map``, ``P@5`` → ``P_5``, ``nDCG@10`` → ``ndcg_cut_10``, ``NumRet(rel=1)`` → ``num_rel_ret``), so that every
parser written for trec_eval's output — trectools' ``TrecRes``, shell scripts — reads both. Values are printed
as trec_eval's ``printf`` prints them: ``%6.4f`` (``-nan`` included), counts as ``%ld``, ``relstring`` quoted.
A measure trec_eval has no name for (``RR@10``, ``Judged@10``, any measure at a relevance level other than 1)
keeps its ir_measures name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from toolkit.treceval.cnum import format_fixed, to_long
from toolkit.treceval.evaluate import OutputLine
from toolkit.treceval.measures.base import DOUBLE, LONG, RUNID, STRING

if TYPE_CHECKING:
    from toolkit.scoring import RunScores

#: ir_measures measure NAME → trec_eval name, for measures without a cutoff.
_PLAIN = {
    "AP": "map",
    "RR": "recip_rank",
    "nDCG": "ndcg",
    "Rprec": "Rprec",
    "Bpref": "bpref",
    "infAP": "infAP",
    "SetR": "set_recall",
    "SetAP": "set_map",
    "NumRel": "num_rel",
    "NumQ": "num_q",
}
#: ir_measures measure NAME → trec_eval name stem, for measures with a cutoff (``P@5`` → ``P_5``).
_CUT = {"P": "P", "R": "recall", "AP": "map_cut", "nDCG": "ndcg_cut", "Success": "success"}
_COUNTS = {"NumRel", "NumRet", "NumQ"}


def render_line(line: OutputLine) -> str:
    if line.kind == LONG:
        value = str(to_long(line.value))
    elif line.kind == STRING:
        value = f"'{line.value}'"
    elif line.kind == RUNID:
        value = str(line.value)
    else:
        value = format_fixed(line.value)
    return f"{line.measure:<22}\t{line.query_id}\t{value}\n"


def render_lines(lines: Iterable[OutputLine]) -> str:
    return "".join(render_line(line) for line in lines)


def render_trec_eval(lines: Iterable[OutputLine]) -> bytes:
    """The lines as trec_eval writes them, byte for byte (the drop-in keeps text one character per byte)."""
    return render_lines(lines).encode("latin-1")


def trec_eval_name(measure: str) -> str:
    """The name trec_eval prints for a measure, or the ir_measures name when trec_eval has none."""
    from toolkit.scoring.measures import measure_object

    obj = measure_object(measure)
    params = dict(getattr(obj, "params", {}) or {})
    if params.pop("rel", 1) != 1 or params.pop("judged_only", False) is not False:
        return measure
    cutoff = params.pop("cutoff", None)
    name = str(obj.NAME)
    if cutoff is not None:
        return f"{_CUT[name]}_{cutoff}" if name in _CUT and not params else measure
    if name == "NumRet" and not params:
        return "num_rel_ret" if "rel" in (getattr(obj, "params", {}) or {}) else "num_ret"
    if name == "SetP" and set(params) <= {"relative"}:
        return "set_relative_P" if params.get("relative") else "set_P"
    if name == "SetF" and set(params) <= {"beta"}:
        return f"set_F_{params['beta']}" if "beta" in params and params["beta"] != 1 else "set_F"
    if name == "IPrec" and set(params) == {"recall"}:
        return f"iprec_at_recall_{format_fixed(float(params['recall']), 2, 3)}"
    return _PLAIN.get(name, measure) if not params else measure


def _trec_order(name: str) -> tuple[int, float]:
    """Where trec_eval prints a measure: its table position, then its cutoff (measures it lacks go last)."""
    from toolkit.treceval.measures import TABLE

    best: tuple[int, float] = (len(TABLE), 0.0)
    longest = -1
    for index, definition in enumerate(TABLE):
        root = definition.name
        if (name == root or name.startswith(root + "_")) and len(root) > longest:
            suffix = name[len(root) + 1 :]
            try:
                cutoff = float(suffix) if suffix else 0.0
            except ValueError:
                cutoff = 0.0
            best, longest = (index, cutoff), len(root)
    return best


def scores_lines(results: Sequence[RunScores], *, per_query: bool = False) -> list[OutputLine]:
    """``score``'s values as trec_eval ``-q -c`` prints them: topics (``per_query``) then the ``all`` lines.

    Topics come in trec_eval's order (byte order of the ids) and measures in trec_eval's table order, so the
    lines are the lines trec_eval prints for the same measures; measures it lacks follow in the order given.
    The ``runid`` line carries the run's name. ``NumQ`` is printed in the summary only, as trec_eval does.
    """
    from toolkit.scoring.measures import measure_object

    lines: list[OutputLine] = []
    for scores in results:
        named = [
            (m, trec_eval_name(m), LONG if measure_object(m).NAME in _COUNTS else DOUBLE)
            for m in scores.measures
        ]
        named.sort(key=lambda item: _trec_order(item[1]))
        if per_query:
            for query_id in sorted(scores.query_ids):
                values = scores.per_query[query_id]
                lines.extend(
                    OutputLine(name, query_id, values[m], kind) for m, name, kind in named if name != "num_q"
                )
        lines.append(OutputLine("runid", "all", scores.run, RUNID))
        lines.extend(OutputLine(name, "all", scores.aggregate[m], kind) for m, name, kind in named)
    return lines
