"""Run and qrels files read exactly as trec_eval 10 reads them — for the ``trec-toolkit trec_eval`` drop-in.

``read_run``/``read_qrels`` are the toolkit's strict readers. trec_eval's own readers (``get_trec_results.c``,
``get_qrels.c``) accept more and refuse other things, and a drop-in must do what they do:

* run lines need at least 6 columns (text after column 6 is ignored); a line whose first non-blank character
  is ``#`` is a comment; blank lines are skipped; the score is read with ``atof`` (``1_0`` → 1, ``abc`` → 0,
  ``inf``, hex); the run tag printed is the last line's. A doc listed twice in a topic is an error only when
  that topic is evaluated (``toolkit.treceval``);
* qrels lines need exactly 4 columns and a blank line is malformed; a ``#`` in column 1 makes a comment line,
  but the line after a comment is always read as a judgment — a second comment line in a row becomes topic
  ``#`` (warned about here); the grade is read with ``atol``;
* topics come out sorted by id and each topic's lines by doc id, byte order (``strcmp``), as trec_eval sorts.

Where trec_eval crashes or reads garbage (a NUL byte ends its view of the file; a comment as the last qrels
line crashes it; a run with no result line prints an uninitialised run tag) this reader refuses with a clear
``path:line`` error instead. ``.gz`` is read too (trec_eval itself has no gzip), and the run may come from
standard input (the caller passes its bytes). A UTF-8 byte order mark stays part of the first column, as in
trec_eval, with a warning naming the file. Text is kept one character per byte (latin-1), so ids compare and print as bytes.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import FormatError, ToolkitWarning
from toolkit.formats.numbers import c_atof, c_atol
from toolkit.formats.textfile import BOM, read_bytes, warn_bom

RUN_COLUMNS = "query_id Q0 doc_id rank score run_tag"
QRELS_COLUMNS = "query_id iteration doc_id relevance"


@dataclass(frozen=True)
class TrecEvalRun:
    """Per topic (sorted by id) its ``(doc_id, score)`` lines sorted by doc id; the run tag of the last line."""

    topics: dict[str, list[tuple[str, float]]]
    run_id: str
    path: str


@dataclass(frozen=True)
class TrecEvalQrels:
    """Per topic (sorted by id) its ``(doc_id, grade)`` lines sorted by doc id (duplicates kept, in file order)."""

    topics: dict[str, list[tuple[str, int]]]
    path: str


def _load(path: str, data: bytes | None = None) -> tuple[bytes, str]:
    """The file's bytes (gunzipped, within the input limits) and the name to show.

    ``data``: standard input's bytes, already read by ``read_bytes`` (so gunzipped and limited), when the run
    comes from there; which argument means standard input is trec_eval's rule, applied by the caller
    (``toolkit.treceval``). A path is always a file, ``-`` included.
    """
    if data is not None:
        shown, raw = "<stdin>", data
    else:
        shown = os.fsdecode(path.encode("latin-1"))
        raw = read_bytes(Path(shown))
    if not raw:
        raise FormatError(shown, None, "empty file (trec_eval 10 cannot read an empty file)")
    nul = raw.find(b"\x00")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        raise FormatError(
            shown, line, "NUL byte: trec_eval 10 would silently ignore the rest of the file; remove it"
        )
    if raw.startswith(BOM):
        warn_bom(shown, raw)
    return raw, shown


def _lines(raw: bytes) -> list[bytes]:
    if not raw.endswith(b"\n"):
        raw += b"\n"
    return raw.split(b"\n")[:-1]


def read_run_as_trec_eval(path: str, *, data: bytes | None = None) -> TrecEvalRun:
    """A run as ``te_get_trec_results`` reads it; ``FormatError`` where trec_eval stops (it exits 2).

    ``data``: standard input's bytes, when the run comes from there (``path`` is then only its name).
    """
    raw, shown = _load(path, data)
    grouped: dict[bytes, list[tuple[bytes, float]]] = {}
    count = 0
    run_id = b""
    for number, line in enumerate(_lines(raw), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < 6:
            raise FormatError(
                shown,
                number,
                f"expected 6 columns ({RUN_COLUMNS}), found {len(fields)} (trec_eval 10: 'Malformed line {count + 1}')",
            )
        grouped.setdefault(fields[0], []).append((fields[2], c_atof(fields[4])))
        run_id = fields[5]
        count += 1
    del raw
    if not count:
        raise FormatError(shown, None, f"no result lines ({RUN_COLUMNS}); trec_eval 10 cannot evaluate it")
    topics: dict[str, list[tuple[str, float]]] = {}
    for qid in sorted(
        grouped
    ):  # trec_eval sorts lines by (qid, docno); a stable sort keeps repeats in file order
        docs = grouped.pop(qid)
        docs.sort(key=lambda d: d[0])
        topics[qid.decode("latin-1")] = [(doc.decode("latin-1"), score) for doc, score in docs]
    return TrecEvalRun(topics, run_id.decode("latin-1"), shown)


def read_qrels_as_trec_eval(path: str) -> TrecEvalQrels:
    """Qrels as ``te_get_qrels`` reads them; ``FormatError`` where trec_eval stops (it exits 2) or crashes."""
    raw, shown = _load(path)
    lines = _lines(raw)
    rows: list[tuple[bytes, bytes, int]] = []
    number = 0
    while number < len(lines):
        if lines[number].startswith(b"#"):
            number += 1  # trec_eval skips one comment line, then reads the next line whatever it holds
            if number == len(lines):
                raise FormatError(
                    shown,
                    number,
                    "a comment on the last line crashes trec_eval 10 (it reads past the end); remove it",
                )
            if lines[number].startswith(b"#"):
                warnings.warn(
                    f"{shown}:{number + 1}: trec_eval 10 reads the line after a comment line as a judgment, "
                    "even when it is another comment (topic '#'); the drop-in does the same",
                    ToolkitWarning,
                    stacklevel=2,
                )
        fields = lines[number].split()
        number += 1
        if len(fields) != 4:
            what = "a blank line" if not fields else f"{len(fields)} columns"
            raise FormatError(
                shown,
                number,
                f"expected 4 columns ({QRELS_COLUMNS}), found {what} (trec_eval 10: 'Malformed line "
                f"{len(rows) + 1}'; it allows no blank lines and only one comment line in a row)",
            )
        rows.append((fields[0], fields[2], c_atol(fields[3])))
    rows.sort(key=lambda r: (r[0], r[1]))
    topics: dict[str, list[tuple[str, int]]] = {}
    for qid, doc, grade in rows:
        topics.setdefault(qid.decode("latin-1"), []).append((doc.decode("latin-1"), grade))
    return TrecEvalQrels(topics, shown)
