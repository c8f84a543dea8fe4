"""Measures: parsed once into ir_measures objects, which every later stage takes and reads.

A measure is an ir_measures object (``RR@10``, ``P(rel=2)@5``, ``nDCG@10``, ``Rprec``, or for a trec_eval
measure ir_measures lacks the measure table's own class, ``gm_map``, ``relative_P@5``): immutable, hashable,
equal when its repr is, and carrying its parameters (``measure.params["cutoff"]``), so no later stage has to
re-read a cutoff or a relevance level out of a string. Its ``str()`` is the name shown everywhere (CLI, JSON,
reports, ``toolkit.toml``) because that spelling reads back to the same object here; score tables
(``RunScores``) are keyed by that name. trec_eval's names with their ``-m`` parameters (``recip_rank``,
``P.5,10``, ``ndcg_cut.10``, ``map``, ``11pt_avg``) are accepted on input so that people can paste what they
know, and ``R-Prec`` is an alias of ``Rprec``. How a spelling maps to a row of the measure table is
``toolkit.scoring.table``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from toolkit.errors import UsageError

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

#: Spellings accepted on input that neither ir_measures nor trec_eval parses.
ALIASES: dict[str, str] = {"r-prec": "Rprec", "rprec": "Rprec", "mrr": "RR", "ndcg": "nDCG", "ap": "AP"}

_EXAMPLES = (
    "RR@10, P@5, nDCG@10, AP, Rprec, ERR@10, P(rel=2)@5, Judged@10 or trec_eval names recip_rank, P.5,10, "
    "ndcg_cut.10, map, gm_map, 11pt_avg"
)

#: A trec_eval parameter list goes on after a comma when the next piece is a number or a ``name=value`` pair.
_PARAMETER = re.compile(r"[-+.0-9]|[^(@=,.\s]*=")
_TREC_DOTTED = re.compile(r"[A-Za-z0-9_]+\.")


def split_measures(spec: Measure | str | Sequence[Measure | str]) -> list[Measure | str]:
    """Split a measures string on spaces and commas outside parentheses/braces (``P(rel=2)@5`` stays whole).

    trec_eval's own lists stay whole too: after ``name.`` a comma followed by a number or a ``name=value`` pair
    goes on with the parameters (``P.5,10``, ``utility.1,-1,0,0``, ``ndcg.1=3,2=9``), as ``-m`` reads them.
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
        text = str(part)
        for index, char in enumerate(text):
            if char in "({[":
                depth += 1
            elif char in ")}]":
                depth -= 1
            if (
                depth == 0
                and char == ","
                and _TREC_DOTTED.match(current)
                and _PARAMETER.match(text, index + 1)
            ):
                current += char
            elif depth == 0 and (char.isspace() or char == ","):
                if current:
                    tokens.append(current)
                current = ""
            else:
                current += char
        if current:
            tokens.append(current)
    return tokens


def measure_object(measure: Measure | str) -> Measure:
    """The one measure object of a spelling (an object passes through); UsageError when it names none or several."""
    if isinstance(measure, str):
        found = _parse(measure)
        if len(found) != 1:
            names = ", ".join(str(m) for m in found)
            raise UsageError(f"{measure!r} names {len(found)} measures ({names}); name one, e.g. {found[0]}")
        return found[0]
    from ir_measures.measures.base import Measure

    if not isinstance(measure, Measure):
        raise UsageError(f"expected a measure name or an ir_measures measure, got {measure!r}")
    return measure


@lru_cache(maxsize=1024)
def _parse(name: str) -> tuple[Measure, ...]:
    """Parse one spelling into its measures (a trec_eval list gives several); UsageError with a suggestion."""
    import ir_measures

    from toolkit.scoring import table

    token = name.strip()
    found = table.from_trec(token)
    if found is not None:
        return found
    own = table.from_own(token)
    if own is not None:
        return (own,)
    alias = ALIASES.get(token.lower())
    for candidate in [alias, token] if alias else [token]:
        try:
            measure: Measure = ir_measures.parse_measure(candidate)
        except (ValueError, NameError, SyntaxError, TypeError, AttributeError, KeyError):
            continue
        table.locate(measure)  # a table measure with a parameter out of range says so, in its words
        try:
            measure.validate_params()
        except AssertionError as exc:
            detail = re.sub(r"<object object at 0x[0-9a-f]+>", "missing", str(exc))
            raise UsageError(f"{token!r}: {detail}") from None
        return (measure,)
    known = table.spellings() + ["RR@10", "P@5", "nDCG@10", "ERR@10", "Judged@10", "R-Prec"]
    lowered = {k.lower(): k for k in known}
    import difflib  # only for the hint of an error

    close = difflib.get_close_matches(token.lower(), list(lowered), n=1, cutoff=0.6)
    hint = f"did you mean {lowered[close[0]]!r}? " if close else ""
    raise UsageError(f"unknown measure {token!r}; {hint}use ir_measures syntax ({_EXAMPLES})")


def canonical_measure(name: Measure | str) -> str:
    """One measure's name in canonical spelling: ``ndcg_cut.10`` → ``nDCG@10``, ``R-Prec`` → ``Rprec``."""
    return str(measure_object(name))


def parse_measures(spec: Measure | str | Sequence[Measure | str]) -> tuple[Measure, ...]:
    """The measure objects of a measures string or list, in the order given, duplicates dropped.

    Accepts ir_measures syntax (``RR@10 P(rel=2)@5 nDCG@10 AP Rprec ERR@10 Judged@10``), every trec_eval
    name ``score`` computes with its ``-m`` parameters (``recip_rank P.5,10 ndcg_cut.10 map gm_map 11pt_avg
    utility.1,-1,0,0``; a name without parameters stands for its default cutoffs, ``P`` for P@5 … P@1000)
    and the alias ``R-Prec``, separated by spaces or commas, and ir_measures objects. A name that no
    installed provider computes correctly raises ``UsageError`` naming what to use instead, before any file
    is read (``toolkit.scoring.provider``). ``str()`` of each is its canonical name.
    """
    from toolkit.scoring.provider import provider_of

    tokens = split_measures(spec)
    if not tokens:
        raise UsageError(f"no measures given; name at least one ({_EXAMPLES})")
    out: dict[Measure, None] = {}
    for token in tokens:
        found = _parse(token) if isinstance(token, str) else (measure_object(token),)
        for obj in found:
            provider_of(obj)  # its UsageError names the measure
            out.setdefault(obj, None)
    return tuple(out)


def parse_measure(spec: Measure | str) -> Measure:
    """Exactly one measure (see ``parse_measures``); UsageError when ``spec`` names none or several."""
    found = parse_measures(spec)
    if len(found) != 1:
        raise UsageError(f"expected one measure, got {len(found)} in {spec!r}; name a single measure")
    return found[0]


def is_count(measure: Measure | str) -> bool:
    """Count measures (``NumRel``, ``NumRet``, ``NumQ``, ``num_nonrel_judged_ret``) are summed over topics, as
    trec_eval's ``all`` does."""
    from ir_measures.measures.base import SumAgg

    return isinstance(measure_object(measure).aggregator(), SumAgg)


def is_geometric(measure: Measure | str) -> bool:
    """``gm_map`` and ``gm_bpref`` average as geometric means (of the values floored at 1e-5)."""
    from toolkit.scoring.table import GeometricAgg

    return isinstance(measure_object(measure).aggregator(), GeometricAgg)


def check_per_topic(measure: Measure | str, *, use: str) -> None:
    """UsageError for a measure with no per-topic value of its own (``gm_map``, ``gm_bpref``: geometric means
    over topics), named where ``use`` (``compare``, a ``gate`` rule) would average per-topic values."""
    if is_geometric(measure):
        base = "AP" if str(measure).startswith("gm_map") else "Bpref"
        raise UsageError(
            f"{measure} is a geometric mean over topics, with no per-topic value of its own; {use} works on "
            f"per-topic values: use {base} there, and `trec-toolkit score --measures {measure}` for the mean"
        )


def measure_cutoff(measure: Measure | str) -> int | None:
    """The rank cutoff of a measure (``RR@10`` → 10), None when it looks at the whole ranking."""
    cutoff = measure_object(measure).params.get("cutoff")
    return int(cutoff) if isinstance(cutoff, int) else None
