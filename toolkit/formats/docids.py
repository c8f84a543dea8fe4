"""Doc-id lists: one document id per line (``truth --doc-ids``, e.g. every id of a corpus).

Blank lines and ``#`` comments are skipped; ``-`` reads standard input. A doc id never contains
whitespace (TREC files split on it), so a line that does is an error at its line rather than an id that
can never match.
"""

from __future__ import annotations

import sys
from pathlib import Path

from toolkit.errors import FormatError
from toolkit.formats.textfile import iter_data_lines


def read_doc_ids(path: str | Path) -> list[str]:
    """One doc id per line (``-`` = stdin); blank lines and ``#`` comments skipped."""
    if str(path) == "-":
        lines = list(iter_data_lines("<stdin>", stream=sys.stdin.buffer))
    else:
        lines = list(iter_data_lines(path))
    ids = []
    for number, line in lines:
        if any(c.isspace() for c in line):
            raise FormatError(
                path, number, f"expected one doc id per line, found {line!r} (doc ids have no spaces)"
            )
        ids.append(line)
    if not ids:
        raise FormatError(path, None, "no doc ids; expected one doc id per line")
    return ids
