"""Scoring: runs × qrels → per-topic and aggregate measure values, with trec_eval semantics (docs/design.md §5).

The API other stages use (``compare``, ``gate``, ``audit``)::

    from toolkit.scoring import parse_measures, evaluate, evaluate_many, first_relevant_rank

    measures = parse_measures("RR@10 P@1 ndcg_cut.10 R-Prec")   # → (RR@10, P@1, nDCG@10, Rprec) objects
    scores = evaluate(run, qrels, topics=topic_set, measures=measures)   # → RunScores
    scores.n, scores.aggregate["RR@10"], scores.values("RR@10")          # values in scores.query_ids order
    scores.providers["RR@10"], provider_of(parse_measure("Judged@10"))  # 'trec_toolkit', 'judged'
    register()      # the measure table's kernels as an ir_measures provider (ir_measures.calc_aggregate …)
    scores.per_query["q1"]["P@1"], scores.empty, scores.ignored
    scores.by_class(topic_set)["canonical"].aggregate                    # per class: n + its measures
    first_relevant_rank(run, qrels, "q1", cutoff=10)                     # 1-based rank or None
    refusal_scores(run, topic_set, qrels, failed=("q7",)).refusal        # topics declared expect = "empty"

Rules (details in ``toolkit.scoring.evaluate``): the denominator is the topic set's topics (else the qrels'),
without those declared ``expect = "empty"`` (scored by their refusal outcome, ``toolkit.scoring.refusal``);
a topic the run left empty scores 0; a topic without qrels scores 0 and counts; run topics outside the
denominator are ignored with one ``ToolkitWarning`` per run. Rankings follow trec_eval 10 (score desc as
doubles, ties by doc_id desc) for every measure, cutoff measures included. Measures are parsed once into
ir_measures objects (``parse_measures`` also accepts every trec_eval name with its ``-m`` parameters and
``R-Prec``); scores are keyed by their canonical names, ``str(measure)``. Each measure is computed by the
provider ``provider_of`` chooses — the measure table's kernels (``toolkit.treceval.measures``) for every
measure the table has, whatever the input's shape — and a measure no installed provider computes correctly is
refused. Count measures (``NumRel``, ``NumRet``, ``NumQ``) aggregate as sums, ``gm_map``/``gm_bpref`` as
geometric means, everything else as means.
"""

from toolkit.scoring.evaluate import (
    UNCLASSIFIED,
    ClassScores,
    RunScores,
    default_measures,
    denominator,
    evaluate,
    evaluate_many,
    first_relevant_rank,
    resolve_measures,
)
from toolkit.scoring.measures import (
    canonical_measure,
    is_count,
    measure_cutoff,
    parse_measure,
    parse_measures,
)
from toolkit.scoring.provider import provider_of, register
from toolkit.scoring.refusal import RefusalScores, refusal_scores

__all__ = [
    "UNCLASSIFIED",
    "ClassScores",
    "RefusalScores",
    "RunScores",
    "canonical_measure",
    "default_measures",
    "denominator",
    "evaluate",
    "evaluate_many",
    "first_relevant_rank",
    "is_count",
    "measure_cutoff",
    "parse_measure",
    "parse_measures",
    "provider_of",
    "refusal_scores",
    "register",
    "resolve_measures",
]
