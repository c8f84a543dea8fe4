"""The judging loop in a real terminal: `trec-toolkit judge` under tmux, killed with SIGKILL mid-session.

Every judgment whose effect was on screen before the kill must be in the store (the app commits before it
moves on), and a restart must resume at the store's next item.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from tui_helpers import TMUX, Terminal, build_campaign

from toolkit.judging.journal import journal_folder, read_entries
from toolkit.judging.queue import next_item
from toolkit.judging.store import CampaignStore

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (.ci/run installs it)")
SCRIPT = Path(sys.executable).parent / "trec-toolkit"


def decisions(path: Path) -> list[tuple[str, str, int | None]]:
    with CampaignStore.open(path) as store:
        return [(e.action, e.doc_id, e.grade) for e in store.log() if e.assessor == "alice"]


def test_sigkill_mid_session_loses_nothing_and_restart_resumes(tmp_path: Path) -> None:
    path = build_campaign(tmp_path / "camp.sqlite")
    argv = [str(SCRIPT), "judge", str(path), "--assessor", "alice"]
    term = Terminal(tmp_path)
    try:
        term.start(argv, tmp_path)
        term.wait_for("Item 1 of 5")
        assert "doc-a" in term.screen()
        term.keys("2")
        term.wait_for("doc-b")
        term.keys("s")
        term.wait_for("doc-c")
        term.keys("0")
        term.wait_for("doc-d")
        # One more key, and the kill right behind it: that judgment may or may not have landed, but the
        # store must hold either all of it or nothing, and the three on-screen ones for sure.
        term.keys("1")
        os.kill(term.pid(), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while term.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not term.alive()

        made = decisions(path)
        assert made[:3] == [("judge", "doc-a", 2), ("skip", "doc-b", None), ("judge", "doc-c", 0)]
        assert made[3:] in ([], [("judge", "doc-d", 1)])
        # The fourth key may also sit in the window's journal only (fsync'ed, not yet committed): the
        # restart replays it, so it counts as made.
        journaled = [
            e.event
            for f in sorted(journal_folder(path).glob("*.jsonl"))
            for e in read_entries(iter(f.read_bytes().splitlines()))
        ]  # fmt: skip
        assert [(e.doc_id, e.grade) for e in journaled] in ([], [("doc-d", 1)])
        fourth = len(made) == 4 or bool(journaled)
        with CampaignStore.open(path) as store:
            expected = next_item(store, "alice")
            queue = store.queue("alice")
            if fourth and len(made) == 3:  # what the store will say once the journal is replayed
                expected = next((i for i in queue if i.doc_id == "doc-e"), None)
        assert expected is not None and expected.doc_id == ("doc-e" if fourth else "doc-d")

        # The restart resumes at the store's next item, and keeps judging into the same log.
        term.start(argv, tmp_path)
        position = queue.index(expected) + 1
        screen = term.wait_for(f"Item {position} of 5")
        assert expected.doc_id in screen, screen
        term.keys("3")
        # then doc-e if it is still open, else back to the skipped doc-b (everything else is decided)
        term.wait_for("Item 5 of 5" if expected.doc_id == "doc-d" else "Item 2 of 5")
        term.keys("q")
        deadline = time.monotonic() + 10
        while term.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not term.alive()
        assert decisions(path)[-1] == ("judge", expected.doc_id, 3)
    finally:
        term.close()


#: Control sequences a document may hold (docs/design.md §5, Limits): clear screen, window title (OSC 2), a hyperlink (OSC 8), the clipboard (OSC 52), 8-bit CSI.
ATTACK = (
    "\x1b[2J\x1b[H cleared"
    " \x1b]2;PWNED-TITLE\x07"
    " \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
    " \x1b]52;c;cm0gLXJmIH4K\x07"
    " \x9b2J"
)


def test_escape_sequences_in_campaign_text_are_shown_not_obeyed(tmp_path: Path) -> None:
    from tui_helpers import TOPICS

    topics = [
        type(TOPICS[0])("t1", "hashable \x1b]2;TOPIC-TITLE\x07protocol", "desc \x1b[2J here", "narr", "prose")
    ]
    docs = {"doc-x": ("Title \x1b]2;DOC-TITLE\x07", f"Intro line.\n\n{ATTACK}\n\nLast line.")}
    path = build_campaign(tmp_path / "esc.sqlite", [("t1", "doc-x")], docs=docs, topics=topics)
    with CampaignStore.open(path) as store:
        store.add_note("alice", "t1", "doc-x", "note \x1b]52;c;bm90ZQ==\x07 end")
        store.record("alice", "t1", "doc-x", action="skip")
    term = Terminal(tmp_path)
    try:
        term.start([str(SCRIPT), "judge", str(path), "--assessor", "alice"], tmp_path)
        term.wait_for("Last line.")
        before = term.title()
        time.sleep(0.5)
        screen = term.screen()
        # Made visible, in order, on the screen: the sequences are text now.
        for shown in ("␛[2J␛[H cleared", "␛]2;PWNED-TITLE␇", "␛]8;;https://evil.example/␛\\click", "␛]52;c;"):
            assert shown in screen, screen
        assert "\\x9b2J" in screen
        assert "␛]2;DOC-TITLE␇" in screen and "␛]2;TOPIC-TITLE␇" in screen and "␛]52;c;bm90ZQ==␇" in screen
        # Not obeyed: the screen was not cleared (the header, drawn first, is still there), the pane title
        # is unchanged, and no OSC 52 reached tmux's clipboard.
        assert "trec-toolkit judge" in screen and "Intro line." in screen
        assert "PWNED" not in term.title() and "TITLE" not in term.title()
        assert term.title() == before
        assert term.buffers() == ""
        term.keys("q")
    finally:
        term.close()


def test_sigkill_while_the_campaign_is_busy_loses_nothing_queued(tmp_path: Path) -> None:
    """Another connection holds the write lock, so every grade waits in the outbox (and its journal); the
    process is killed with SIGKILL. The restart shows those decisions, resumes after them, and once the lock
    goes, writes each exactly once."""
    from tui_helpers import WriteLock

    path = build_campaign(tmp_path / "camp.sqlite")
    argv = [str(SCRIPT), "judge", str(path), "--assessor", "alice"]
    lock = WriteLock(path)
    term = Terminal(tmp_path)
    try:
        term.start(argv, tmp_path)
        term.wait_for("Item 1 of 5")
        for key, next_doc in (("2", "doc-b"), ("s", "doc-c"), ("0", "doc-d")):
            term.keys(key)
            term.wait_for(next_doc)
        term.wait_for("3 not saved yet")
        os.kill(term.pid(), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while term.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not term.alive()
        assert decisions(path) == []  # the lock was held throughout: nothing reached the campaign
        assert len(list(journal_folder(path).iterdir())) == 1

        term.start(argv, tmp_path)
        screen = term.wait_for("Item 4 of 5")  # resumes after the three it adopted
        assert "doc-d" in screen, screen
        lock.release()
        deadline = time.monotonic() + 20
        while len(decisions(path)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert time.monotonic() < deadline, "the adopted decisions never landed"
        term.keys("q")
        deadline = time.monotonic() + 10
        while term.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not term.alive()
    finally:
        lock.release()
        term.close()
    assert decisions(path) == [("judge", "doc-a", 2), ("skip", "doc-b", None), ("judge", "doc-c", 0)]
    assert not journal_folder(path).exists()
