"""trec-toolkit: audit-grade search evaluation the TREC way.

The package is a library first; ``toolkit.cli`` and ``toolkit.tui`` are thin shells over it.
Heavy dependencies (pandas, scipy, textual, pytrec_eval) are imported inside the functions that need
them so that ``trec-toolkit --help`` and small commands start instantly.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
