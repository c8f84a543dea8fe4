"""The per-topic view's model: each run's top k (trec_eval's order), the topics' order, one topic's two lists.

Seven hand-made topics, one per kind of outcome, whose buckets, first-relevant ranks, RR@10 values, moves and
order are worked out by hand below (docs/design.md §7 for the buckets; RR@10 = 1 / rank of the first
relevant document).
"""

from __future__ import annotations

import pytest

from toolkit.errors import UsageError
from toolkit.model import Qrels, Run, Topic, TopicSet
from toolkit.stats.comparison import compare_runs, rank_cutoff
from toolkit.stats.rankings import DocText, RankingCollector, collect_rankings, doc_text
from toolkit.stats.topic_view import TopicViews

pytestmark = pytest.mark.filterwarnings("ignore::toolkit.errors.ToolkitWarning")

TOPICS = TopicSet(
    (
        Topic("t1", "one", "canonical"),
        Topic("t2", "two", "canonical"),
        Topic("t3", "three", "prose"),
        Topic("t4", "four", "prose"),
        Topic("t5", "five", "canonical"),
        Topic("t6", "nothing", "canonical", expect="empty"),
        Topic("t7", "seven", "prose"),
    )
)
QRELS = Qrels(
    {
        "t1": {"rel1": 2, "x1": 0},
        "t2": {"rel2": 1},
        "t3": {"rel3": 1},
        "t4": {"rel4": 3},
        "t5": {"rel5": 1},
        "t7": {"rel7": 1},
    }
)
BASE = Run(
    {
        "t1": {"rel1": 3, "x1": 2, "u1": 1},  # relevant at 1
        "t2": {"a2": 2, "rel2": 1},  # at 2
        "t3": {"z3": 3, "rel3": 2, "y3": 1},  # at 2
        "t4": {"a4": 4, "b4": 3, "c4": 2, "rel4": 1},  # at 4
        # t5: no results (added in the candidate); t6: refused, as it should
        "t7": {"a7": 3, "b7": 2, "rel7": 1},  # at 3
    },
    name="base",
)
CAND = Run(
    {
        "t1": {"x1": 3, "u1": 2, "rel1": 1},  # at 3: degraded, RR 1 → 1/3
        "t2": {"rel2": 2, "a2": 1},  # at 1: fixed, 1/2 → 1
        "t3": {
            "q3": 3,
            "rel3": 2,
            "p3": 2,
        },  # tie at 2: doc_id descending puts rel3 before p3 → at 2: unchanged
        "t4": {"a4": 2, "rel4": 1},  # at 2: both-suboptimal, 1/4 → 1/2
        "t5": {"rel5": 1},  # added, 0 → 1
        "t6": {"junk": 1},  # answered a topic that should find nothing
        "t7": {"a7": 5, "b7": 4, "c7": 3, "d7": 2, "rel7": 1},  # at 5: both-suboptimal, 1/3 → 1/5
    },
    name="cand",
)


@pytest.fixture(scope="module")
def views() -> TopicViews:
    collector = RankingCollector(QRELS, rank_cutoff("RR@10"))
    result = compare_runs(
        collector.watch([BASE, CAND]), QRELS, topics=TOPICS, measures="RR@10 P@1", primary="RR@10"
    )
    return TopicViews(result, collector.rankings(), TOPICS)


def test_rankings_keep_the_top_k_in_trec_eval_order_with_grades() -> None:
    rankings = collect_rankings([CAND], QRELS, depth=2)
    assert rankings.depth == 2 and rankings.runs == ("cand",)
    assert rankings.ranking("cand", "t3") == ("q3", "rel3")  # 3 > 2 = 2, and "rel3" > "p3"
    assert rankings.ranking("cand", "t7") == ("a7", "b7")
    assert rankings.grade("t1", "x1") == 0 and rankings.grade("t1", "u1") is None
    assert rankings.grade("t1", "rel1") is None  # rank 3: not in the top 2, so not kept
    assert rankings.doc_ids(["t1", "t2"]) == ["x1", "u1", "rel2", "a2"]


def test_the_collector_passes_a_generator_through_one_run_at_a_time() -> None:
    seen: list[str] = []

    def runs():
        for run in (BASE, CAND):
            seen.append(run.name)
            yield run

    collector = RankingCollector(QRELS, 10)
    stream = collector.watch(runs())
    assert next(stream).name == "base" and seen == ["base"]  # nothing read ahead
    assert next(stream).name == "cand" and collector.rankings().runs == ("base", "cand")


def test_outcomes_put_changed_topics_first_then_the_largest_delta(views: TopicViews) -> None:
    order = views.outcomes()
    # changed: t5 added |Δ| 1, t1 degraded 2/3, t2 fixed 1/2, t6 refusal change (no Δ); then t4 1/4, t7 2/15, t3 0
    assert [o.query_id for o in order] == ["t5", "t1", "t2", "t6", "t4", "t7", "t3"]
    by = {o.query_id: o for o in order}
    assert [by[q].bucket for q in ("t1", "t2", "t3", "t4", "t5", "t6", "t7")] == [
        "degraded",
        "fixed",
        "unchanged",
        "both_suboptimal",
        "added",
        "expect_empty",
        "both_suboptimal",
    ]
    assert by["t6"].changes == ("answered now (was refused)",) and by["t6"].delta is None
    assert by["t5"].changes == ("results again (was empty)",)
    assert by["t1"].delta == pytest.approx(1 / 3 - 1) and by["t7"].delta == pytest.approx(1 / 5 - 1 / 3)
    assert (by["t4"].rank_baseline, by["t4"].rank_candidate) == (4, 2)
    assert views.shown(2) == ("t1", "t5")  # the first two of the order, in topic-set order


def test_one_topic_has_both_lists_with_grades_moves_and_the_first_relevant(views: TopicViews) -> None:
    v = views.view("t1")
    assert (v.query, v.query_class, v.baseline, v.candidate) == ("one", "canonical", "base", "cand")
    assert dict((m, (b, c)) for m, b, c in v.values) == {
        "RR@10": pytest.approx((1.0, 1 / 3)),
        "P@1": pytest.approx((1.0, 0.0)),
    }
    assert [(d.rank, d.doc_id, d.grade, d.other_rank, d.first_relevant) for d in v.baseline_docs] == [
        (1, "rel1", 2, 3, True),
        (2, "x1", 0, 1, False),
        (3, "u1", None, 2, False),
    ]
    assert [(d.doc_id, d.moved, d.relevant, d.first_relevant) for d in v.candidate_docs] == [
        ("x1", True, False, False),
        ("u1", True, False, False),
        ("rel1", True, True, True),
    ]
    t5 = views.view("t5")
    assert t5.baseline_docs == () and [d.other_rank for d in t5.candidate_docs] == [None]


def test_an_unknown_topic_or_candidate_is_a_usage_error(views: TopicViews) -> None:
    with pytest.raises(UsageError, match=r"topic 'nope' is not in this comparison \(7 topics: t1, t2"):
        views.view("nope")
    with pytest.raises(UsageError, match="'base' is not a candidate of this comparison; one of cand"):
        views.view("t1", "base")


def test_doc_text_folds_cuts_and_does_not_repeat_the_title() -> None:
    assert doc_text("  A\ttitle ", "A title\n\nThe  body\nof it.") == DocText("A title", "The body of it.")
    assert doc_text("T", "# T\nbody") == DocText("T", "body")
    long = doc_text("", "word " * 100)
    assert len(long.snippet) <= 160 and long.snippet.endswith("word…")
    page = "<html><style>p{}</style><script>x()</script><p>Hello &amp; <b>bye</b></p></html>"
    assert doc_text("", page, format="html").snippet == "Hello & bye"
