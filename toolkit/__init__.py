"""trec-toolkit: audit-grade search evaluation the TREC way.

The package is a library first; ``toolkit.cli`` and ``toolkit.tui`` are thin shells over it. Its public face
(docs/python-api.md)::

    import toolkit

    run = toolkit.read_run("runs/bm25.run")                  # or a DataFrame, a dict, a ranx.Run …
    scores = toolkit.score([run, frame], "qrels/x.qrels", measures="RR@10 nDCG@10")   # tidy DataFrame
    result = toolkit.compare({"bm25": run, "dense": frame}, qrels, topics="topics/x.toml")
    result.to_dataframe(), result.to_markdown(), result          # a notebook shows the HTML report
    toolkit.agree(toolkit.Campaign.open("judging/x.sqlite")).to_dataframe()

The names are imported on first use (module ``__getattr__``), so ``import toolkit`` — and with it every
``trec-toolkit`` command, ``--help`` included — loads neither pandas, scipy, ir_measures nor textual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name → the module of ``toolkit.api`` that defines it.
_API = {
    "read_run": "toolkit.api.files",
    "read_qrels": "toolkit.api.files",
    "read_topics": "toolkit.api.files",
    "write_run": "toolkit.api.files",
    "write_qrels": "toolkit.api.files",
    "score": "toolkit.api.evaluation",
    "compare": "toolkit.api.evaluation",
    "agree": "toolkit.api.evaluation",
    "ComparisonResult": "toolkit.api.results",
    "AgreementResult": "toolkit.api.results",
    "Campaign": "toolkit.api.campaign",
}

__all__ = [
    "AgreementResult",
    "Campaign",
    "ComparisonResult",
    "__version__",
    "agree",
    "compare",
    "read_qrels",
    "read_run",
    "read_topics",
    "score",
    "write_qrels",
    "write_run",
]

if TYPE_CHECKING:
    from toolkit.api.campaign import Campaign
    from toolkit.api.evaluation import agree, compare, score
    from toolkit.api.files import read_qrels, read_run, read_topics, write_qrels, write_run
    from toolkit.api.results import AgreementResult, ComparisonResult


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
