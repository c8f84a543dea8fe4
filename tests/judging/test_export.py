"""Every export policy on hand-made judgments; expected grades worked out by hand in each comment."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import StoreError, UsageError
from toolkit.judging.beside import beside
from toolkit.judging.export import check_log_beside, combine, export_qrels, parse_policy, round_half_up
from toolkit.judging.store import CampaignStore

# pool: (q1,d1) (q1,d2) (401,d3) (401,d1); three assessors.
#   (q1,d1):  alice 0, bob 3, carol 3      majority 3; mean 2 (6/3); max 3; min 0
#   (q1,d2):  alice 1, bob 2               majority tie {1,2} → 1 (lowest); mean 1.5 → 2 (half up); max 2; min 1
#   (401,d3): alice 2, bob skip, carol unrateable   every policy 2 (skip/unrateable are not grades)
#   (401,d1): alice unrateable, bob skip   no grade under any policy → unjudged
JUDGMENTS = [
    ("alice", "q1", "d1", 0, "judge"),
    ("bob", "q1", "d1", 3, "judge"),
    ("carol", "q1", "d1", 3, "judge"),
    ("alice", "q1", "d2", 1, "judge"),
    ("bob", "q1", "d2", 2, "judge"),
    ("alice", "401", "d3", 2, "judge"),
    ("bob", "401", "d3", None, "skip"),
    ("carol", "401", "d3", None, "unrateable"),
    ("alice", "401", "d1", None, "unrateable"),
    ("bob", "401", "d1", None, "skip"),
]


@pytest.fixture
def store(location: Path | str, make_campaign):
    path = make_campaign(location, assessors=("alice", "bob", "carol"))
    with CampaignStore.open(path) as s:
        s.record_many([(a, q, d, g, act, None) for a, q, d, g, act in JUDGMENTS])
        yield s


def qrels_of(store: CampaignStore, policy: str, **kw) -> dict[str, dict[str, int]]:
    result = export_qrels(store, parse_policy(policy, **kw.pop("parse", {})), **kw)
    return {q: dict(docs) for q, docs in result.qrels.judgments.items()}


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("majority", {"q1": {"d1": 3, "d2": 1}, "401": {"d3": 2}}),
        ("mean", {"q1": {"d1": 2, "d2": 2}, "401": {"d3": 2}}),
        ("max", {"q1": {"d1": 3, "d2": 2}, "401": {"d3": 2}}),
        ("min", {"q1": {"d1": 0, "d2": 1}, "401": {"d3": 2}}),
        ("assessor=bob", {"q1": {"d1": 3, "d2": 2}}),
        ("assessor=carol", {"q1": {"d1": 3}}),
        (
            "adjudicated",
            {"q1": {"d1": 3, "d2": 1}, "401": {"d3": 2}},
        ),  # no adjudication: the majority fallback
    ],
)
def test_policies(store: CampaignStore, policy: str, expected: dict[str, dict[str, int]]) -> None:
    assert qrels_of(store, policy) == expected


def test_unjudged_minus_one_writes_every_pool_item(store: CampaignStore) -> None:
    assert qrels_of(store, "majority", unjudged=-1) == {"q1": {"d1": 3, "d2": 1}, "401": {"d1": -1, "d3": 2}}
    # assessor=carol judged only (q1,d1); the other three pool items are unjudged for her
    assert qrels_of(store, "assessor=carol", unjudged=-1) == {
        "q1": {"d1": 3, "d2": -1},
        "401": {"d1": -1, "d3": -1},
    }


def test_adjudicated_overrides_and_falls_back(store: CampaignStore) -> None:
    store.adjudicate("judy", "q1", "d2", 2)  # settles the 1-vs-2 split
    store.adjudicate("judy", "401", "d1", 0)  # an item nobody graded can still be adjudicated
    assert qrels_of(store, "adjudicated") == {"q1": {"d1": 3, "d2": 2}, "401": {"d1": 0, "d3": 2}}
    # fallback min for the unadjudicated (q1,d1): min(0,3,3) = 0; (401,d3): 2
    assert qrels_of(store, "adjudicated", parse={"fallback": "min"}) == {
        "q1": {"d1": 0, "d2": 2},
        "401": {"d1": 0, "d3": 2},
    }
    result = export_qrels(store, parse_policy("adjudicated"))
    assert result.manifest()["counts"]["adjudicated"] == 2  # type: ignore[index]


def test_gold_items_are_never_exported(tmp_path: Path, make_campaign) -> None:
    path = make_campaign(tmp_path / "c.sqlite", assessors=("alice",))
    with CampaignStore.open(path) as store:
        from toolkit.judging.records import Item

        store.add_assignments([Item("alice", "q1", "d3", 10, gold=True)], gold={("q1", "d3"): 3})
        store.record("alice", "q1", "d3", grade=3)
        store.record("alice", "q1", "d1", grade=1)
        result = export_qrels(store, parse_policy("max"), unjudged=-1)
        assert result.qrels.judgments == {"q1": {"d1": 1, "d2": -1}, "401": {"d1": -1, "d3": -1}}
        assert result.gold_excluded == 1


def test_manifest_counts(store: CampaignStore) -> None:
    result = export_qrels(store, parse_policy("majority"))
    assert result.manifest() == {
        "policy": "majority",
        "assessors": ["alice", "bob", "carol"],
        "counts": {
            "items": 4,
            "graded": 3,
            "unjudged": 1,
            "unjudged_written_as": None,
            "adjudicated": 0,
            "majority_ties": 1,
            "gold_excluded": 0,
            "grades": {"1": 1, "2": 1, "3": 1},
        },
    }


def test_combine_rules_by_hand() -> None:
    assert combine([0, 0, 3, 3, 2], "majority") == (0, True)  # tie between 0 and 3 → lowest
    assert combine([2, 2, 3], "majority") == (2, False)
    assert combine([3], "majority") == (3, False)  # one assessor: their grade
    assert combine([3, 1], "majority") == (1, True)  # two who differ: a tie, lowest
    assert combine([2, 2], "majority") == (2, False)
    assert combine([0, 1], "mean") == (1, False)  # 0.5 → 1 (half up; Python's round gives 0)
    assert combine([2, 3], "mean") == (3, False)  # 2.5 → 3 (Python's round gives 2)
    assert combine([1, 1, 2], "mean") == (1, False)  # 1.333 → 1
    assert round_half_up(2.5) == 3 and round_half_up(1.4999) == 1


def test_bad_policies(store: CampaignStore) -> None:
    with pytest.raises(
        UsageError, match=r"--policy median: use one of adjudicated, majority, mean, max, min, assessor=NAME"
    ):
        parse_policy("median")
    with pytest.raises(UsageError, match="--policy assessor=NAME: name the assessor"):
        parse_policy("assessor=")
    with pytest.raises(
        UsageError, match=r"--policy assessor=zed: no such assessor in this campaign \(alice, bob, carol\)"
    ):
        export_qrels(store, parse_policy("assessor=zed"))
    with pytest.raises(UsageError, match="--unjudged 0: use -1 or skip"):
        export_qrels(store, parse_policy("max"), unjudged=0)


# ---------------------------------------------------------------------------------------------- forged log rows

#: Rows written around the store (``sqlite3``, ``psql`` as an organiser), each breaking one rule the store applies
#: when it appends, and the reason the export names. ``undoes`` 1 is alice's first judgment (below).
FORGED = [
    (
        ("alice", "nosuchtopic", "nosuchdoc", "judge", 99, None),
        "grade 99 is not on this campaign's scale (0, 1, 2, 3)",
    ),
    (("alice", "nosuchtopic", "nosuchdoc", "judge", 1, None), "no topic 'nosuchtopic' in this campaign"),
    (
        ("alice", "q1", "nosuchdoc", "judge", 1, None),
        "document 'nosuchdoc' is not in this campaign (topic 'q1')",
    ),
    (("adj", "q1", "d1", "adjudicate", -5, None), "grade -5 is not on this campaign's scale (0, 1, 2, 3)"),
    (
        ("x\u202eevil", "q1", "d1", "judge", 1, None),
        "invalid assessor name 'x\\u202eevil': use a non-empty name without tabs, commas, line breaks or other "
        "control characters",
    ),
    (
        ("bob", "q1", "d1", "undo", None, 1),
        "an undo of event 1, which is not a decision of 'bob' on this item",
    ),
]


def _forge(location: Path | str, row: tuple[object, ...]) -> None:
    statement = (
        "INSERT INTO judgment_log (time, assessor, query_id, doc_id, action, grade, undoes) "
        "VALUES ('2025-01-01T00:00:00Z', {0}, {0}, {0}, {0}, {0}, {0})"
    )
    if isinstance(location, Path):
        import sqlite3

        conn = sqlite3.connect(location, isolation_level=None)
        conn.execute(statement.format("?"), row)
        conn.close()
        return
    import psycopg

    from toolkit.judging.postgres.url import parse_campaign_url

    url = parse_campaign_url(location)
    with psycopg.connect(url.conninfo, autocommit=True) as conn:  # the organiser: row security does not apply
        conn.execute(f"SET search_path = {url.campaign}")
        conn.execute(statement.format("%s"), row)


@pytest.mark.parametrize(
    ("row", "reason"), FORGED, ids=[r[1].split(" ")[0] + str(i) for i, r in enumerate(FORGED)]
)
def test_export_refuses_a_log_row_that_breaks_a_rule(
    location: Path | str, make_campaign, tmp_path: Path, row: tuple[object, ...], reason: str
) -> None:
    import subprocess
    import sys

    make_campaign(location)
    with CampaignStore.open(location) as store:
        store.record("alice", "q1", "d1", grade=2)  # event 1
    _forge(location, row)
    out = tmp_path / "out.qrels"
    script = Path(sys.executable).parent / "trec-toolkit"
    result = subprocess.run(
        [str(script), "export", str(location), "--policy", "adjudicated", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr == (
        f"Error: {location}: judgment log event 2 breaks the campaign's rules ({reason}); it was written around "
        "the toolkit, so nothing was exported — check who wrote it (`trec-toolkit judgments export --log`)\n"
    )
    assert not out.exists() and not Path(f"{out}.json").exists()


#: Undos written around the store after alice's judgment of q1 d1 (event 1), an undo of it by the store (event 2)
#: and her judgment of q1 d2 (event 3), the forged undo being event 4: which ones the rule of
#: ``toolkit.judging.log`` refuses (an undo cancels an earlier decision of its own assessor on its own item).
UNDOS = [
    (("alice", "q1", "d1", "undo", None, 1), False),  # her own earlier decision on the item: allowed
    (("alice", "q1", "d1", "undo", None, 99), True),  # no such event
    (("alice", "q1", "d1", "undo", None, None), True),  # of nothing
    (("alice", "q1", "d1", "undo", None, 2), True),  # of an undo
    (("alice", "q1", "d1", "undo", None, 3), True),  # of her decision on another item
    (("bob", "q1", "d2", "undo", None, 3), True),  # of another assessor's decision
    (("alice", "q1", "d2", "undo", None, 5), True),  # of a later event (event 5, recorded after it)
]


@pytest.mark.parametrize(("row", "refused"), UNDOS, ids=[f"undo{i}" for i in range(len(UNDOS))])
def test_the_log_check_applies_the_undo_rule(
    location: Path | str, make_campaign, row: tuple[object, ...], refused: bool
) -> None:
    """Every way an undo can break the rule, on both backends; the database's query only names suspects, so a
    suspect it failed to name would pass unseen — the allowed undo shows the query does not name them all."""
    from toolkit.judging.export import check_log

    make_campaign(location)
    with CampaignStore.open(location) as store:
        store.record("alice", "q1", "d1", grade=2)  # event 1
        store.undo("alice")  # event 2
        store.record("alice", "q1", "d2", grade=1)  # event 3
    if isinstance(location, str) and row[5] in (99, 5):  # PostgreSQL's foreign key refuses them itself
        import psycopg

        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            _forge(location, row)
        return
    _forge(location, row)  # event 4
    with CampaignStore.open(location) as store:
        store.record("alice", "q1", "d2", grade=3)  # event 5
        if not refused:
            check_log(store)
            return
        with pytest.raises(
            StoreError, match=r"judgment log event 4 breaks the campaign's rules \(an undo of event"
        ):
            check_log(store)


@pytest.mark.parametrize("second", ["opens", "cannot open"])
def test_the_log_check_beside_the_reads_refuses_what_check_log_refuses(
    location: Path | str, make_campaign, monkeypatch: pytest.MonkeyPatch, second: str
) -> None:
    """``check_log_beside`` checks on a connection of its own; where none can be opened, on the caller's —
    either way a forged row stops the export, and a clean log passes."""
    make_campaign(location)
    with CampaignStore.open(location) as store:
        store.record("alice", "q1", "d1", grade=2)  # event 1
        check_log_beside(store)()  # clean
    _forge(location, FORGED[0][0])
    with CampaignStore.open(location) as store:
        if second == "cannot open":

            def refuse(cls: type, *args: object, **kwargs: object) -> CampaignStore:
                raise StoreError("no second connection today")

            monkeypatch.setattr(CampaignStore, "open", classmethod(refuse))
        checked = check_log_beside(store)
        # the pool read beside for the caller: on another connection, or on the caller's where none opens
        assert beside(store, lambda other: other.pool_columns())() == store.pool_columns()
        with pytest.raises(StoreError, match=r"judgment log event 2 breaks the campaign's rules"):
            checked()
        with pytest.raises(StoreError, match=r"judgment log event 2 breaks the campaign's rules"):
            export_qrels(store, parse_policy("majority"), checked=check_log_beside(store))


def test_a_summary_broken_by_a_forged_row_reports_the_log_check(
    location: Path | str, make_campaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agreement summary is computed while the log check finishes beside it; should a row written around
    the toolkit break the summary, the error reported is the check's (what is wrong and what to do), not the
    summary's — and on a clean log the summary's own error is not hidden."""
    import toolkit.pipeline.export as pipeline_export

    make_campaign(location)
    with CampaignStore.open(location) as store:
        store.record("alice", "q1", "d1", grade=2)  # event 1

    def broken(*args: object) -> None:
        raise ValueError("the summary met a grade it cannot place")

    monkeypatch.setattr(pipeline_export, "_agreement", broken)
    with pytest.raises(ValueError, match="the summary met a grade"):
        pipeline_export.export_campaign(location, "majority")
    _forge(location, FORGED[0][0])
    with pytest.raises(StoreError, match=r"judgment log event 2 breaks the campaign's rules"):
        pipeline_export.export_campaign(location, "majority")


@pytest.mark.parametrize("where", ["here", "from another folder"])
def test_the_manifest_hashes_the_campaign_file_hashed_beside_the_export(
    tmp_path: Path, make_campaign, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """The campaign file is hashed in a thread while the export reads it; the manifest's input is hashlib's
    SHA-256 of the file, wherever the command runs."""
    import hashlib
    import json

    from toolkit.pipeline.export import export_campaign, write_export

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "toolkit.toml").write_text("[workspace]\n", encoding="utf-8")
    campaign = ws / "c.sqlite"
    make_campaign(campaign)
    with CampaignStore.open(campaign) as store:
        store.record("alice", "q1", "d1", grade=2)
    expected = hashlib.sha256(campaign.read_bytes()).hexdigest()
    if where == "from another folder":
        (tmp_path / "elsewhere").mkdir()
        monkeypatch.chdir(tmp_path / "elsewhere")
        given: Path = Path("../ws/c.sqlite")
    else:
        monkeypatch.chdir(ws)
        given = Path("c.sqlite")
    export = export_campaign(given, "majority")
    assert export.campaign_sha256 is not None and export.campaign_sha256() == expected
    write_export(export, ws / "out.qrels", campaign=given)
    manifest = json.loads((ws / "out.qrels.json").read_text(encoding="utf-8"))
    # recorded relative to the workspace found from where the command runs (none from the other folder)
    assert manifest["inputs"]["campaign"] == {"path": str(given), "sha256": expected}


def test_export_console_script_loads_no_statsmodels_scipy_or_pandas(tmp_path: Path, make_campaign) -> None:
    """The manifest's agreement summary is point estimates: the whole ``export`` process, as a user runs it,
    imports none of statsmodels, scipy, pandas or scikit-learn (``-X importtime`` names every module)."""
    from helpers.imports import console_script_imports

    campaign = make_campaign(tmp_path / "c.sqlite", assessors=("alice", "bob", "carol"))
    with CampaignStore.open(campaign) as store:
        store.record_many([(a, q, d, g, act, None) for a, q, d, g, act in JUDGMENTS])
    out = tmp_path / "m.qrels"
    result, loaded = console_script_imports(
        "export", str(campaign), "--policy", "majority", "-o", str(out), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "toolkit.agreement.agree" in loaded  # the summary was made
    assert sorted(m for m in loaded if m.split(".")[0] in ("statsmodels", "scipy", "pandas", "sklearn")) == []
    assert out.exists() and Path(f"{out}.json").exists()
