"""``agree`` on a campaign store: only current ``judge`` decisions count, gold is left out, the scale is the
campaign's. The expected values are A4's (the campaign holds exactly A4's grades after the noise is removed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agreement_data import A4_A, A4_B
from click.testing import CliRunner

from toolkit.agreement import load_judgments
from toolkit.agreement.judgments import is_campaign, pair_kappas
from toolkit.cli import main
from toolkit.judging.records import CampaignTopic, Item
from toolkit.judging.store import CampaignStore

GRADES = {0: "not relevant", 1: "related", 2: "relevant", 3: "perfect"}


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    path = tmp_path / "judging" / "camp.sqlite"
    items = [(f"q{i % 3 + 1}", f"d{i + 1}") for i in range(12)]
    extra = [("q1", "d90"), ("q2", "d91")]
    with CampaignStore.open(path, create=True) as store:
        store.set_topics([CampaignTopic(f"q{t}", f"query {t}") for t in (1, 2, 3)], GRADES)
        store.add_round(
            strategy="depth",
            depth=10,
            budget=None,
            runs=["r"],
            provenance={it: [("r", 1)] for it in [*items, *extra]},
            queued=[*items, *extra],
            stale=[],
            snapshots=[],
            skipped=0,
        )
        store.add_assignments(
            [Item(who, q, d, position=i) for who in ("alice", "bob") for i, (q, d) in enumerate(items)],
            gold={("q3", "gold1"): 3},
        )
        for (q, d), ga, gb in zip(items, A4_A, A4_B, strict=True):
            store.record("alice", q, d, grade=ga)
            store.record("bob", q, d, grade=gb)
        # Noise that must not count: a re-judgment undone, a skip, an unrateable, gold, an adjudication.
        store.record("alice", "q1", "d1", grade=3)
        store.undo("alice")
        store.record("carol", "q1", "d90", action="skip")
        store.record("carol", "q2", "d91", action="unrateable")
        store.record("alice", "q3", "gold1", grade=0)
        store.record("bob", "q3", "gold1", grade=3)
        store.adjudicate("dana", "q2", "d2", 1)
    return path


def test_campaign_is_detected_and_filtered(campaign: Path) -> None:
    assert is_campaign(campaign)
    source = load_judgments(campaign)
    assert source.kind == "campaign"
    assert source.labels == (0, 1, 2, 3)
    assert len(source.judgments) == 24
    assert dict(source.excluded) == {"skip": 1, "unrateable": 1, "gold": 2}
    assert len(load_judgments(campaign, include_gold=True).judgments) == 26


def test_agree_on_a_campaign_gives_the_a4_values(campaign: Path) -> None:
    result = CliRunner().invoke(main, ["agree", str(campaign), "--format", "json", "--bootstrap", "0"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["labels"] == [0, 1, 2, 3]
    assert doc["assessors"] == ["alice", "bob"]  # carol only skipped, dana only adjudicated
    (pair,) = doc["pairs"]
    assert pair["n"] == 12
    assert pair["kappa"]["unweighted"]["value"] == pytest.approx(0.444444, abs=5e-7)
    assert pair["kappa"]["quadratic"]["value"] == pytest.approx(0.833333, abs=5e-7)
    assert doc["krippendorff"]["ordinal"] == pytest.approx(0.838943, abs=5e-7)
    with_gold = CliRunner().invoke(
        main, ["agree", str(campaign), "--format", "json", "--bootstrap", "0", "--include-gold"]
    )
    assert json.loads(with_gold.stdout)["pairs"][0]["n"] == 13


def test_a_missing_campaign_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.sqlite"
    result = CliRunner().invoke(main, ["agree", str(missing)])
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"Error: {missing}: no such campaign; create one with `trec-toolkit pool RUN… -o {missing}`\n"
    )


def test_library_takes_campaign_records_directly(campaign: Path) -> None:
    """The export manifest passes ``current_judgments()`` as is; skip/unrateable records must drop out."""
    from toolkit.agreement import agree, agreement_summary

    with CampaignStore.open(campaign) as store:
        records = store.current_judgments()
        scale = sorted(store.grades())
    assert {r.action for r in records} == {"judge", "skip", "unrateable"}
    result = agree(records, labels=scale, bootstrap=0)
    assert result.assessors == ("alice", "bob")
    assert result.pairs[0].quadratic.estimate.value == pytest.approx(0.833333, abs=5e-7)
    summary = agreement_summary(records, scale)
    assert summary["n_judgments"] == 24
    assert summary["pairs"][0]["kappa_linear"] == pytest.approx(0.666667, abs=5e-7)


def test_live_pair_kappas_of_the_organiser_screen(campaign: Path) -> None:
    """Unweighted kappa per pair on shared graded items, gold left out: A4's 0.444444 for alice/bob; carol
    (only a skip and an unrateable) shares nothing with anyone, and says so."""
    with CampaignStore.open(campaign) as store:
        pairs = pair_kappas(store)
    assert [(p.a, p.b, p.n) for p in pairs] == [
        ("alice", "bob", 12),
        ("alice", "carol", 0),
        ("bob", "carol", 0),
    ]
    assert pairs[0].kappa == pytest.approx(0.444444, abs=5e-7) and pairs[0].reason is None
    assert [(p.kappa, p.reason) for p in pairs[1:]] == [(None, "no shared items")] * 2


def test_live_kappa_of_one_shared_item_is_undefined_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "one.sqlite"
    with CampaignStore.open(path, create=True) as store:
        store.set_topics([CampaignTopic("q1", "query")], GRADES)
        store.add_round(
            strategy="depth", depth=1, budget=None, runs=["r"], provenance={("q1", "d1"): [("r", 1)]},
            queued=[("q1", "d1")], stale=[], snapshots=[], skipped=0,
        )  # fmt: skip
        store.add_assignments([Item(who, "q1", "d1", position=0) for who in ("alice", "bob")])
        for who in ("alice", "bob"):
            store.record(who, "q1", "d1", grade=2)
        (pair,) = pair_kappas(store)
    assert (pair.n, pair.kappa, pair.reason) == (1, None, "needs at least 10 shared items (found 1)")


@pytest.mark.parametrize("shared", [9, 10])
def test_live_kappa_follows_the_minimum_data_rule(tmp_path: Path, shared: int) -> None:
    """The organiser's live kappa obeys the one minimum-data rule of every report (10 shared items): 9 give
    no number and say why; 10 give statsmodels' unweighted kappa of the same table."""
    from statsmodels.stats.inter_rater import cohens_kappa

    a_grades = [0, 0, 1, 1, 2, 2, 3, 3, 0, 1][:shared]
    b_grades = [0, 1, 1, 1, 2, 3, 3, 3, 0, 0][:shared]
    docs = [f"d{i}" for i in range(shared)]
    path = tmp_path / "few.sqlite"
    with CampaignStore.open(path, create=True) as store:
        store.set_topics([CampaignTopic("q1", "query")], GRADES)
        store.add_round(
            strategy="depth", depth=shared, budget=None, runs=["r"],
            provenance={("q1", d): [("r", i + 1)] for i, d in enumerate(docs)},
            queued=[("q1", d) for d in docs], stale=[], snapshots=[], skipped=0,
        )  # fmt: skip
        store.add_assignments(
            [Item(who, "q1", d, position=i) for who in ("alice", "bob") for i, d in enumerate(docs)]
        )
        for d, ga, gb in zip(docs, a_grades, b_grades, strict=True):
            store.record("alice", "q1", d, grade=ga)
            store.record("bob", "q1", d, grade=gb)
        (pair,) = pair_kappas(store)
    if shared < 10:
        assert (pair.n, pair.kappa, pair.reason) == (9, None, "needs at least 10 shared items (found 9)")
    else:
        table = [
            [sum(1 for x, y in zip(a_grades, b_grades, strict=True) if (x, y) == (i, j)) for j in range(4)]
            for i in range(4)
        ]
        assert pair.kappa == pytest.approx(cohens_kappa(table).kappa, abs=1e-12) and pair.reason is None
