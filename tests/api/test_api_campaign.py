"""``Campaign.open(location)``: judgments and log as DataFrames, read through ``CampaignStore.open``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from api_campaign import DECISIONS

import toolkit
from toolkit.errors import StoreError


def test_judgments_frame_holds_the_current_decisions(example_campaign: Path) -> None:
    judged = toolkit.Campaign.open(example_campaign).judgments()
    assert list(judged.columns) == [
        "assessor", "query_id", "doc_id", "grade", "action", "note", "time", "duration_ms", "event_id",
        "content_hash",
    ]  # fmt: skip
    got = {
        (r.assessor, r.query_id, r.doc_id): (
            r.action if pd.isna(r.grade) else int(r.grade),
            int(r.duration_ms),
            None if pd.isna(r.note) else r.note,
        )
        for r in judged.itertuples()
    }
    # bob's first grade of (q1, d1), 0, was undone: his current grade is the later 2
    assert got == {(a, q, d): (g, ms, note) for a, q, d, g, ms, note in DECISIONS}
    assert str(judged.grade.dtype) == "Int64" and str(judged.duration_ms.dtype) == "Int64"
    assert str(judged.time.dt.tz) == "UTC"
    # topic order of the campaign (q1, then 401), then doc id, then assessor
    assert list(zip(judged.query_id, judged.doc_id, judged.assessor, strict=True))[:3] == [
        ("q1", "d1", "alice"), ("q1", "d1", "bob"), ("q1", "d2", "alice"),
    ]  # fmt: skip


def test_log_frame_is_every_event(example_campaign: Path) -> None:
    log = toolkit.Campaign.open(example_campaign).log()
    assert list(log.action) == ["judge", "undo"] + [
        "skip" if g == "skip" else "judge" for _, _, _, g, _, _ in DECISIONS
    ]
    assert list(log.event_id) == list(range(1, len(DECISIONS) + 3))
    assert int(log.undoes.iloc[1]) == 1 and log.undoes.iloc[2:].isna().all()
    assert int(log.grade.iloc[0]) == 0  # the undone grade stays in the log


def test_open_goes_through_the_store_interface(
    example_campaign: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``postgresql://`` URL reaches ``CampaignStore.open`` as it is: whichever backend serves it works."""
    from toolkit.judging.store import CampaignStore

    opened: list[str] = []
    real = CampaignStore.open.__func__  # type: ignore[attr-defined]

    def fake_open(cls: type[CampaignStore], location: str, *, create: bool = False) -> CampaignStore:
        opened.append(str(location))
        return real(cls, example_campaign, create=create)

    monkeypatch.setattr(CampaignStore, "open", classmethod(fake_open))
    url = "postgresql://judge@db.example/trec?campaign=example"
    campaign = toolkit.Campaign.open(url)
    assert campaign.location == url
    assert len(campaign.judgments()) == len(DECISIONS)
    assert toolkit.agree(url, bootstrap=0).n_judgments == len(DECISIONS) - 1  # one skip
    assert set(opened) == {url}


def test_a_missing_campaign_is_a_store_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.sqlite"
    with pytest.raises(StoreError) as err:
        toolkit.Campaign.open(missing)
    assert (
        str(err.value)
        == f"{missing}: no such campaign; create one with `trec-toolkit pool RUN… -o {missing}`"
    )
    assert not missing.exists()


def test_an_empty_campaign_gives_empty_frames_with_the_columns(tmp_path: Path) -> None:
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(tmp_path / "empty.sqlite", create=True):
        pass
    campaign = toolkit.Campaign.open(tmp_path / "empty.sqlite")
    assert campaign.judgments().empty and "duration_ms" in campaign.judgments().columns
    assert campaign.log().empty and "undoes" in campaign.log().columns
