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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.errors import FormatError, ToolkitWarning
from toolkit.formats.numbers import c_atof, c_atol
from toolkit.formats.textfile import BOM, iter_byte_blocks, warn_bom

RUN_COLUMNS = "query_id Q0 doc_id rank score run_tag"
QRELS_COLUMNS = "query_id iteration doc_id relevance"


#: trec_eval's default ``-M``: every result of a topic is ranked.
UNCUT = 2147483647
#: Bytes of the file parsed at a time: the readers stream, holding a block and what the lines keep.
BLOCK = 1 << 20


@dataclass(frozen=True)
class TrecEvalRun:
    """Per topic (sorted by id) its ``(doc_id, score)`` lines sorted by doc id; the run tag of the last line.

    ``twice``: topics that list a doc twice, read without ``-M`` — each with the smallest such doc, the one
    trec_eval names when it stops at the topic; their lines are not kept (``topics`` has them empty).
    """

    topics: dict[str, list[tuple[str, float]]]
    run_id: str
    path: str
    twice: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TrecEvalQrels:
    """Per topic (sorted by id) its ``(doc_id, grade)`` lines sorted by doc id (duplicates kept, in file order).

    ``twice``: topics that judge a doc twice — each with the smallest such doc, the one trec_eval names when
    it stops at the topic; their lines are not kept (``topics`` has them empty), only their count of grades
    > 0 (``positive_twice``, part of ``positive()``).
    """

    topics: dict[str, list[tuple[str, int]]]
    path: str
    twice: dict[str, str] = field(default_factory=dict)
    positive_twice: int = 0

    def positive(self) -> int:
        """Judgments with a grade > 0, every line counted (``num_rel`` under ``-c``)."""
        kept = sum(1 for docs in self.topics.values() for _, grade in docs if grade > 0)
        return kept + self.positive_twice


class _Stream:
    """A file's lines streamed block by block, with the checks ``_load`` made on the whole file, in its order.

    Why streaming: read whole, a gzip bomb of one valid line repeated (5 MB expanding to 2 GiB) took the
    file's size and a Python object per line before trec_eval's duplicate error could be reported.
    Only a limit passed (``open_input``) is raised as it is found — as before, when the whole file was read
    first; a NUL byte, an empty file, a byte-order mark and a line the caller refuses (``refuse``) are
    reported once the file is read, in ``_load``'s order.
    """

    def __init__(self, path: str, data: bytes | None) -> None:
        if data is not None:
            self.shown = "<stdin>"
            self._blocks: Iterator[bytes] = (data[a : a + BLOCK] for a in range(0, len(data), BLOCK))
            self._blocks = _whole_lines(self._blocks)
        else:
            self.shown = os.fsdecode(path.encode("latin-1"))
            self._blocks = iter_byte_blocks(Path(self.shown), block=BLOCK)
        self.size = 0
        self.head = b""
        self.nul: int | None = None  # line of the first NUL byte
        self.problem: FormatError | None = None  # the first line refused

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, line without ``\n``) up to the first NUL byte or refused line, then none — the rest
        of the file is still read, for its limits and its NUL bytes."""
        number = 0
        for block in self._blocks:
            if not self.size:
                self.head = block  # the first line, for a byte-order mark's warning
            self.size += len(block)
            before = number
            nul = block.find(b"\x00") if self.nul is None else -1
            if nul >= 0:
                self.nul = before + block.count(b"\n", 0, nul) + 1
            if self.nul is None and self.problem is None:
                lines = block.split(b"\n")
                if block.endswith(b"\n"):
                    lines.pop()
                for line in lines:
                    number += 1
                    yield number, line
                    if self.problem is not None:
                        break
            number = before + block.count(b"\n")

    def refuse(self, error: FormatError) -> None:
        """The caller's first refused line: reported once the file is read, unless a NUL byte comes first."""
        self.problem = error

    def finish(self) -> None:
        """Raise what ``_load`` raised for the whole file, then the refused line; warn of a byte-order mark."""
        if not self.size:
            raise FormatError(self.shown, None, "empty file (trec_eval 10 cannot read an empty file)")
        if self.nul is not None:
            raise FormatError(
                self.shown,
                self.nul,
                "NUL byte: trec_eval 10 would silently ignore the rest of the file; remove it",
            )
        if self.head.startswith(BOM):
            warn_bom(self.shown, self.head)
        if self.problem is not None:
            raise self.problem


def _whole_lines(blocks: Iterator[bytes]) -> Iterator[bytes]:
    """Blocks cut at line ends (a line's start carried to the next block)."""
    rest = b""
    for block in blocks:
        block = rest + block
        cut = block.rfind(b"\n") + 1
        rest = block[cut:]
        if cut:
            yield block[:cut]
    if rest:
        yield rest


def read_run_as_trec_eval(path: str, *, data: bytes | None = None, max_docs: int = UNCUT) -> TrecEvalRun:
    """A run as ``te_get_trec_results`` reads it; ``FormatError`` where trec_eval stops (it exits 2).

    ``data``: standard input's bytes, when the run comes from there (``path`` is then only its name).
    ``max_docs`` (``-M``): without a cut, a topic that lists a doc twice stops trec_eval whatever else it
    lists, so its lines are not kept — a file repeating one line costs the memory of one (``TrecEvalRun.twice``).
    """
    stream = _Stream(path, data)
    grouped: dict[bytes, list[tuple[bytes, float]]] = {}
    seen: dict[bytes, set[bytes]] | None = {} if max_docs >= UNCUT else None
    twice: dict[bytes, bytes] = {}
    count = 0
    run_id = b""
    for number, line in stream.lines():
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < 6:
            stream.refuse(
                FormatError(
                    stream.shown,
                    number,
                    f"expected 6 columns ({RUN_COLUMNS}), found {len(fields)} (trec_eval 10: 'Malformed line {count + 1}')",
                )
            )
            continue
        qid, doc = fields[0], fields[2]
        run_id = fields[5]
        count += 1
        if seen is not None:
            docs = seen.setdefault(qid, set())
            if doc in docs:
                first = twice.get(qid)
                twice[qid] = doc if first is None or doc < first else first
                grouped[qid] = []  # the topic stops trec_eval: its lines are not needed
                continue
            docs.add(doc)
            if qid in twice:
                continue
        grouped.setdefault(qid, []).append((doc, c_atof(fields[4])))
    stream.finish()
    if not count:
        raise FormatError(
            stream.shown, None, f"no result lines ({RUN_COLUMNS}); trec_eval 10 cannot evaluate it"
        )
    del seen
    topics: dict[str, list[tuple[str, float]]] = {}
    for qid in sorted(
        grouped
    ):  # trec_eval sorts lines by (qid, docno); a stable sort keeps repeats in file order
        docs_of = grouped.pop(qid)
        docs_of.sort(key=lambda d: d[0])
        topics[qid.decode("latin-1")] = [(doc.decode("latin-1"), score) for doc, score in docs_of]
    return TrecEvalRun(
        topics,
        run_id.decode("latin-1"),
        stream.shown,
        {q.decode("latin-1"): d.decode("latin-1") for q, d in twice.items()},
    )


def read_qrels_as_trec_eval(path: str) -> TrecEvalQrels:
    """Qrels as ``te_get_qrels`` reads them; ``FormatError`` where trec_eval stops (it exits 2) or crashes.

    A topic that judges a doc twice stops trec_eval when it is evaluated, so its lines are not kept beyond
    the first duplicate (``TrecEvalQrels.twice``): a file repeating one line costs the memory of one.
    """
    stream = _Stream(path, None)
    rows: list[tuple[bytes, bytes, int]] = []
    seen: dict[bytes, set[bytes]] = {}
    twice: dict[bytes, bytes] = {}
    positive_twice = 0
    grades: dict[bytes, int] = {}
    after_comment = False
    judged = 0
    last = 0
    for number, line in stream.lines():
        last = number
        if not after_comment and line.startswith(b"#"):
            after_comment = (
                True  # trec_eval skips one comment line, then reads the next line whatever it holds
            )
            continue
        if after_comment and line.startswith(b"#"):
            warnings.warn(
                f"{stream.shown}:{number}: trec_eval 10 reads the line after a comment line as a judgment, "
                "even when it is another comment (topic '#'); the drop-in does the same",
                ToolkitWarning,
                stacklevel=2,
            )
        after_comment = False
        fields = line.split()
        if len(fields) != 4:
            what = "a blank line" if not fields else f"{len(fields)} columns"
            stream.refuse(
                FormatError(
                    stream.shown,
                    number,
                    f"expected 4 columns ({QRELS_COLUMNS}), found {what} (trec_eval 10: 'Malformed line "
                    f"{judged + 1}'; it allows no blank lines and only one comment line in a row)",
                )
            )
            continue
        judged += 1
        qid, doc = fields[0], fields[2]
        grade = grades.get(fields[3])
        if grade is None:
            grade = c_atol(fields[3])
            if len(grades) < 4096:  # a qrels file has a few grade texts: each read by atol once
                grades[fields[3]] = grade
        docs = seen.setdefault(qid, set())
        if doc in docs or qid in twice:
            positive_twice += grade > 0
            if doc in docs:
                first = twice.get(qid)
                twice[qid] = doc if first is None or doc < first else first
            docs.add(doc)
            continue
        docs.add(doc)
        rows.append((qid, doc, grade))
    if after_comment and stream.problem is None and stream.nul is None:
        stream.refuse(
            FormatError(
                stream.shown,
                last,
                "a comment on the last line crashes trec_eval 10 (it reads past the end); remove it",
            )
        )
    stream.finish()
    del seen
    rows.sort(key=lambda r: (r[0], r[1]))
    topics: dict[str, list[tuple[str, int]]] = {}
    for qid, doc, grade in rows:
        if qid in twice:
            positive_twice += grade > 0  # the lines kept before the topic's first duplicate
            continue
        topics.setdefault(qid.decode("latin-1"), []).append((doc.decode("latin-1"), grade))
    for qid in twice:
        topics[qid.decode("latin-1")] = []
    topics = {q: topics[q] for q in sorted(topics, key=lambda q: q.encode("latin-1"))}
    return TrecEvalQrels(
        topics,
        stream.shown,
        {q.decode("latin-1"): d.decode("latin-1") for q, d in twice.items()},
        positive_twice,
    )
