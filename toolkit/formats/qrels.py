"""TREC qrels files: ``query_id iteration doc_id relevance`` (docs/design.md §5)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.irds import is_irds, read_irds_qrels
from toolkit.formats.numbers import NumberError, NumberRangeError, grade_hint, parse_grade
from toolkit.formats.ranked import ByTopic
from toolkit.formats.run import RUN_COLUMNS
from toolkit.formats.textfile import atomic_write_text, iter_trec_fields, put_once, warn_text_ignored
from toolkit.model import Qrels

QRELS_COLUMNS = "query_id iteration doc_id relevance"
#: A qrels line for a (query, doc) pair already judged (``put_once``'s message).
DUPLICATE_JUDGMENT = "duplicate judgment of doc {d!r} for query {q!r}; keep one line per (query, doc)"


def qrels_name(path: str | Path) -> str:
    name = Path(path).name
    for suffix in (".gz", ".qrels", ".txt", ".tsv"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


def read_qrels(path: str | Path, *, name: str | None = None) -> Qrels:
    """Read and validate TREC qrels; any defect raises ``FormatError`` naming ``path:line``.

    Grades are ASCII integers within 64 bits, read as C's ``atol`` reads them (``toolkit.formats.numbers``).
    """
    if is_irds(path):  # ir_datasets:DATASET_ID (toolkit.formats.irds)
        return read_irds_qrels(path, name=name)
    refuse_campaign(path)
    from toolkit.formats.limits import is_small_file

    if is_small_file(path):  # the line reader is quicker than importing the column reader's libraries
        return read_qrels_lines(path, name=name)
    columns = read_judgment_columns(path)
    if columns is not None and not columns.duplicates:
        return Qrels(judgments=JudgmentsView(columns), name=name or qrels_name(path), path=str(path))
    return read_qrels_lines(path, name=name)


def read_qrels_lines(path: str | Path, *, name: str | None = None) -> Qrels:
    """The line-by-line reader: the reference semantics of the format, with exact error messages.

    Text after column 4 is ignored with one ``ToolkitWarning`` counting the lines, as ``read_run`` ignores
    text after column 6: a fifth column is most often the inclusion probability of sampled qrels (TREC Legal's
    ``.probs``), which ``toolkit.formats.sampled`` reads. Six columns on the first line are refused instead:
    that is a run passed as qrels, and reading its rank column as grades would give silent wrong numbers.
    """
    judgments: dict[str, dict[str, int]] = {}
    count = 0
    extra: list[int] = []
    for number, parts in iter_trec_fields(path):
        if len(parts) < 4 or (len(parts) == 6 and count == 0):
            swapped = f" — a run line ({RUN_COLUMNS})? did you swap the run and the qrels?"
            hint = swapped if len(parts) == 6 else ""  # six columns on the first line: a run file
            raise FormatError(path, number, f"expected 4 columns ({QRELS_COLUMNS}), found {len(parts)}{hint}")
        if len(parts) > 4:
            extra.append(number)
        query_id, _iteration, doc_id, rel_text = parts[:4]
        relevance = read_relevance(path, number, rel_text)
        put_once(
            judgments, query_id, doc_id, relevance, path=path, number=number, duplicate=DUPLICATE_JUDGMENT
        )
        count += 1
    if count == 0:
        raise FormatError(path, None, f"empty qrels: no judgment lines ({QRELS_COLUMNS})")
    warn_text_ignored(
        path, extra, 4, " (a fifth column of inclusion probabilities is read by `score` as sampled qrels)"
    )
    return Qrels(judgments=judgments, name=name or qrels_name(path), path=str(path))


def read_relevance(path: str | Path, number: int, rel_text: str) -> int:
    """Column 4 of a qrels line (plain or sampled) as a grade, or the ``FormatError`` that says what is wrong."""
    try:
        return parse_grade(rel_text)
    except NumberRangeError as exc:
        raise FormatError(path, number, f"relevance {rel_text!r} is {exc.reason}") from None
    except NumberError:
        raise FormatError(
            path,
            number,
            f"expected an integer relevance in column 4, found {rel_text!r}{grade_hint(rel_text)}",
        ) from None


def refuse_campaign(path: str | Path) -> None:
    """A judging campaign (an SQLite file) passed where qrels belong: say how to get qrels out of it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return  # the reader reports it
    if head == b"SQLite format 3\x00":
        target = f"qrels/{Path(path).stem}-human.qrels"  # not NAME.qrels: that may be the regex truth
        raise FormatError(
            path, None, f"this is a campaign; export qrels first: trec-toolkit export {path} -o {target}"
        )


def format_qrels(qrels: Qrels) -> str:
    out: list[str] = []
    for query_id, docs in qrels.judgments.items():
        for doc_id, rel in docs.items():
            out.append(f"{query_id} 0 {doc_id} {rel}\n")
    return "".join(out)


def write_qrels(qrels: Qrels, path: str | Path) -> None:
    """Write qrels atomically in the order held (callers sort when they want a canonical file)."""
    atomic_write_text(path, format_qrels(qrels))


QRELS_NAMES = ["query_id", "iteration", "doc_id", "relevance"]


@dataclass(frozen=True, eq=False)
class JudgmentColumns:
    """Qrels column-wise: row i judges ``docs[i]`` for topic ``topics[codes[i]]`` with ``grades[i]``.

    ``keys[i]`` hashes (topic, doc) as ``toolkit.formats.ranked`` hashes run rows, so that a run and its qrels
    join on equal keys. ``duplicates`` says whether some (topic, doc) is judged twice, ``clash`` whether two
    rows share a key at all. Topics are in order of
    first appearance; a ``binary`` file's ids are read as bytes and decoded as latin-1 (the drop-in's reading).
    """

    topics: tuple[str, ...]
    codes: Any
    docs: Any
    grades: Any
    keys: Any
    duplicates: bool
    binary: bool = False
    #: two rows share a key (a duplicate, or a hash collision): a join on keys could miss, so none is made
    clash: bool = False
    #: lines in the file, blank and comment lines included (more than the rows when it has such lines)
    lines: int = 0

    def doc_ids(self, rows: Any) -> list[str]:
        from toolkit.formats.tables import arrow, take

        values = take(self.docs, arrow(rows)).to_pylist()
        return [v.decode("latin-1") for v in values] if self.binary else values


def read_judgment_columns(
    path: str | Path, *, data: bytes | None = None, binary: bool = False
) -> JudgmentColumns | None:
    """Qrels read column-wise by pyarrow (``toolkit.formats.tables``), or None to use a line reader.

    Grades are read as text and converted once per distinct value — strictly (``parse_grade``), or with
    ``atol`` when ``binary`` (the drop-in) — so that no grade is read the way Arrow would (``0x10`` is 16 there).
    """
    import numpy as np
    import pyarrow as pa

    from toolkit.formats.numbers import NumberError, c_atol
    from toolkit.formats.ranked import dictionary_codes, has_duplicates
    from toolkit.formats.tables import Irregular, numbers, pool, read_table

    text = pa.binary() if binary else pa.string()
    types = {
        "query_id": pa.dictionary(pa.int32(), text),
        "doc_id": text,
        "relevance": pa.dictionary(pa.int32(), pa.binary()),
    }
    try:
        read = read_table(path, QRELS_NAMES, types, data=data, keyed=("query_id", "doc_id"))
    except Irregular:
        return None
    table, keys, lines = read.table, read.keys, read.lines
    del read
    codes, dictionary = dictionary_codes(table.column("query_id"))
    values = dictionary.to_pylist()
    topics = tuple(v.decode("latin-1") for v in values) if binary else tuple(values)
    relevance = table.column("relevance").unify_dictionaries(memory_pool=pool())
    try:
        table_of = [
            c_atol(t) if binary else parse_grade(t) for t in relevance.chunk(0).dictionary.to_pylist()
        ]
    except NumberError:
        return None
    grade_of = np.array(table_of, np.int64)
    grades = grade_of[numbers(relevance)]
    docs = table.column("doc_id").combine_chunks(memory_pool=pool())
    del table

    def same(i: int, j: int) -> bool:
        return bool(codes[i] == codes[j] and docs[i].as_py() == docs[j].as_py())

    ordered = np.sort(keys)
    clash = bool((ordered[1:] == ordered[:-1]).any())  # a duplicate, or two judgments with one hash
    del ordered
    return JudgmentColumns(
        topics, codes, docs, grades, keys, clash and has_duplicates(keys, same), binary, clash, lines
    )


class JudgmentsView(ByTopic[Mapping[str, int]]):
    """``query_id → {doc_id: grade}`` over ``JudgmentColumns``, each topic's dict built when first asked for."""

    def __init__(self, columns: JudgmentColumns) -> None:
        import numpy as np

        super().__init__(columns.topics)
        self.columns = columns
        order = np.argsort(columns.codes, kind="stable")
        counts = np.bincount(columns.codes, minlength=len(columns.topics))
        self._rows = order
        self._starts = np.concatenate(([0], np.cumsum(counts)))
        self._cache: dict[str, dict[str, int]] = {}

    def __getitem__(self, query_id: str) -> dict[str, int]:
        found = self._cache.get(query_id)
        if found is None:
            t = self._index[query_id]
            rows = self._rows[self._starts[t] : self._starts[t + 1]]
            found = dict(zip(self.columns.doc_ids(rows), self.columns.grades[rows].tolist(), strict=True))
            self._cache[query_id] = found
        return found
