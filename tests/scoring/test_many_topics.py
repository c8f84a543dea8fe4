"""A topic set far larger than the qrels (MS MARCO-sized query sets).

Most of the topics are neither in the run nor in the qrels, and without classes the per-class views are the
run's own (one class). These tests hold those paths to their definition: every topic-set topic counts in
``n``; a judged topic has trec_eval 10's value (``trec_eval -q -c``, built from source); an unjudged one scores
0 (NumQ 1, as trec_eval ``-c`` counts a topic); the mean adds the values one by one in topic-id order and
divides by ``n``, as trec_eval's ``all`` row does.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest

from toolkit.errors import ToolkitWarning
from toolkit.formats import read_qrels, read_run, read_topics
from toolkit.model import Topic, TopicSet
from toolkit.scoring import evaluate
from toolkit.scoring.refusal import NO_EXPECT_EMPTY_IN_CLASS, refusal_scores

#: Our name → trec_eval's.
MEASURES = {"AP": "map", "P@5": "P_5", "RR": "recip_rank", "nDCG@10": "ndcg_cut_10", "NumRel": "num_rel"}
TREC_ARGS = ["-m", "map", "-m", "P.5", "-m", "recip_rank", "-m", "ndcg_cut.10", "-m", "num_rel"]


def _files(tmp_path: Path, seed: int) -> tuple[Path, Path, list[str], list[str]]:
    """A run and qrels over 40 judged topics (5 of them without results, 3 run-only topics), and 3,000 topic
    ids nobody judged, some of them in the run."""
    rng = random.Random(seed)
    judged = [f"j{rng.randrange(10**6):06d}x{i}" for i in range(40)]
    unjudged = [f"u{rng.randrange(10**6):06d}x{i}" for i in range(3000)]
    run_lines, qrels_lines = [], []
    for i, q in enumerate(judged):
        docs = [f"d{k}" for k in rng.sample(range(60), 20)]
        for d in rng.sample(docs, 6):
            qrels_lines.append(f"{q} 0 {d} {rng.randint(0, 3)}")
        if i % 8 != 0:
            run_lines += [f"{q} Q0 {d} {r} {50 - r} sys" for r, d in enumerate(docs[:15], 1)]
    for q in unjudged[:3]:
        run_lines += [f"{q} Q0 d{r} {r} {9 - r} sys" for r in range(1, 4)]
    run = tmp_path / "r.run"
    qrels = tmp_path / "q.qrels"
    run.write_text("\n".join(run_lines) + "\n")
    qrels.write_text("\n".join(qrels_lines) + "\n")
    return run, qrels, judged, unjudged


def _trec_eval_per_topic(trec_eval, qrels: Path, run: Path) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    done = trec_eval("-q", "-c", *TREC_ARGS, qrels, run)
    assert done.returncode == 0, done.stderr
    out: dict[str, dict[str, float]] = {}
    for line in done.stdout.decode().splitlines():
        name, topic, value = line.split()
        if topic != "all":
            out.setdefault(topic, {})[name] = float(value)
    return out


def _mean_in_id_order(values: dict[str, float], n: int) -> float:
    total = 0.0
    for q in sorted(values):
        total += values[q]
    return total / n


#: A topic file of the ids in each format the readers take the fast way (``toolkit.formats.topic_columns``).
WRITERS = {
    "t.tsv": lambda ids: "".join(f"{q}\tquery {q}\n" for q in ids),
    "t.jsonl": lambda ids: "".join(f'{{"query_id": "{q}", "text": "query {q}"}}\n' for q in ids),
    "t.txt": lambda ids: "".join(f"<top>\n<num> Number: {q}\n<title> query {q}\n</top>\n\n" for q in ids),
    "t.xml": lambda ids: (
        "<topics>\n"
        + "".join(f'<topic number="{q}"><query>query {q}</query></topic>\n' for q in ids)
        + "</topics>\n"
    ),
}


@pytest.mark.parametrize(
    ("seed", "name"), [(1, "t.tsv"), (2, "t.tsv"), (3, "t.tsv"), (4, "t.jsonl"), (5, "t.txt"), (6, "t.xml")]
)
def test_unjudged_topics_count_as_zero_and_judged_ones_as_trec_eval(
    tmp_path: Path, trec_eval, seed: int, name: str
) -> None:  # type: ignore[no-untyped-def]
    run_path, qrels_path, judged, unjudged = _files(tmp_path, seed)
    ids = judged + unjudged
    random.Random(seed).shuffle(ids)
    (tmp_path / name).write_text(WRITERS[name](ids))
    topics = read_topics(tmp_path / name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolkitWarning)
        scores = evaluate(read_run(run_path), read_qrels(qrels_path), topics=topics, measures=list(MEASURES))
    reference = _trec_eval_per_topic(trec_eval, qrels_path, run_path)
    assert set(reference) == set(judged)
    assert scores.query_ids == tuple(ids) and scores.n == len(ids)
    for measure, name in MEASURES.items():
        for q in judged:
            assert scores.per_query[q][measure] == pytest.approx(reference[q][name], abs=5e-5), (q, measure)
        for q in unjudged:
            assert scores.per_query[q][measure] == 0.0, (q, measure)
        values = {q: scores.per_query[q][measure] for q in ids}
        expected = sum(values.values()) if measure == "NumRel" else _mean_in_id_order(values, len(ids))
        assert scores.aggregate[measure] == expected, measure
    classes = scores.by_class(topics)
    assert list(classes) == ["unclassified"]
    assert classes["unclassified"].n == len(ids)
    assert dict(classes["unclassified"].aggregate) == {
        m: scores.aggregate[m] for m in classes["unclassified"].measures
    }


def test_classes_of_a_large_topic_set_aggregate_their_own_topics(tmp_path: Path, trec_eval) -> None:  # type: ignore[no-untyped-def]
    """With classes the topics are grouped one by one; each class's mean is over its own topics, unjudged
    ones included."""
    run_path, qrels_path, judged, unjudged = _files(tmp_path, 7)
    ids = judged + unjudged
    random.Random(7).shuffle(ids)
    cls = {q: ("canonical" if i % 3 == 0 else None) for i, q in enumerate(ids)}
    topics = TopicSet(tuple(Topic(q, f"query {q}", cls[q]) for q in ids))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolkitWarning)
        scores = evaluate(read_run(run_path), read_qrels(qrels_path), topics=topics, measures=["AP", "RR"])
    reference = _trec_eval_per_topic(trec_eval, qrels_path, run_path)
    for name, members in (
        ("canonical", [q for q in ids if cls[q]]),
        ("unclassified", [q for q in ids if not cls[q]]),
    ):
        part = scores.by_class(topics, all_measures=True)[name]
        assert part.query_ids == tuple(members)
        for measure, trec_name in (("AP", "map"), ("RR", "recip_rank")):
            values = {q: reference.get(q, {}).get(trec_name, 0.0) for q in members}
            expected = sum(values.values()) / len(members)
            assert part.aggregate[measure] == pytest.approx(expected, abs=5e-5)
            exact = _mean_in_id_order({q: scores.per_query[q][measure] for q in members}, len(members))
            assert part.aggregate[measure] == exact


def test_refusal_of_a_classless_topic_set_is_one_class_with_every_topic() -> None:
    """Without classes the one class holds every topic, in the result's order, with the class's reason."""
    ids = [f"t{i}" for i in range(500)]
    topics = TopicSet(tuple(Topic(q, q, expect="empty" if i % 50 == 0 else None) for i, q in enumerate(ids)))
    from toolkit.model import Run

    answered = {q: {"d": 1.0} for i, q in enumerate(ids) if i % 7 == 0}
    result = refusal_scores(Run(answered, name="r"), topics, failed=("t1", "t100"))
    expect_empty = [q for i, q in enumerate(ids) if i % 50 == 0]
    others = [q for i, q in enumerate(ids) if i % 50 != 0]
    assert result.expect_empty == tuple(expect_empty)
    assert result.refused == tuple(q for q in expect_empty if q not in answered and q != "t100")
    assert result.empty == tuple(q for q in others if q not in answered and q != "t1")
    assert result.failed == ("t100", "t1")  # expected-empty ones first, as the result lists its topics
    (name, part), *rest = result.by_class(topics).items()
    assert name == "unclassified" and not rest
    assert (part.expect_empty, part.refused, part.others, part.empty, part.failed) == (
        result.expect_empty,
        result.refused,
        result.others,
        result.empty,
        result.failed,
    )
    assert part.reason == NO_EXPECT_EMPTY_IN_CLASS
