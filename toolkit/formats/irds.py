"""``ir_datasets:DATASET_ID`` as a topic set or a qrels source, wherever a path is accepted (optional extra).

Why a prefix on the path rather than another option: every command and function that takes ``--topics`` or
``--qrels`` then takes a dataset too, with nothing else to learn (``--qrels ir_datasets:vaswani``).

ir_datasets is imported only when such a source is used; without the ``ir_datasets`` extra the error says how
to install it. ir_datasets serves the files it has under ``~/.ir_datasets`` (``IR_DATASETS_HOME``) and, as its
own API does, fetches a public dataset's missing files first; anything that goes wrong inside ir_datasets
(an unknown id, a failed download, a dataset without queries) is reported as one error naming the source.
The records are validated like any other input (``toolkit.formats.interop``): a duplicate judgment is an error, not
a silent overwrite.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError, UsageError
from toolkit.model import Qrels, TopicSet

IRDS_PREFIX = "ir_datasets:"


def is_irds(source: object) -> bool:
    """True for ``ir_datasets:DATASET_ID`` given as a string or a path."""
    return isinstance(source, (str, os.PathLike)) and str(source).startswith(IRDS_PREFIX)


def dataset_id(source: str | Path) -> str:
    return str(source)[len(IRDS_PREFIX) :].strip()


def load_dataset(source: str | Path) -> Any:
    """The ir_datasets dataset a source names; errors say how to install ir_datasets or find an id."""
    name = dataset_id(source)
    if not name:
        raise FormatError(
            source, None, "no dataset id; write ir_datasets:DATASET_ID, e.g. ir_datasets:vaswani"
        )
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(
            f"{source}: ir_datasets is not installed; pip install 'trec-toolkit[ir-datasets]'"
        ) from None
    try:
        return ir_datasets.load(name)
    except KeyError:
        raise FormatError(
            source,
            None,
            f"ir_datasets has no dataset {name!r}; dataset ids are listed at https://ir-datasets.com",
        ) from None


def read_irds_topics(source: str | Path) -> TopicSet:
    """The dataset's queries as a topic set (fields beyond id and text kept as metadata)."""
    from toolkit.formats.interop import topics_from_records

    dataset = load_dataset(source)
    records = _records(source, dataset, "queries")
    return topics_from_records(records, where=str(source), name=dataset_id(source), path=str(source))


def read_irds_qrels(source: str | Path, *, name: str | None = None) -> Qrels:
    """The dataset's qrels."""
    from toolkit.formats.interop import qrels_from_records

    dataset = load_dataset(source)
    records = _records(source, dataset, "qrels")
    return qrels_from_records(records, where=str(source), name=name or dataset_id(source))


def _records(source: str | Path, dataset: Any, kind: str) -> Iterator[Any]:
    try:
        make: Callable[[], Iterable[Any]] = getattr(dataset, f"{kind}_iter")
    except AttributeError:
        raise FormatError(
            source, None, f"this dataset provides no {kind}; pick a dataset id that has {kind}"
        ) from None
    return _guarded(source, kind, make)


def _guarded(source: str | Path, kind: str, make: Callable[[], Iterable[Any]]) -> Iterator[Any]:
    """Iterate ir_datasets' records, turning its failures (downloads, parsing) into one FormatError.

    Only what happens inside ir_datasets is caught (a boundary with a third-party library whose exceptions are
    not a documented set); the cause stays chained for ``--debug``.
    """
    try:
        iterator = iter(make())
    except Exception as exc:
        raise _failure(source, kind, exc) from exc
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except Exception as exc:
            raise _failure(source, kind, exc) from exc
        yield item


def _failure(source: str | Path, kind: str, exc: Exception) -> FormatError:
    return FormatError(
        source, None, f"ir_datasets could not provide the {kind} ({type(exc).__name__}: {exc})"
    )
