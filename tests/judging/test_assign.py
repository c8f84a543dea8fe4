"""Assignment: whole topics, overlap by item within each topic, seeded blind order, gold, later rounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import FormatError, UsageError
from toolkit.judging.assign import assign, overlap_count, parse_overlap, read_gold
from toolkit.judging.store import CampaignStore

BIG = [("q1", f"a{i:02d}") for i in range(10)] + [("401", f"b{i:02d}") for i in range(6)]


def open_store(tmp_path: Path, make_campaign, pool=BIG) -> CampaignStore:
    return CampaignStore.open(make_campaign(tmp_path / "c.sqlite", pool=pool, assign_all=False))


def test_whole_topics_and_overlap_by_item(tmp_path: Path, make_campaign) -> None:
    with open_store(tmp_path, make_campaign) as store:
        result = assign(store, ["alice", "bob"], overlap=0.2, seed=1)
        # q1 (10 items, largest) → alice; 401 (6) → bob (least loaded). Overlap per topic: round(0.2×10) = 2,
        # round(0.2×6) = round(1.2) = 1; the second assessor of q1 is bob, of 401 alice.
        assert result.primary_topics == {"alice": ("q1",), "bob": ("401",)}
        assert result.topics_per_assessor == {"alice": ("q1", "401"), "bob": ("q1", "401")}
        assert result.per_assessor == {"alice": 10 + 1, "bob": 6 + 2}
        assert result.overlap_items == 3
        alice, bob = store.queue("alice"), store.queue("bob")
        assert {i.query_id for i in alice if not i.overlap} == {"q1"}
        shared_q1 = {i.doc_id for i in bob if i.query_id == "q1"}
        assert len(shared_q1) == 2 and all(i.overlap for i in bob if i.query_id == "q1")
        assert {i.doc_id for i in alice if i.overlap and i.query_id == "q1"} == shared_q1
        assert sorted(i.position for i in alice) == list(range(11))


def test_presentation_is_topic_blocked_seeded_and_not_rank_order(tmp_path: Path, make_campaign) -> None:
    orders = []
    for seed in (7, 7, 8):
        path = tmp_path / f"s{len(orders)}"
        path.mkdir()
        with open_store(path, make_campaign) as store:
            assign(store, ["alice"], seed=seed)
            queue = store.queue("alice")
            topics = [i.query_id for i in queue]
            assert topics == sorted(topics, key=topics.index)  # each topic one contiguous block
            orders.append([i.doc_id for i in queue])
    assert orders[0] == orders[1]
    assert orders[0] != orders[2]
    assert [d for d in orders[0] if d.startswith("a")] != [
        f"a{i:02d}" for i in range(10)
    ]  # not pool (rank) order


def test_overlap_all_gives_every_item_to_every_assessor(tmp_path: Path, make_campaign) -> None:
    with open_store(tmp_path, make_campaign) as store:
        result = assign(store, ["alice", "bob", "carol"], overlap="all")
        for name in ("alice", "bob", "carol"):
            queue = store.queue(name)
            assert len(queue) == 16 and all(i.overlap for i in queue)
        assert result.overlap_items == 16


def test_overlap_zero_gives_each_item_to_one_assessor(tmp_path: Path, make_campaign) -> None:
    with open_store(tmp_path, make_campaign) as store:
        assign(store, ["alice", "bob"], overlap=0)
        items = [(i.query_id, i.doc_id) for a in ("alice", "bob") for i in store.queue(a)]
        assert sorted(items) == sorted(BIG)


def test_gold_items_go_to_everyone(tmp_path: Path, make_campaign) -> None:
    with open_store(tmp_path, make_campaign) as store:
        gold_file = tmp_path / "gold.tsv"
        gold_file.write_text("q1\ta03\t3\n401\tb01\t0\n")
        gold = read_gold(gold_file, store)
        assert gold == {("q1", "a03"): 3, ("401", "b01"): 0}
        assign(store, ["alice", "bob"], gold=gold)
        for name in ("alice", "bob"):
            golds = {(i.query_id, i.doc_id) for i in store.queue(name) if i.gold}
            assert golds == {("q1", "a03"), ("401", "b01")}
        assert store.gold() == gold


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q9\ta01\t2\n", "1: unknown topic 'q9': not in this campaign"),
        ("q1\ta01\t5\n", "1: grade 5 is not on the campaign's scale (0, 1, 2, 3)"),
        ("q1\ta01\n", "1: expected 3 columns (query_id doc_id grade), found 2"),
        ("q1\ta01\t1\nq1\ta01\t2\n", "2: duplicate gold item (q1, a01)"),
    ],
)
def test_gold_file_errors(tmp_path: Path, make_campaign, text: str, message: str) -> None:
    with open_store(tmp_path, make_campaign) as store:
        path = tmp_path / "gold.tsv"
        path.write_text(text)
        with pytest.raises(FormatError) as err:
            read_gold(path, store)
        assert str(err.value) == f"{path}:{message}"


def test_gold_document_must_have_a_snapshot(tmp_path: Path, make_campaign) -> None:
    with (
        open_store(tmp_path, make_campaign) as store,
        pytest.raises(UsageError, match="without a snapshot: zzz"),
    ):
        assign(store, ["alice"], gold={("q1", "zzz"): 1})


def test_a_later_round_is_appended_and_topics_stay(tmp_path: Path, make_campaign) -> None:
    from toolkit.pooling.docsource import make_document

    with open_store(tmp_path, make_campaign) as store:
        assign(store, ["alice", "bob"], seed=3)
        owner = {i.query_id for i in store.queue("bob")}
        store.add_round(
            strategy="depth",
            depth=20,
            budget=None,
            runs=["runC"],
            provenance={("401", "new"): [("runC", 1)]},
            queued=[("401", "new")],
            stale=[],
            snapshots=[make_document("new", "N", "n")],
            skipped=0,
        )
        result = assign(store, ["alice", "bob"], seed=3)
        assert result.items == 1
        new_item = next(i for a in ("alice", "bob") for i in store.queue(a) if i.doc_id == "new")
        assert new_item.query_id in owner and new_item.assessor == "bob"
        assert new_item.position == max(i.position for i in store.queue("bob"))


def test_usage_errors(tmp_path: Path, make_campaign) -> None:
    with open_store(tmp_path, make_campaign) as store:
        with pytest.raises(UsageError, match="--overlap needs at least two assessors"):
            assign(store, ["alice"], overlap=0.2)
        with pytest.raises(UsageError, match="--assessors: each assessor once"):
            assign(store, ["alice", "alice"])
    for bad in ("1.5", "-0.1", "some"):
        with pytest.raises(
            UsageError, match=f"--overlap {bad}: expected a fraction between 0 and 1, or 'all'"
        ):
            parse_overlap(bad)
    assert parse_overlap("ALL") == "all" and parse_overlap("0.25") == 0.25


def test_overlap_count_rounds_half_up() -> None:
    assert [overlap_count(0.5, n) for n in (1, 2, 3, 5)] == [1, 1, 2, 3]  # 0.5, 1, 1.5, 2.5 → 1, 1, 2, 3
    assert overlap_count(0.2, 3) == 1 and overlap_count(0.1, 4) == 0  # 0.6 → 1, 0.4 → 0


SOLO = [*BIG, ("solo", "s1")]


def solo_store(tmp_path: Path, make_campaign) -> CampaignStore:
    from toolkit.judging.records import CampaignTopic
    from toolkit.model import DEFAULT_GRADES

    store = open_store(tmp_path, make_campaign, pool=[p for p in SOLO if p[0] != "solo"])
    store.set_topics([CampaignTopic("solo", "one doc")], DEFAULT_GRADES)
    add_round(store, [("solo", "s1")])
    return store


def add_round(store: CampaignStore, items: list[tuple[str, str]]) -> None:
    from toolkit.pooling.docsource import make_document

    store.add_round(
        strategy="depth",
        depth=20,
        budget=None,
        runs=["runC"],
        provenance={key: [("runC", 1)] for key in items},
        queued=items,
        stale=[],
        snapshots=[make_document(d, d, d) for _, d in items],
        skipped=0,
    )


def test_the_same_assign_twice_is_a_no_op_and_a_one_doc_topic_keeps_its_owner(
    tmp_path: Path, make_campaign
) -> None:
    with solo_store(tmp_path, make_campaign) as store:
        first = assign(store, ["alice", "bob"], overlap=0.5, seed=2)
        # By hand: q1 (10) → alice, 5 shared with bob (loads 10, 5); 401 (6) → bob (11), 3 shared with alice
        # (13); solo (1) → bob, the least loaded (11 < 13), round(0.5 × 1) = 1 item shared with alice.
        assert first.primary_topics == {"alice": ("q1",), "bob": ("401", "solo")}
        queues = {a: store.queue(a) for a in ("alice", "bob")}
        assert [i.overlap for i in queues["bob"] if i.query_id == "solo"] == [True]
        again = assign(store, ["alice", "bob"], overlap=0.5, seed=2)
        assert again.items == 0 and again.per_assessor == {"alice": 0, "bob": 0}
        assert again.primary_topics == first.primary_topics  # the one-doc topic's tie does not move
        assert {a: store.queue(a) for a in ("alice", "bob")} == queues


def test_one_assessor_named_reports_only_the_topics_they_own(tmp_path: Path, make_campaign) -> None:
    with open_store(tmp_path, make_campaign) as store:
        assign(store, ["alice", "bob"], overlap=0.5, seed=1)
        # alice shares 401 with bob (overlap items), but owns only q1
        alone = assign(store, ["alice"], seed=1)
        assert alone.primary_topics == {"alice": ("q1",)} and alone.items == 0


def test_the_policy_and_owners_are_recorded_and_a_later_round_follows_them(
    tmp_path: Path, make_campaign
) -> None:
    from toolkit.judging.assign import AssignPolicy, assign_new_items, recorded_policy

    with open_store(tmp_path, make_campaign) as store:
        assert assign_new_items(store) is None  # never assigned: no policy to follow
        assign(store, [" alice", "bob "], overlap=0.5, seed=4)
        assert recorded_policy(store) == AssignPolicy(("alice", "bob"), 0.5, 4)
        add_round(store, [("q1", "new1"), ("q1", "new2"), ("401", "new3"), ("401", "new4")])
        result = assign_new_items(store)
        assert result is not None and result.items == 4 + 2  # round(0.5 × 2) = 1 shared per topic
        alice = {(i.query_id, i.doc_id): i for i in store.queue("alice")}
        bob = {(i.query_id, i.doc_id): i for i in store.queue("bob")}
        # q1 stays alice's and 401 bob's; the second assessor of each topic is the one who already shares it
        assert {("q1", "new1"), ("q1", "new2")} <= set(alice) and {("401", "new3"), ("401", "new4")} <= set(
            bob
        )
        assert sum(k in bob for k in [("q1", "new1"), ("q1", "new2")]) == 1
        assert sum(k in alice for k in [("401", "new3"), ("401", "new4")]) == 1


def test_a_topic_whose_owner_is_not_named_moves_with_a_warning(tmp_path: Path, make_campaign) -> None:
    from toolkit.errors import ToolkitWarning

    with open_store(tmp_path, make_campaign) as store:
        assign(store, ["alice", "bob"], seed=1)  # q1 → alice, 401 → bob
        add_round(store, [("401", "late")])
        with pytest.warns(ToolkitWarning, match=r"1 topic\(s\) had an owner not named .*401 \(was bob\)"):
            result = assign(store, ["alice", "carol"], seed=1)
        assert result.per_assessor == {"alice": 0, "carol": 1}
        assert result.primary_topics == {"alice": ("q1",), "carol": ("401",)}


def test_near_duplicate_names_are_warned_and_kept_apart(tmp_path: Path, make_campaign) -> None:
    from toolkit.errors import ToolkitWarning
    from toolkit.judging.assign import parse_assessors

    assert parse_assessors(" alice, Bob ,,") == ["alice", "Bob"]
    with open_store(tmp_path, make_campaign) as store:
        assign(store, ["alice", "bob"], seed=1)
        add_round(store, [("q1", "late")])
        with pytest.warns(ToolkitWarning, match="assessor 'Bob' looks like 'bob'"):
            assign(store, ["alice", "Bob"], seed=1)
        with pytest.warns(ToolkitWarning, match="assessor 'Al ice' looks like 'alice'"):
            assign(store, ["Al ice", "alice"], seed=1)
        assert {"alice", "bob", "Bob", "Al ice"} >= set(store.assignees()) >= {"alice", "bob"}
