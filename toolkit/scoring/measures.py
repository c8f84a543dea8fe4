"""Measure names: parse ir_measures syntax and trec_eval names into one canonical spelling.

A measure is named everywhere (CLI, JSON, reports, ``toolkit.toml``) by the ``str()`` of its ir_measures object
(``RR@10``, ``P(rel=2)@5``, ``nDCG@10``, ``Rprec``), because that spelling round-trips through
``ir_measures.parse_measure``. trec_eval's names (``recip_rank``, ``P.5``, ``ndcg_cut.10``, ``map``) are
accepted on input so that people can paste what they know, and ``R-Prec`` is an alias of ``Rprec``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from toolkit.errors import UsageError

#: Spellings accepted on input that neither ir_measures nor trec_eval parses.
ALIASES: dict[str, str] = {"r-prec": "Rprec", "rprec": "Rprec", "mrr": "RR", "ndcg": "nDCG", "ap": "AP"}

_EXAMPLES = "RR@10, P@5, nDCG@10, AP, Rprec, P(rel=2)@5, Judged@10 or trec_eval names recip_rank, P.5, ndcg_cut.10, map"
_KNOWN = [
    "RR@10",
    "RR",
    "P@1",
    "P@5",
    "P@10",
    "nDCG",
    "nDCG@10",
    "AP",
    "Rprec",
    "R@100",
    "Bpref",
    "Success@1",
    "Judged@10",
    "NumRel",
    "NumRet",
    "recip_rank",
    "P.5",
    "ndcg_cut.10",
    "map",
    "bpref",
    "success.1",
    "num_rel",
    "num_ret",
    "num_rel_ret",
    "R-Prec",
]


def split_measures(spec: str | Sequence[str]) -> list[str]:
    """Split a measures string on spaces and commas outside parentheses/braces (``P(rel=2)@5`` stays whole)."""
    parts = [spec] if isinstance(spec, str) else list(spec)
    tokens: list[str] = []
    for part in parts:
        depth = 0
        current = ""
        for char in str(part):
            if char in "({[":
                depth += 1
            elif char in ")}]":
                depth -= 1
            if depth == 0 and (char.isspace() or char == ","):
                if current:
                    tokens.append(current)
                current = ""
            else:
                current += char
        if current:
            tokens.append(current)
    return tokens


@lru_cache(maxsize=256)
def measure_object(name: str) -> Any:
    """The ir_measures object of one measure name (any accepted spelling); UsageError if unknown."""
    import ir_measures

    token = name.strip()
    alias = ALIASES.get(token.lower())
    candidates = [alias] if alias else []
    candidates.append(token)
    for candidate in candidates:
        try:
            return ir_measures.parse_measure(candidate)
        except (ValueError, NameError, SyntaxError, TypeError, AttributeError, KeyError):
            pass
    if re.fullmatch(r"[A-Za-z_]+([._][\w.]+)?", token):
        try:
            found = ir_measures.parse_trec_measure(token)
        except (ValueError, NameError, SyntaxError, TypeError, AttributeError, KeyError, IndexError):
            found = []
        if len(found) == 1:
            return found[0]
    lowered = {k.lower(): k for k in _KNOWN}
    close = difflib.get_close_matches(token.lower(), list(lowered), n=1, cutoff=0.6)
    hint = f"did you mean {lowered[close[0]]!r}? " if close else ""
    raise UsageError(f"unknown measure {token!r}; {hint}use ir_measures syntax ({_EXAMPLES})")


def canonical_measure(name: str) -> str:
    """One measure name in canonical spelling: ``ndcg_cut.10`` → ``nDCG@10``, ``R-Prec`` → ``Rprec``."""
    return str(measure_object(name))


def parse_measures(spec: str | Sequence[str]) -> tuple[str, ...]:
    """Canonical names of a measures string or list, in the order given, duplicates dropped.

    Accepts ir_measures syntax (``RR@10 P(rel=2)@5 nDCG@10 AP Rprec Judged@10``), trec_eval names
    (``recip_rank P.5 ndcg_cut.10 map success.5 num_rel num_rel_ret``) and the alias ``R-Prec``, separated by
    spaces or commas. Unknown names raise ``UsageError`` with a suggestion; measures the pytrec_eval-based
    scorer cannot compute raise ``UsageError`` too, so that a bad name fails before any file is read.
    """
    from toolkit.scoring.plan import check_supported

    tokens = split_measures(spec)
    if not tokens:
        raise UsageError(f"no measures given; name at least one ({_EXAMPLES})")
    out: dict[str, None] = {}
    for token in tokens:
        obj = measure_object(token)
        check_supported(obj, token)
        out.setdefault(str(obj), None)
    return tuple(out)


def is_count(name: str) -> bool:
    """Count measures (``NumRel``, ``NumRet``, ``NumQ``) are summed over topics, as trec_eval's ``all`` does."""
    from ir_measures.measures.base import SumAgg

    return isinstance(measure_object(name).aggregator(), SumAgg)


def measure_cutoff(name: str) -> int | None:
    """The rank cutoff of a measure (``RR@10`` → 10), None when it looks at the whole ranking."""
    obj = measure_object(name)
    params = getattr(obj, "params", {}) or {}
    cutoff = params.get("cutoff")
    return int(cutoff) if isinstance(cutoff, int) else None
