"""``judgments import``/``export`` in the library: path:line errors, all-or-nothing, round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats.judgments import format_judgments, format_log
from toolkit.judging.exchange import import_judgments
from toolkit.judging.records import Item
from toolkit.judging.store import CampaignStore


@pytest.fixture
def store(location: Path | str, make_campaign):
    with CampaignStore.open(make_campaign(location)) as s:
        yield s


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "in.tsv"
    path.write_text(text)
    return path


GOOD = "assessor\tquery_id\tdoc_id\tgrade\n# a comment\nalice\tq1\td1\t2\nbob\t401\td3\tskip\nbob\tq1\td1\t0\tnot it\n"


def test_import_then_export_round_trip(tmp_path: Path, store: CampaignStore) -> None:
    assert import_judgments(store, write(tmp_path, GOOD)) == 3
    text = format_judgments(store.current_judgments())
    assert text == (
        "assessor\tquery_id\tdoc_id\tgrade\tnote\tduration_ms\n"
        "alice\tq1\td1\t2\t\t\nbob\tq1\td1\t0\tnot it\t\nbob\t401\td3\tskip\t\t\n"
    )
    assert store.current("bob", "q1", "d1").note == "not it"  # type: ignore[union-attr]
    rows = [json.loads(line) for line in format_judgments(store.current_judgments(), "jsonl").splitlines()]
    assert [(r["assessor"], r["grade"], r["action"], r["note"]) for r in rows] == [
        ("alice", 2, "judge", None),
        ("bob", 0, "judge", "not it"),
        ("bob", None, "skip", None),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("alice\tq1\td1\t2\nalice\tq9\td1\t2\n", 2, "unknown topic 'q9': not in this campaign"),
        (
            "alice\tq1\td1\t2\nalice\tq1\tzzz\t1\n",
            2,
            "unknown document 'zzz': not in this campaign (pool it first)",
        ),
        ("alice\tq1\td1\t7\n", 1, "grade 7 is not on the campaign's scale (0, 1, 2, 3)"),
        ("alice\tq1\td1\thigh\n", 1, "expected an integer grade, 'skip' or 'unrateable', found 'high'"),
        (
            "alice q1 d1 2\n",
            1,
            "expected 4 tab-separated columns (assessor query_id doc_id grade) and an optional note, found 1",
        ),
        (
            "alice\tq1\td1\t2\nalice\tq1\td1\t3\n",
            2,
            "duplicate judgment by alice of (q1, d1); first on line 1 (keep one line per assessor and item)",
        ),
        (
            "al,ice\tq1\td1\t2\n",
            1,
            "invalid assessor name 'al,ice': use a non-empty name without tabs, commas, line breaks or other control characters",
        ),
    ],
)
def test_import_errors_name_path_line_and_import_nothing(
    tmp_path: Path, store: CampaignStore, text: str, line: int, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(FormatError) as err:
        import_judgments(store, path)
    assert str(err.value) == f"{path}:{line}: {message}"
    assert store.log() == []


def test_import_is_one_transaction(tmp_path: Path, store: CampaignStore) -> None:
    """Even a defect only the store detects (here: a grade the store refuses) rolls back every row."""
    rows = [("alice", "q1", "d1", 2, "judge", None), ("alice", "q1", "d2", 9, "judge", None)]
    from toolkit.errors import StoreError

    with pytest.raises(StoreError):
        store.record_many(rows)
    assert store.log() == []


def test_empty_import_is_an_error(tmp_path: Path, store: CampaignStore) -> None:
    path = write(tmp_path, "assessor\tquery_id\tdoc_id\tgrade\n")
    with pytest.raises(FormatError, match="no judgments found"):
        import_judgments(store, path)


def test_log_export(store: CampaignStore) -> None:
    store.record("alice", "q1", "d1", grade=2, note="tab\there", duration_ms=5)
    store.undo("alice")
    lines = format_log(store.log()).splitlines()
    assert (
        lines[0]
        == "event_id\ttime\tassessor\tquery_id\tdoc_id\taction\tgrade\tnote\tduration_ms\tposition\tcontent_hash\tundoes"
    )
    first = lines[1].split("\t")
    assert (first[0], first[2:9]) == ("1", ["alice", "q1", "d1", "judge", "2", "tab\\there", "5"])
    second = lines[2].split("\t")
    assert (second[5], second[6], second[11]) == ("undo", "", "1")


# --------------------------------------------------------------------------- pooled for another topic only


def test_a_doc_pooled_for_another_topic_only_is_refused(tmp_path: Path, store: CampaignStore) -> None:
    """d3 is pooled for 401 only (conftest POOL): a grade of (q1, d3) is a claim about an item nobody pooled,
    so it is refused at its line — and nothing of the file is imported."""
    path = write(tmp_path, "alice\tq1\td1\t2\nalice\tq1\td3\t1\n")
    with pytest.raises(FormatError) as err:
        import_judgments(store, path)
    assert str(err.value) == (
        f"{path}:2: document 'd3' was not pooled for topic 'q1' (only for 401); judge it in a round that pools "
        "it for q1, or import it anyway with --allow-unpooled"
    )
    assert store.log() == []


def test_allow_unpooled_imports_it(tmp_path: Path, store: CampaignStore) -> None:
    path = write(tmp_path, "alice\tq1\td1\t2\nalice\tq1\td3\t1\n")
    assert import_judgments(store, path, allow_unpooled=True) == 2
    assert store.current("alice", "q1", "d3").grade == 1  # type: ignore[union-attr]


def test_allow_unpooled_still_refuses_a_doc_the_campaign_never_saw(
    tmp_path: Path, store: CampaignStore
) -> None:
    path = write(tmp_path, "alice\tq1\tzzz\t1\n")
    with pytest.raises(FormatError) as err:
        import_judgments(store, path, allow_unpooled=True)
    assert str(err.value) == f"{path}:1: unknown document 'zzz': not in this campaign (pool it first)"


def test_gold_items_count_as_pooled_for_their_topic(tmp_path: Path, make_campaign) -> None:
    with CampaignStore.open(make_campaign(tmp_path / "g.sqlite")) as store:
        store.add_assignments([Item("alice", "q1", "d3", 99, gold=True)], gold={("q1", "d3"): 2})
        assert import_judgments(store, write(tmp_path, "alice\tq1\td3\t2\n")) == 1


# --------------------------------------------------------------------------- notes survive export → import


NOTES = [
    "a literal backslash-n: \\n, backslash-t: \\t, two backslashes: \\\\, and one at the end\\",
    "real breaks\nand\ttabs\r\nand a CR\r alone",
    'commas, "quotes", U+2028\u2028 U+2029\u2029 NEL\x85 FS\x1c — all inside',
]


@pytest.mark.parametrize(("fmt", "name"), [("tsv", "x.tsv"), ("csv", "x.csv"), ("jsonl", "x.jsonl")])
def test_notes_survive_export_then_import_in_every_format(
    tmp_path: Path, make_campaign, fmt: str, name: str
) -> None:
    with CampaignStore.open(make_campaign(tmp_path / "a.sqlite")) as source:
        for note, (query_id, doc_id) in zip(NOTES, [("q1", "d1"), ("q1", "d2"), ("401", "d3")], strict=True):
            source.record("alice", query_id, doc_id, grade=1, note=note)
        exported = format_judgments(source.current_judgments(), fmt)
    path = tmp_path / name
    path.write_text(exported, encoding="utf-8")
    with CampaignStore.open(make_campaign(tmp_path / "b.sqlite")) as target:
        assert import_judgments(target, path) == 3
        assert sorted(j.note or "" for j in target.current_judgments()) == sorted(NOTES)
