"""``score``'s fast path: runs and qrels read column-wise, scored by trec_eval 10's vectorised kernels.

Why: the backends (pytrec_eval through ir_measures) need a dict of dicts per chunk of topics; for 5 million
results building those dicts costs more than trec_eval takes for the whole evaluation. When the run and the
qrels were read column-wise (``RankedResults``, ``JudgmentsView``) and every measure asked for is one trec_eval
computes (``AP``, ``P@k``, ``RR``, ``RR@k``, ``nDCG``, ``nDCG@k``, ``Rprec``, ``R@k``, ``Success@k``, ``Bpref``,
``NumRel``, ``NumRet`` …) the values come from ``toolkit.treceval.vector`` on the joined batch instead — the
same doubles trec_eval 10 prints, which is what the backends are held to (``tests/scoring``). Anything else
(gains, ``judged_only``, measures of other providers) returns None and the backends run.

Topics keep the engine's rules: a topic without qrels, or whose grades are all below 0, scores 0 but for the
docs returned; ``NumRel`` counts the qrels' grades ≥ rel.
"""

from __future__ import annotations

from typing import Any

from toolkit.model import Run
from toolkit.scoring.plan import NUM_Q, NUM_REL, NUM_RET, PYTREC, RR_CUT, Route


def kernel_of(r: Route) -> tuple[str, list[Any], int, int | None] | None:
    """(trec_eval measure, parameters, relevance level, rank cutoff) computing route ``r``, or None."""
    params = dict(getattr(r.compute, "params", {}) or {})
    cutoff = params.pop("cutoff", None)
    rel = params.pop("rel", 1)
    if params or not isinstance(rel, int) or rel < 1:
        return None  # judged_only, gains, dcg variants, rel < 1 (pytrec_eval refuses it) …: the backends
    name = r.compute.NAME
    if r.kind == RR_CUT and name == "RR":
        return ("recip_rank", [], rel, r.depth)
    if r.kind != PYTREC:
        return None
    if cutoff is None:
        table = {"AP": "map", "RR": "recip_rank", "nDCG": "ndcg", "Rprec": "Rprec", "Bpref": "bpref"}
        table["NumRet"] = "num_rel_ret"
        found = table.get(name)
        return (found, [], rel, None) if found else None
    table = {"AP": "map_cut", "P": "P", "nDCG": "ndcg_cut", "R": "recall", "Success": "success"}
    found = table.get(name)
    return (found, [int(cutoff)], rel, None) if found else None


def score_columns(evaluator: Any, run: Run, query_ids: list[str]) -> dict[str, dict[str, float]] | None:
    """Per-topic values like ``Evaluator.score_run``'s, or None when this path cannot compute them all."""
    ranked = getattr(run.results, "columns", None)
    judged = getattr(evaluator.qrels.judgments, "columns", None)
    if ranked is None or judged is None or ranked.binary or judged.binary or judged.clash:
        return None
    import numpy as np  # after the check: a run read line by line is scored without numpy

    from toolkit.treceval import vector
    from toolkit.treceval.batch import build_batch

    kernels: dict[str, tuple[str, list[Any], int, int | None]] = {}
    for r in evaluator.routes:
        if r.kind in (NUM_Q, NUM_RET, NUM_REL):
            if r.kind == NUM_REL and r.rel < 0:
                return None
            continue
        found = kernel_of(r)
        if found is None:
            return None
        kernels[r.name] = found
    run_index = ranked.topic_index()
    qrels_index = {q: t for t, q in enumerate(judged.topics)}
    max_grade = np.full(len(judged.topics), -1, np.int64)
    np.maximum.at(max_grade, judged.codes, judged.grades)
    scored = [q for q in query_ids if q in qrels_index and max_grade[qrels_index[q]] >= 0]
    pairs = [(run_index[q], qrels_index[q]) for q in scored]
    batch = build_batch(ranked, judged, pairs)
    values: dict[str, list[float]] = {}
    for name, (measure, params, level, depth) in kernels.items():
        if not vector.usable(measure, params, batch, level):
            return None
        if depth is not None:  # RR@k: the first relevant doc within the top k
            rank = batch.first(batch.hits(level))
            array = np.where((rank >= 0) & (rank < depth), 1.0 / np.maximum(rank + 1.0, 1.0), 0.0)
        else:
            array = vector.compute(measure, params, batch, level)[0]
        values[name] = array.tolist()
    counts = np.bincount(judged.codes, minlength=len(judged.topics))
    num_rel = {r.name: _num_rel(judged, r.rel) for r in evaluator.num_rel}
    out: dict[str, dict[str, float]] = {}
    position = {q: i for i, q in enumerate(scored)}
    for query_id in query_ids:
        t = run_index[query_id]
        row = dict.fromkeys(evaluator.measures, 0.0)
        i = position.get(query_id)
        if i is not None:
            for name, column in values.items():
                row[name] = column[i]
        q = qrels_index.get(query_id)
        for r in evaluator.num_rel:
            row[r.name] = float(num_rel[r.name][q]) if q is not None and counts[q] else 0.0
        for r in evaluator.num_q:
            row[r.name] = 1.0
        for r in evaluator.num_ret:
            row[r.name] = float(ranked.starts[t + 1] - ranked.starts[t])
        out[query_id] = row
    return out


def _num_rel(judged: Any, rel: int) -> Any:
    """Per qrels topic, its judgments with a grade ≥ ``rel``."""
    import numpy as np

    return np.bincount(judged.codes[judged.grades >= rel], minlength=len(judged.topics))
