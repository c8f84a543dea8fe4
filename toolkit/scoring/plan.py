"""How each measure is computed: which backend, on how deep a ranking.

Every backend sees the run already in trec_eval's canonical order with strictly decreasing rank-based scores
(see ``toolkit.scoring.engine``), so the backend's own tie-breaking never matters. Routes:

* ``pytrec_eval`` — everything ir_measures' pytrec_eval provider supports (P, AP, nDCG, Rprec, Bpref, R,
  Success, NumRet …), on the full ranking.
* RR with a cutoff (``RR@10``) — pytrec_eval has only uncut ``recip_rank``; on the ranking truncated to the
  top k it is exactly RR@k, and it stays on the trec_eval code path.
* ``NumRet`` (without ``rel``) — the number of docs returned, counted here.
* ``NumQ`` — 1 for every topic that counts, empty ones included (trec_eval ``-c`` counts every qrels topic).
* ``NumRel`` — a property of the qrels alone (count of docs with relevance ≥ rel); computed here so that it
  also has its trec_eval ``-c`` value on topics a run left empty and works at any relevance level.
* ``IPrec`` (interpolated precision at a recall level) — trec_eval 10 rounds the level's doc count
  (``lround``) where pytrec_eval's trec_eval 9 adds 0.9 and truncates, so the values differ; it is computed
  by the ``trec_eval`` drop-in's port of trec_eval 10 (``toolkit.treceval``) on the canonical ranking.
* anything else another ir_measures provider supports (``Judged@10``) — that provider, on the ranking truncated
  to the measure's cutoff (a cutoff measure only looks at the top k, and truncation keeps Python providers fast).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkit.errors import UsageError

PYTREC = "pytrec_eval"
RR_CUT = "rr_cut"
NUM_REL = "num_rel"
NUM_RET = "num_ret"
NUM_Q = "num_q"
TREC10 = "trec_eval_10"
OTHER = "other"

#: Measures whose value depends only on the ranking down to the last doc with relevance ≥ their ``rel`` (and
#: down to their cutoff): the engine may hand the backend that prefix instead of the whole ranking.
PREFIX_SAFE = frozenset({"P", "AP", "RR", "Rprec", "nDCG", "Bpref", "Success", "R", "NumRet", "Judged"})


@dataclass(frozen=True)
class Route:
    """One measure's computation: ``compute`` (an ir_measures object) on the top ``depth`` docs (None = all)."""

    name: str
    kind: str
    compute: Any
    depth: int | None
    rel: int = 1


def _pytrec_provider() -> Any:
    from ir_measures import providers

    return providers.registry["pytrec_eval"]


def route(measure: Any) -> Route:
    """The route of one ir_measures measure object; UsageError when no installed backend computes it."""
    name = str(measure)
    params = dict(getattr(measure, "params", {}) or {})
    rel = params.get("rel")
    if isinstance(rel, int) and rel < 1:
        # pytrec_eval refuses a relevance level below 1 with a TypeError deep inside the evaluator; say it here.
        raise UsageError(
            f"rel={rel} is below 1; a relevance level counts docs graded at least rel as "
            "relevant and must be ≥ 1 (e.g. P(rel=2)@5)"
        )
    cutoff = params.get("cutoff")
    cutoff = cutoff if isinstance(cutoff, int) else None
    if measure.NAME == "IPrec":
        return Route(name, TREC10, measure, None, _rel(params))
    if measure.NAME == "NumQ":
        return Route(name, NUM_Q, measure, None)
    if measure.NAME == "NumRel":
        return Route(name, NUM_REL, measure, None, _rel(params))
    if measure.NAME == "NumRet" and not isinstance(params.get("rel"), int):
        return Route(name, NUM_RET, measure, None)
    if measure.NAME == "RR" and cutoff is not None:
        uncut = {k: v for k, v in params.items() if k != "cutoff"}
        base = _rr_base()
        return Route(name, RR_CUT, base(**uncut) if uncut else base, cutoff, _rel(params))
    if _pytrec_provider().supports(measure):
        return Route(name, PYTREC, measure, None)
    from ir_measures import providers

    for provider in providers.registry.values():
        if provider.NAME == "pytrec_eval":
            continue
        try:
            ok = provider.supports(measure) and provider.is_available()
        except Exception:  # noqa: BLE001 - a broken optional provider just does not count
            ok = False
        if ok:
            return Route(name, OTHER, measure, cutoff)
    raise UsageError(
        f"measure {name!r} cannot be computed by the installed backends (pytrec_eval, ir_measures providers); "
        "pick a trec_eval measure such as P@5, AP, nDCG@10, RR@10, Rprec"
    )


def _rel(params: dict[str, Any]) -> int:
    rel = params.get("rel")
    return rel if isinstance(rel, int) else 1


def _rr_base() -> Any:
    from ir_measures import RR

    return RR


def check_supported(measure: Any, token: str) -> None:
    """Raise UsageError naming ``token`` when ``measure`` has no route."""
    try:
        route(measure)
    except UsageError as exc:
        raise UsageError(f"{token!r}: {exc}") from None
