"""Measures: parsed once into ir_measures objects, which every later stage takes and reads.

A measure is an ir_measures object (``RR@10``, ``P(rel=2)@5``, ``nDCG@10``, ``Rprec``): immutable, hashable,
equal when its repr is, and carrying its parameters (``measure.params["cutoff"]``), so no later stage has to
re-read a cutoff or a relevance level out of a string. Its ``str()`` is the name shown everywhere (CLI, JSON,
reports, ``toolkit.toml``) because that spelling round-trips through ``ir_measures.parse_measure``; score
tables (``RunScores``) are keyed by that name. trec_eval's names (``recip_rank``, ``P.5``, ``ndcg_cut.10``,
``map``) are accepted on input so that people can paste what they know, and ``R-Prec`` is an alias of ``Rprec``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from toolkit.errors import UsageError

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

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


def split_measures(spec: Measure | str | Sequence[Measure | str]) -> list[Measure | str]:
    """Split a measures string on spaces and commas outside parentheses/braces (``P(rel=2)@5`` stays whole).

    Measure objects in ``spec`` pass through as they are.
    """
    parts = [spec] if isinstance(spec, str) or not isinstance(spec, Sequence) else list(spec)
    tokens: list[Measure | str] = []
    for part in parts:
        if not isinstance(part, str):
            tokens.append(part)
            continue
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


def measure_object(measure: Measure | str) -> Measure:
    """The ir_measures object of one measure (an object passes through; any accepted spelling is parsed)."""
    if isinstance(measure, str):
        return _parse(measure)
    from ir_measures.measures.base import Measure

    if not isinstance(measure, Measure):
        raise UsageError(f"expected a measure name or an ir_measures measure, got {measure!r}")
    return measure


@lru_cache(maxsize=256)
def _parse(name: str) -> Measure:
    """Parse one spelling; UsageError (with a suggestion) if unknown."""
    import ir_measures

    token = name.strip()
    alias = ALIASES.get(token.lower())
    candidates = [alias] if alias else []
    candidates.append(token)
    for candidate in candidates:
        try:
            measure: Measure = ir_measures.parse_measure(candidate)
            return measure
        except (ValueError, NameError, SyntaxError, TypeError, AttributeError, KeyError):
            pass
    if re.fullmatch(r"[A-Za-z_]+([._][\w.]+)?", token):
        try:
            found = ir_measures.parse_trec_measure(token)
        except (ValueError, NameError, SyntaxError, TypeError, AttributeError, KeyError, IndexError):
            found = []
        if len(found) == 1:
            only: Measure = found[0]
            return only
    lowered = {k.lower(): k for k in _KNOWN}
    close = difflib.get_close_matches(token.lower(), list(lowered), n=1, cutoff=0.6)
    hint = f"did you mean {lowered[close[0]]!r}? " if close else ""
    raise UsageError(f"unknown measure {token!r}; {hint}use ir_measures syntax ({_EXAMPLES})")


def canonical_measure(name: Measure | str) -> str:
    """One measure's name in canonical spelling: ``ndcg_cut.10`` → ``nDCG@10``, ``R-Prec`` → ``Rprec``."""
    return str(measure_object(name))


def parse_measures(spec: Measure | str | Sequence[Measure | str]) -> tuple[Measure, ...]:
    """The measure objects of a measures string or list, in the order given, duplicates dropped.

    Accepts ir_measures syntax (``RR@10 P(rel=2)@5 nDCG@10 AP Rprec Judged@10``), trec_eval names
    (``recip_rank P.5 ndcg_cut.10 map success.5 num_rel num_rel_ret``) and the alias ``R-Prec``, separated by
    spaces or commas, and ir_measures objects. Unknown names raise ``UsageError`` with a suggestion; measures
    the pytrec_eval-based scorer cannot compute raise ``UsageError`` too, so that a bad name fails before any
    file is read. ``str()`` of each is its canonical name.
    """
    from toolkit.scoring.plan import check_supported

    tokens = split_measures(spec)
    if not tokens:
        raise UsageError(f"no measures given; name at least one ({_EXAMPLES})")
    out: dict[Measure, None] = {}
    for token in tokens:
        obj = measure_object(token)
        check_supported(obj, str(token))
        out.setdefault(obj, None)
    return tuple(out)


def parse_measure(spec: Measure | str) -> Measure:
    """Exactly one measure (see ``parse_measures``); UsageError when ``spec`` names none or several."""
    found = parse_measures(spec)
    if len(found) != 1:
        raise UsageError(f"expected one measure, got {len(found)} in {spec!r}; name a single measure")
    return found[0]


def is_count(measure: Measure | str) -> bool:
    """Count measures (``NumRel``, ``NumRet``, ``NumQ``) are summed over topics, as trec_eval's ``all`` does."""
    from ir_measures.measures.base import SumAgg

    return isinstance(measure_object(measure).aggregator(), SumAgg)


def measure_cutoff(measure: Measure | str) -> int | None:
    """The rank cutoff of a measure (``RR@10`` → 10), None when it looks at the whole ranking."""
    cutoff = measure_object(measure).params.get("cutoff")
    return int(cutoff) if isinstance(cutoff, int) else None
