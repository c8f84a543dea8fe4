"""trec_eval's output layout: ``measure<TAB>topic<TAB>value``, the measure padded to 22 characters.

``trec-toolkit trec_eval`` prints its lines through ``render_trec_eval``, and so does ``score --format trec``
(``scores_lines`` names the toolkit's measures the way trec_eval names them), so that every parser written
for trec_eval's output — trectools' ``TrecRes``, shell scripts — reads both. Values are printed as trec_eval's
``printf`` prints them: ``%6.4f`` (``-nan`` included), counts as ``%ld``, ``relstring`` quoted.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolkit.treceval.cnum import format_fixed, to_long
from toolkit.treceval.evaluate import OutputLine
from toolkit.treceval.measures.base import LONG, RUNID, STRING


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


def render_trec_eval(lines: Iterable[OutputLine]) -> bytes:
    """The lines as trec_eval writes them, byte for byte (text is kept one character per byte)."""
    return "".join(render_line(line) for line in lines).encode("latin-1")


__all__ = ["render_line", "render_trec_eval"]
