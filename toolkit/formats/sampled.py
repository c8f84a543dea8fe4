"""Qrels with inclusion probabilities: TREC Legal's ``.probs`` layout, five columns a line.

``query_id iteration doc_id relevance probability`` — the four columns of a TREC qrels file and, fifth, the
probability the document had of being selected for judging from the pool (TREC 2007–2009 Legal track,
``qrelsL07.probs``). A pooled document the sample left unjudged is written with relevance −1 and the
probability it had: trec_eval (and the plain reader, after dropping the fifth column) reads −1 as "in the
pool, not judged", which is exactly what infAP needs.

The probability is an ASCII decimal in (0, 1] (``0.25``, ``1``, ``2.5e-1``); every defect is a
``FormatError`` naming the line. Writing keeps enough digits (repr) that reading back gives the same double,
so documents of one stratum keep one probability.
"""

from __future__ import annotations

from pathlib import Path

from toolkit.errors import FormatError
from toolkit.formats.numbers import NumberError, parse_score
from toolkit.formats.qrels import DUPLICATE_JUDGMENT, qrels_name, read_relevance
from toolkit.formats.textfile import atomic_write_text, iter_trec_fields, put_once
from toolkit.model import Qrels, SampledQrels

SAMPLED_COLUMNS = "query_id iteration doc_id relevance probability"


def read_sampled_qrels(path: str | Path, *, name: str | None = None) -> SampledQrels:
    """Read five-column qrels (module docstring); any defect raises ``FormatError`` naming ``path:line``."""
    judgments: dict[str, dict[str, int]] = {}
    probabilities: dict[str, dict[str, float]] = {}
    count = 0
    for number, parts in iter_trec_fields(path):
        if len(parts) != 5:
            hint = (
                "; four-column qrels have no inclusion probabilities: read them as plain qrels"
                if len(parts) == 4
                else ""
            )
            raise FormatError(
                path, number, f"expected 5 columns ({SAMPLED_COLUMNS}), found {len(parts)}{hint}"
            )
        query_id, _iteration, doc_id, rel_text, prob_text = parts
        relevance = read_relevance(path, number, rel_text)
        try:
            probability = parse_score(prob_text)
        except NumberError:
            raise FormatError(
                path, number, f"expected a probability (a decimal in (0, 1]) in column 5, found {prob_text!r}"
            ) from None
        if not 0 < probability <= 1:
            raise FormatError(
                path,
                number,
                f"inclusion probability {prob_text} is outside (0, 1]; every listed document had a chance "
                "to be judged",
            )
        put_once(
            judgments, query_id, doc_id, relevance, path=path, number=number, duplicate=DUPLICATE_JUDGMENT
        )
        probabilities.setdefault(query_id, {})[doc_id] = probability
        count += 1
    if count == 0:
        raise FormatError(path, None, f"empty qrels: no judgment lines ({SAMPLED_COLUMNS})")
    qrels = Qrels(judgments=judgments, name=name or qrels_name(path), path=str(path))
    return SampledQrels(qrels=qrels, probabilities=probabilities)


def format_sampled_qrels(sampled: SampledQrels) -> str:
    out: list[str] = []
    for query_id, docs in sampled.qrels.judgments.items():
        probs = sampled.probabilities.get(query_id, {})
        for doc_id, rel in docs.items():
            out.append(f"{query_id} 0 {doc_id} {rel} {format_probability(probs.get(doc_id, 1.0))}\n")
    return "".join(out)


def format_probability(p: float) -> str:
    """``1``, ``0.25``, ``0.3333333333333333``: the shortest text that reads back as the same double."""
    return "1" if p == 1.0 else repr(float(p))


def write_sampled_qrels(sampled: SampledQrels, path: str | Path) -> None:
    """Write five-column qrels atomically in the order held."""
    atomic_write_text(path, format_sampled_qrels(sampled))


def has_probabilities(path: str | Path) -> bool:
    """Whether the first data line of a qrels file has five columns (the ``.probs`` layout). A campaign given
    as qrels is told to export first here, before its bytes are read as text."""
    from toolkit.formats.qrels import refuse_campaign

    refuse_campaign(path)
    for _number, parts in iter_trec_fields(path):
        return len(parts) == 5
    return False
