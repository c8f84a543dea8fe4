"""Which provider computes a measure: the measure table's kernels first, then providers held to a test, else no.

A measure is computed by what can compute it correctly, never by the shape of the input. Every input — a run
file, a DataFrame, a dict of dicts, a ranx or an ir_measures object — is turned into a ``Run`` and ``Qrels``
first (``toolkit.formats.interop``); then, per measure:

1. **trec_toolkit** — the measure table's kernels (``toolkit.treceval.measures``: trec_eval 10's measures, its
   doubles, plus ``RR@k`` and ``ERR@k``), when a row computes the measure (``toolkit.scoring.table.locate``).
   ``ToolkitProvider`` is an ir_measures provider, so ``ir_measures.calc_aggregate`` can use the kernels too
   (``register()``).
2. another installed ir_measures provider from ``TRUSTED``, for what the kernels lack — each is held to an
   independent computation in ``tests/scoring/test_providers.py``;
3. otherwise a ``UsageError`` naming what to install or use instead. ir_measures' other providers are left
   out on purpose (``DISTRUSTED`` says why for the ones known to be wrong): a measure nobody vouches for is
   refused, never answered with a silent 0.

``provider_of(measure)`` is the choice, made before any file is read; ``RunScores.providers`` and
``score --format json`` record it per measure.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from toolkit.errors import UsageError

#: The name of the measure table's provider (``RunScores.providers``, ``ir_measures.providers.registry``).
NAME = "trec_toolkit"

#: ir_measures providers used for the measures the table lacks, in this order, and what each is trusted with
#: (each but ``runtime``, whose measures are the user's own, held to a computation in tests/scoring/test_providers.py).
TRUSTED: dict[str, str] = {
    "pytrec_eval": "nDCG with custom gains (nDCG(gains={…}), nDCG(gains={…})@k)",
    "judged": "Judged@k, the share of the top k docs the qrels judge",
    "runtime": "measures you define yourself with ir_measures.define (yours to vouch for)",
}

#: ir_measures providers never used, and why (named in the refusal).
DISTRUSTED: dict[str, str] = {
    "gdeval": "gdeval.pl keeps only what follows the last '-' of a topic id, so it merges topics like q-1 and r-1",
    "trectools": "ir_measures itself leaves it out as buggy",
    "ranx": "its ir_measures provider stops on the string columns of pandas 3 (ranx asserts an object dtype)",
}


def provider_of(measure: Any) -> str:
    """The name of the provider that computes ``measure``; UsageError (one line) when none does correctly."""
    from toolkit.scoring.table import locate, scoreable

    located = locate(measure)
    if located is not None:
        why = scoreable(located.row)
        if why is not None:
            raise UsageError(why)
        return NAME
    for name, provider in _trusted():
        if _supports(provider, measure):
            return name
    raise UsageError(_refusal(measure))


def _trusted() -> Iterator[tuple[str, Any]]:
    from ir_measures import providers

    for name in TRUSTED:
        provider = providers.registry.get(name)
        if provider is not None:
            yield name, provider


def _supports(provider: Any, measure: Any) -> bool:
    try:
        return bool(provider.supports(measure) and provider.is_available())
    except Exception:  # noqa: BLE001 - a broken optional provider just does not count
        return False


def _refusal(measure: Any) -> str:
    from ir_measures import providers

    name = str(measure)
    known = []
    for provider in providers.registry.values():
        if provider.NAME in TRUSTED or provider.NAME == NAME:
            if provider.NAME in TRUSTED and _claims(provider, measure):
                hint = provider.install_instructions()
                known.append(
                    f"{provider.NAME} would ({hint})" if hint else f"{provider.NAME} would, once installed"
                )
            continue
        if _claims(provider, measure):
            reason = DISTRUSTED.get(provider.NAME, "trec-toolkit has not verified its values")
            known.append(f"{provider.NAME} has it but is not used: {reason}")
    why = "; ".join(known) if known else "no ir_measures provider computes it"
    return (
        f"measure {name!r}: no installed provider computes it correctly ({why}); use a measure of "
        "docs/scoring.md#measures (e.g. nDCG@10, ERR@10, AP, P@5, RR@10)"
    )


def _claims(provider: Any, measure: Any) -> bool:
    try:
        return bool(provider.supports(measure))
    except Exception:  # noqa: BLE001
        return False


# --- the ir_measures provider -----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def toolkit_provider() -> Any:
    """The measure table's kernels as an ir_measures ``Provider`` (one instance)."""
    from ir_measures import providers

    class ToolkitProvider(providers.Provider):  # type: ignore[misc]
        """trec_eval 10's measures (and RR@k, ERR@k) as trec-toolkit computes them: trec_eval 10's doubles.

        Rankings follow trec_eval 10 (score descending as doubles, ties by doc id descending); a topic is
        scored when it is in both the run and the qrels, like pytrec_eval.
        """

        NAME = NAME
        SUPPORTED_MEASURES: list[Any] = []

        def supports(self, measure: Any) -> bool:
            from toolkit.scoring.table import locate, scoreable

            try:
                located = locate(measure)
            except UsageError:
                return False
            return located is not None and scoreable(located.row) is None

        def _evaluator(self, measures: Any, qrels: Any) -> Any:
            return ToolkitEvaluator(list(measures), qrels)

    class ToolkitEvaluator(providers.Evaluator):  # type: ignore[misc]
        def __init__(self, measures: list[Any], qrels: Any) -> None:
            from toolkit.formats.interop import as_qrels
            from toolkit.scoring.kernels import TableScorer
            from toolkit.scoring.table import locate

            self.qrels = as_qrels(_records(qrels))
            super().__init__(measures, set(self.qrels.query_ids))
            located = {str(m): locate(m) for m in measures}
            self.scorer = TableScorer(self.qrels, {k: v for k, v in located.items() if v is not None})
            self.by_name = {str(m): m for m in measures}

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            from ir_measures.util import Metric

            from toolkit.formats.interop import as_run

            ranked = as_run(_records(run))
            topics = [q for q in self.qrels.query_ids if ranked.results.get(q)]
            values = self.scorer.score(ranked, topics)
            for query_id in topics:
                for name, measure in self.by_name.items():
                    yield Metric(query_id=query_id, measure=measure, value=values[query_id][name])

    return ToolkitProvider()


def _records(obj: Any) -> Any:
    """ir_measures hands iterators of namedtuples around; a generator is read once, as a list."""
    if hasattr(obj, "__next__"):
        return list(obj)
    return obj


def register() -> Any:
    """Make the kernels an ir_measures provider: in ``ir_measures.providers.registry`` and first in
    ``ir_measures.DefaultPipeline``, so that ``ir_measures.calc_aggregate`` and friends compute every measure
    of the table with trec_eval 10's values (and ``gm_map``-like measures at all). Idempotent; returns the
    provider. The toolkit itself does not need this: it chooses providers with ``provider_of``."""
    import ir_measures
    from ir_measures import providers

    provider = toolkit_provider()
    providers.registry.setdefault(NAME, provider)
    pipeline = ir_measures.DefaultPipeline.providers
    if provider not in pipeline:
        pipeline.insert(0, provider)
    return provider
