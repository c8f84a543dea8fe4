"""Read and write runs, qrels and topic sets from Python: files, and whatever else the API takes.

The readers are ``toolkit.formats.interop``'s converters, so ``read_run`` takes a TREC run file and also a
DataFrame, a pytrec_eval dict, a ``ranx.Run`` or ir_measures ``ScoredDoc``s — checked as strictly as a file —
and gives back the toolkit's ``Run``. The writers take any of those too, so a PyTerrier result frame becomes a
TREC run file in one call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolkit.errors import UsageError
from toolkit.model import Qrels, Run, TopicSet


def read_run(source: Any, *, name: str | None = None) -> Run:
    """A run from a TREC run file (``.gz`` too) or any run the API takes; ``name`` names it in reports."""
    from toolkit.formats.interop import as_run

    return as_run(source, name=name)


def read_qrels(source: Any, *, name: str | None = None) -> Qrels:
    """Qrels from a TREC qrels file, ``ir_datasets:DATASET_ID``, or any qrels the API takes."""
    from toolkit.formats.interop import as_qrels

    return as_qrels(source, name=name)


def read_topics(source: Any, *, name: str | None = None) -> TopicSet:
    """A topic set from a file (TOML, TSV, TREC SGML/XML, JSONL), ``ir_datasets:DATASET_ID``, a DataFrame,
    a ``{query_id: text}`` dict or ir_datasets queries."""
    from toolkit.formats.interop import as_topics

    return as_topics(source, name=name)


def write_run(run: Any, path: str | Path, *, name: str | None = None, run_tag: str | None = None) -> None:
    """Write ``run`` (anything ``read_run`` takes) as a TREC run file in trec_eval's order, atomically.

    The run tag is ``run_tag``, else the run's own tag, else its name (``name`` overrides it).
    """
    from toolkit.formats.run import write_run as write

    loaded = read_run(run, name=name)
    tag = run_tag or loaded.run_tag or loaded.name
    if not tag or any(c.isspace() for c in tag):
        raise UsageError(
            f"run tag {tag!r} is empty or contains whitespace, which would split the TREC line; pass run_tag="
        )
    write(loaded, path, run_tag=tag)


def write_qrels(qrels: Any, path: str | Path) -> None:
    """Write ``qrels`` (anything ``read_qrels`` takes) as a TREC qrels file, atomically."""
    from toolkit.formats.qrels import write_qrels as write

    write(read_qrels(qrels), path)
