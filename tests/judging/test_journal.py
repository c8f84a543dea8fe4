"""The outbox's journal: a window killed while its decisions wait for a busy store loses none of them, and
the next window of the same assessor writes each exactly once.

The kill is simulated at every point of the writer's work: after the k-th write committed but before the
journal recorded it as done (the worst moment: the store has it, the journal still says "queued"). The
expected log comes from an oracle that shares nothing with the journal: the same actions in a write-through
session (every write committed before the method returns) on a copy of the campaign.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolkit.judging.journal import journal_folder, read_entries
from toolkit.judging.session import JudgingSession
from toolkit.judging.store import CampaignStore


@pytest.fixture
def path(tmp_path: Path, make_campaign) -> Path:
    return make_campaign(tmp_path / "c.sqlite")


def act(session: JudgingSession) -> None:
    """Six writes of every kind: decisions, a note, an undo, a re-decision."""
    session.grade(2)  # q1/d1
    session.note("checked twice")  # on q1/d2, no decision yet
    session.grade(1)  # q1/d2
    session.undo()  # cancels q1/d2 grade 1, back on q1/d2
    session.grade(3)  # q1/d2 again
    session.unrateable()  # 401/d3


WRITES = 6


def projection(path: Path) -> list[tuple[str, str, str, int | None, str | None]]:
    with CampaignStore.open(path) as store:
        return [(e.action, e.query_id, e.doc_id, e.grade, e.note) for e in store.events(assessor="alice")]


def oracle(path: Path, tmp_path: Path) -> list[tuple[str, str, str, int | None, str | None]]:
    copy = tmp_path / "oracle.sqlite"
    shutil.copy(path, copy)
    with CampaignStore.open(copy) as store:
        act(JudgingSession(store, "alice"))  # write-through: nothing queued, nothing journaled
    return projection(copy)


def flush(session: JudgingSession, store: CampaignStore, count: int | None = None) -> None:
    """The writer's loop, by hand: ``count`` writes (all when None), each outcome applied."""
    done = 0
    while count is None or done < count:
        outcome = session.log.outbox.flush_one(store)
        if outcome is None:
            return
        assert outcome.saved, outcome
        session.apply(outcome)
        done += 1


def journal_files(path: Path) -> list[Path]:
    folder = journal_folder(path)
    return sorted(folder.iterdir()) if folder.is_dir() else []


@pytest.mark.parametrize("killed_after", range(WRITES + 1))
def test_a_killed_window_s_decisions_land_exactly_once(path: Path, tmp_path: Path, killed_after: int) -> None:
    expected = oracle(path, tmp_path)
    folder = journal_folder(path)
    with CampaignStore.open(path) as store:
        window = JudgingSession(store, "alice", write_through=False, journal=folder)
        act(window)
        assert projection(path) == []  # all queued, none written
        [journal] = journal_files(path)
        assert len(read_entries(iter(journal.read_bytes().splitlines(keepends=True)))) == WRITES
        # The writer commits `killed_after` writes; the process dies right after the last commit, before
        # the journal could record it as done.
        if killed_after:
            flush(window, store, killed_after - 1)
        at_kill = journal.read_bytes()
        if killed_after:
            flush(window, store, 1)
        window.log.outbox.close_journal()  # the kernel drops the dead process's lock
        folder.mkdir(exist_ok=True)  # (gone when the last write emptied the queue)
        journal.write_bytes(at_kill)
    assert len(projection(path)) == killed_after

    with CampaignStore.open(path) as store:
        restarted = JudgingSession(store, "alice", write_through=False, journal=folder)
        assert restarted.adopted == WRITES - max(killed_after - 1, 0)
        assert journal_files(path) == [] or all(p != journal for p in journal_files(path))
        flush(restarted, store)
        assert restarted.log.outbox.close_journal() is None
    assert projection(path) == expected
    assert not folder.exists()  # nothing left to replay, nothing left behind
    with CampaignStore.open(path) as store:
        again = JudgingSession(store, "alice", write_through=False, journal=folder)
        assert again.adopted == 0
        assert [(j.query_id, j.doc_id, j.grade) for j in again.decisions.values()] == [
            ("q1", "d1", 2),
            ("q1", "d2", 3),
            ("401", "d3", None),
        ]
        assert again.item is not None and (again.item.query_id, again.item.doc_id) == ("401", "d1")


def test_the_restarted_window_shows_the_adopted_decisions_and_resumes_after_them(path: Path) -> None:
    folder = journal_folder(path)
    with CampaignStore.open(path) as store:
        window = JudgingSession(store, "alice", write_through=False, journal=folder)
        window.grade(2)
        window.skip()
        window.log.outbox.close_journal()
    with CampaignStore.open(path) as store:
        restarted = JudgingSession(store, "alice", write_through=False, journal=folder)
        # Not written yet, but shown as made, and the cursor is past them (the store alone would say q1/d1).
        assert projection(path) == []
        assert restarted.adopted == 2
        assert restarted.item is not None and (restarted.item.query_id, restarted.item.doc_id) == (
            "401",
            "d3",
        )
        assert restarted.progress().overall.judged == 1 and restarted.progress().overall.skipped == 1


def test_a_live_window_s_journal_is_left_alone(path: Path) -> None:
    folder = journal_folder(path)
    with CampaignStore.open(path) as one, CampaignStore.open(path) as two:
        live = JudgingSession(one, "alice", write_through=False, journal=folder)
        live.grade(2)
        other = JudgingSession(two, "alice", write_through=False, journal=folder)
        assert other.adopted == 0  # the first window holds its lock: its writes are its own to make
        assert len(journal_files(path)) == 1
        bob = JudgingSession(two, "bob", write_through=False, journal=folder)
        assert bob.adopted == 0  # another assessor's journal is never theirs
        flush(live, one)
        assert projection(path) == [("judge", "q1", "d1", 2, None)]


def test_a_torn_last_line_is_ignored(path: Path) -> None:
    folder = journal_folder(path)
    with CampaignStore.open(path) as store:
        window = JudgingSession(store, "alice", write_through=False, journal=folder)
        window.grade(2)
        window.grade(0)
        window.log.outbox.close_journal()
    [journal] = journal_files(path)
    data = journal.read_bytes()
    journal.write_bytes(data[: len(data) - 20])  # killed while writing the second line
    with CampaignStore.open(path) as store:
        restarted = JudgingSession(store, "alice", write_through=False, journal=folder)
        assert restarted.adopted == 1
        flush(restarted, store)
    assert projection(path) == [("judge", "q1", "d1", 2, None)]


def test_a_replayed_decision_never_overwrites_a_later_one(path: Path) -> None:
    """The killed window's queued grade meets a decision another window made since: it comes back as a
    conflict (the screen asks), and the other decision stays in force."""
    folder = journal_folder(path)
    with CampaignStore.open(path) as store:
        window = JudgingSession(store, "alice", write_through=False, journal=folder)
        window.grade(2)
        window.log.outbox.close_journal()
        store.record("alice", "q1", "d1", grade=0)  # another window, meanwhile
    with CampaignStore.open(path) as store:
        restarted = JudgingSession(store, "alice", write_through=False, journal=folder)
        assert restarted.adopted == 1
        outcome = restarted.log.outbox.flush_one(store)
        assert outcome is not None and outcome.conflict
        conflict = restarted.apply(outcome)
        assert conflict is not None and conflict.theirs is not None and conflict.theirs.grade == 0
        assert conflict.grade == 2
        restarted.log.outbox.close_journal()
    assert projection(path) == [("judge", "q1", "d1", 0, None)]
    assert not folder.exists()  # the refusal was recorded: it will not be replayed again


def test_when_the_journal_cannot_be_written_the_queue_still_works_in_memory(
    path: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the journal folder would go")
    with CampaignStore.open(path) as store:
        window = JudgingSession(store, "alice", write_through=False, journal=blocked)
        window.grade(2)
        assert window.log.outbox.journal_error is not None
        assert str(blocked) in window.log.outbox.journal_error
        assert not window.log.outbox.journaled
        flush(window, store)
    assert projection(path) == [("judge", "q1", "d1", 2, None)]
