"""trec_eval's output layout: ``measure<TAB>topic<TAB>value``, the measure padded to 22 characters.

``trec-toolkit trec_eval`` prints its lines through ``render_trec_eval``, and ``score --format trec`` through
``render_lines`` after ``scores_lines`` has named the toolkit's measures the way trec_eval names them (``AP`` →
``map``, ``P@5`` → ``P_5``, ``nDCG@10`` → ``ndcg_cut_10``, ``NumRet(rel=1)`` → ``num_rel_ret``) — names read off
the measure table, not a map of their own — so that every parser written for trec_eval's output — trectools'
``TrecRes``, shell scripts — reads both. Values are printed as trec_eval's ``printf`` prints them: ``%6.4f``
(``-nan`` included), counts as ``%ld``, ``relstring`` quoted. A measure trec_eval has no name for (``RR@10``,
``Judged@10``, any measure at a relevance level other than 1) keeps its own name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.treceval.cnum import format_fixed, to_long
from toolkit.treceval.evaluate import OutputLine
from toolkit.treceval.measures.base import DOUBLE, LONG, RUNID, STRING

if TYPE_CHECKING:
    from toolkit.scoring import RunScores


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


@dataclass(frozen=True)
class _Named:
    """How one of ``score``'s measures is printed: trec_eval's name, value kind, table position, per topic."""

    measure: str
    name: str
    kind: str
    order: tuple[int, tuple[float, ...]]
    per_topic: bool


def _named(measure: str, position: int) -> _Named:
    """The measure table says it all: the row (``toolkit.scoring.table.locate``) gives trec_eval's printed
    name, how the value prints and where trec_eval prints it; a measure trec_eval lacks keeps its name and
    follows trec_eval's, in the order given."""
    from toolkit.scoring.measures import is_count, measure_object
    from toolkit.scoring.table import locate
    from toolkit.treceval.measures import TABLE

    obj = measure_object(measure)
    located = locate(obj)
    if located is None or located.trec_name is None:
        kind = LONG if is_count(obj) else DOUBLE
        return _Named(measure, measure, kind, (len(TABLE), (float(position),)), True)
    row = located.row
    numbers = tuple(float(p) for p in located.params if isinstance(p, int | float))
    return _Named(measure, located.trec_name, row.value, (TABLE.index(row), numbers), row.per_topic)


def trec_eval_name(measure: str) -> str:
    """The name trec_eval prints for a measure, or the toolkit's name when trec_eval has none."""
    return _named(measure, 0).name


def scores_lines(results: Sequence[RunScores], *, per_query: bool = False) -> list[OutputLine]:
    """``score``'s values as trec_eval ``-q -c`` prints them: topics (``per_query``) then the ``all`` lines.

    Topics come in trec_eval's order (byte order of the ids) and measures in trec_eval's table order, so the
    lines are the lines trec_eval prints for the same measures; measures it lacks follow in the order given.
    The ``runid`` line carries the run's name. Measures trec_eval prints in the summary only (``num_q``,
    ``gm_map``, ``gm_bpref``) have no topic lines, as in trec_eval.
    """
    lines: list[OutputLine] = []
    for scores in results:
        named = sorted((_named(m, i) for i, m in enumerate(scores.measures)), key=lambda n: n.order)
        if per_query:
            for query_id in sorted(scores.query_ids):
                values = scores.per_query[query_id]
                lines.extend(
                    OutputLine(n.name, query_id, values[n.measure], n.kind) for n in named if n.per_topic
                )
        lines.append(OutputLine("runid", "all", scores.run, RUNID))
        lines.extend(OutputLine(n.name, "all", scores.aggregate[n.measure], n.kind) for n in named)
    return lines
