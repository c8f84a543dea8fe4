"""TREC run files: ``query_id Q0 doc_id rank score run_tag`` (docs/design.md §5).

The rank column is ignored, as trec_eval ignores it; order comes from the score (desc) and doc_id (desc).
"""

from __future__ import annotations

from pathlib import Path

from toolkit.errors import FormatError
from toolkit.formats.numbers import NumberError, NumberRangeError, parse_score, score_hint
from toolkit.formats.textfile import atomic_write_text, iter_trec_fields, put_once, warn_text_ignored
from toolkit.model import Run, trec_order_key

RUN_COLUMNS = "query_id Q0 doc_id rank score run_tag"
#: A run line (or record) for a doc its query already has (``put_once``'s message).
DUPLICATE_DOC = "duplicate doc {d!r} for query {q!r}; each doc may appear once per query"


def run_name(path: str | Path) -> str:
    """``runs/bm25.run.gz`` → ``bm25``."""
    name = Path(path).name
    for suffix in (".gz", ".run", ".trec", ".txt", ".tsv"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


def read_run(path: str | Path, *, name: str | None = None, strict: bool = False) -> Run:
    """Read and validate a TREC run; any defect raises ``FormatError`` naming ``path:line``.

    Files of six columns a line take a vectorised path (pyarrow's CSV reader, ``toolkit.formats.ranked``) that
    keeps each topic's docs in trec_eval order (``Run.results`` is then a read-only ``RankedResults``).
    Anything else — text after column 6 — and every file with a defect goes through the line-by-line reader,
    which is the definition of the format and names the first bad line. Text after column 6 is ignored as trec_eval ignores
    it, with one ``ToolkitWarning`` counting the lines; ``strict=True`` refuses such lines instead.
    """
    from toolkit.formats.limits import is_small_file

    if is_small_file(path):  # the line reader is quicker than importing the column reader's libraries
        return read_run_lines(path, name=name, strict=strict)
    from toolkit.formats.ranked import RankedResults, read_ranked

    fast = read_ranked(path)
    if fast is not None:
        columns, first, _last = fast
        tag = first.split(b" ")[5].decode("utf-8")
        return Run(results=RankedResults(columns), name=name or run_name(path), path=str(path), run_tag=tag)
    return read_run_lines(path, name=name, strict=strict)


def read_run_lines(path: str | Path, *, name: str | None = None, strict: bool = False) -> Run:
    """The line-by-line reader: the reference semantics of the format, with exact error messages.

    Columns are split on ASCII whitespace and numbers read as C reads them (``toolkit.formats.numbers``), so
    that this reader and trec_eval always see the same tokens and the same values.
    """
    results: dict[str, dict[str, float]] = {}
    tag: str | None = None
    count = 0
    extra: list[int] = []
    for number, parts in iter_trec_fields(path):
        if len(parts) != 6 and (len(parts) < 6 or strict):
            if len(parts) > 6:
                hint = "; text after column 6 is refused with --strict (trec_eval ignores it)"
            elif len(parts) == 4 and count == 0:  # the file's first line, not one bad line among good ones
                from toolkit.formats.qrels import QRELS_COLUMNS

                hint = f" — a qrels line ({QRELS_COLUMNS})? did you swap the run and the qrels?"
            else:
                hint = ""
            raise FormatError(path, number, f"expected 6 columns ({RUN_COLUMNS}), found {len(parts)}{hint}")
        if len(parts) > 6:
            extra.append(number)
        query_id, _q0, doc_id, _rank, score_text, run_tag = parts[:6]
        try:
            score = parse_score(score_text)
        except NumberRangeError:
            raise FormatError(
                path, number, f"score {score_text!r} in column 5 is out of range for a double"
            ) from None
        except NumberError:
            raise FormatError(
                path,
                number,
                f"expected a numeric score in column 5, found {score_text!r}{score_hint(score_text)}",
            ) from None
        put_once(results, query_id, doc_id, score, path=path, number=number, duplicate=DUPLICATE_DOC)
        tag = tag or run_tag
        count += 1
    if count == 0:
        raise FormatError(path, None, f"empty run: no result lines ({RUN_COLUMNS})")
    warn_text_ignored(path, extra, 6, ", as trec_eval ignores it (--strict refuses such lines)")
    return Run(results=results, name=name or run_name(path), path=str(path), run_tag=tag)


def format_run(run: Run, *, run_tag: str | None = None) -> str:
    """The run as TREC text in trec_eval order with ranks 1..n; scores written so they round-trip."""
    tag = run_tag or run.run_tag or run.name
    out: list[str] = []
    for query_id, docs in run.results.items():
        ordered = sorted(docs.items(), key=trec_order_key, reverse=True)
        for rank, (doc_id, score) in enumerate(ordered, start=1):
            out.append(f"{query_id} Q0 {doc_id} {rank} {score!r} {tag}\n")
    return "".join(out)


def write_run(run: Run, path: str | Path, *, run_tag: str | None = None) -> None:
    """Write a run atomically (``.gz`` compresses)."""
    atomic_write_text(path, format_run(run, run_tag=run_tag))
