"""``score``, ``compare`` and ``agree`` for notebooks: inputs of every kind in, pandas and report objects out.

Each is a thin join: inputs converted and named (``toolkit.api.inputs``), the numbers computed by the room that
computes them for the command line (``scoring.evaluate_many``, ``stats.compare_runs``, ``agreement.agree``),
so a notebook and ``trec-toolkit score|compare|agree`` give the same values for the same inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.api.inputs import load_judgments, named_runs
from toolkit.api.results import AgreementResult, ComparisonResult
from toolkit.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd
    from ir_measures.measures.base import Measure

#: The ``query_id`` of the aggregate rows in ``score``'s frame, as trec_eval prints it.
ALL = "all"
COLUMNS = ("run", "query_id", "measure", "value")


def score(
    runs: Any,
    qrels: Any,
    *,
    measures: Measure | str | Sequence[Measure | str] | None = None,
    topics: Any = None,
    names: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """Score one run or several → a tidy DataFrame with columns ``run, query_id, measure, value``.

    Per run, one row per topic and measure (topics in denominator order: the topic set's, else the qrels'),
    then one aggregate row per measure with ``query_id == "all"`` — the mean over the topics counted (the sum
    for ``NumRel``/``NumRet``/``NumQ``), as ``trec_eval -q`` prints them. The denominator rules are
    ``toolkit.scoring``'s: with ``topics``, a topic the run left empty or the qrels do not judge scores 0 and
    counts. ``runs``, ``qrels``, ``topics`` and ``names``: see ``toolkit.api.inputs`` and docs/python-api.md.
    ``frame.attrs["providers"]`` names the provider that computed each measure, as ``score --format json``
    does: the same for every input's shape (``toolkit.scoring.provider``).
    """
    import pandas as pd

    from toolkit.formats.interop import as_qrels, as_topics
    from toolkit.scoring import evaluate_many

    run_list = named_runs(runs, names)
    judged = as_qrels(qrels)
    topic_set = None if topics is None else as_topics(topics)
    scores = evaluate_many(run_list, judged, topics=topic_set, measures=measures)
    if scores and ALL in scores[0].query_ids:
        raise UsageError(
            f"a topic is named {ALL!r}, which the frame uses for the aggregate rows; rename that topic"
        )
    columns: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    for s in scores:
        rows = [(q, m, s.per_query[q][m]) for q in s.query_ids for m in s.measures]
        rows += [(ALL, m, s.aggregate[m]) for m in s.measures]
        columns["run"] += [s.run] * len(rows)
        columns["query_id"] += [q for q, _, _ in rows]
        columns["measure"] += [m for _, m, _ in rows]
        columns["value"] += [float(v) for _, _, v in rows]
    frame = pd.DataFrame(columns, columns=list(COLUMNS)).astype({"value": "float64"})
    frame.attrs["providers"] = dict(scores[0].providers) if scores else {}
    return frame


def compare(
    runs: Any,
    qrels: Any,
    *,
    topics: Any = None,
    measures: Measure | str | Sequence[Measure | str] | None = None,
    names: str | Sequence[str] | None = None,
    docs: Any = None,
    **options: Any,
) -> ComparisonResult:
    """Compare 2+ runs, the first as the baseline → a ``ComparisonResult`` that renders itself.

    ``options`` are ``toolkit.stats.compare_runs``'s (``primary``, ``alpha``, ``seed``, ``margins``,
    ``correction`` …), with its defaults, so a call gives what ``trec-toolkit compare`` prints for the same
    inputs and options. The result keeps each run's top k per topic for ``topic()`` and the HTML's per-topic
    view; ``docs`` (``toolkit.api.inputs.DOCS_KINDS``) is where their titles and snippets come from, read
    only for the topics shown.
    """
    from toolkit.formats.interop import as_qrels, as_topics
    from toolkit.stats import compare_runs
    from toolkit.stats.rankings import collect_rankings

    run_list = named_runs(runs, names)
    topic_set = None if topics is None else as_topics(topics)
    judged = as_qrels(qrels)
    result = compare_runs(run_list, judged, topics=topic_set, measures=measures, **options)
    rankings = collect_rankings(run_list, judged, depth=result.rank1[0].cutoff)
    return ComparisonResult.of(result, topic_set=topic_set, rankings=rankings, docs=docs)


def agree(
    judgments: Any,
    *,
    labels: Sequence[int] | None = None,
    seed: int = 42,
    bootstrap: int = 2000,
    include_gold: bool = False,
) -> AgreementResult:
    """Inter-assessor agreement of ``judgments`` → an ``AgreementResult`` that renders itself.

    ``labels`` is the full grade scale (default: a campaign's scale, else 0..the highest grade seen);
    ``include_gold`` counts a campaign's gold items too. As ``trec-toolkit agree``.
    """
    from toolkit.agreement import agree as compute

    loaded = load_judgments(judgments, labels=labels, include_gold=include_gold)
    scale = labels if labels is not None else loaded.labels
    result = compute(loaded.ratings, labels=scale, seed=seed, bootstrap=bootstrap)
    return AgreementResult.of(result)
