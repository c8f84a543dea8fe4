"""Judging in a real browser through ``trec-toolkit judge --serve`` (docs/design.md §8).

Every check of what was judged reads the campaign through a second connection (the store's own API), never
the app's memory; what the browser shows is the terminal screen it received (conftest.py).
"""

from __future__ import annotations

import fcntl
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "tui"))  # the campaigns and harnesses of the TUI tests
from tui_helpers import TMUX, Terminal, WriteLock, build_campaign  # noqa: E402

from toolkit.judging.journal import journal_folder  # noqa: E402
from toolkit.judging.store import CampaignStore  # noqa: E402

#: A folder name a shell would take apart: the served command must carry it whole.
HOSTILE = 'it\'s; touch pwned; $(touch pwned2) `touch pwned3` "q"'


def log(path: Path, assessor: str | None = None) -> list[tuple[str, str, str, int | None]]:
    with CampaignStore.open(path) as store:
        return [(e.assessor, e.action, e.doc_id, e.grade) for e in store.events(assessor=assessor)]


def logged(
    path: Path,
    expected: list[tuple[str, str, str, int | None]],
    assessor: str | None = None,
    timeout: float = 60,
) -> None:
    """Wait until the campaign holds ``expected``: the screen shows the next document once the write is
    done or after a short grace (docs/assessing.md), so on a loaded machine the write may come just after."""
    deadline = time.monotonic() + timeout
    while (found := log(path, assessor)) != expected:
        assert time.monotonic() < deadline, found
        time.sleep(0.05)


def test_judging_in_a_browser_writes_the_store_and_a_reload_resumes(
    tmp_path: Path, serve: Any, page: Any
) -> None:
    folder = tmp_path / HOSTILE
    folder.mkdir()
    path = build_campaign(folder / "camp.sqlite", assessors=("o'neil",))
    server = serve("judge", str(path), "--assessor", "o'neil")
    page.open(server.url)
    screen = page.wait_for("Item 1 of 5")
    assert "Hashable · doc-a" in screen and "assessor o'neil" in screen
    for key, shown in (("2", "Hasher · doc-b"), ("s", "Set · doc-c"), ("0", "URLSession · doc-d")):
        page.press(key)
        page.wait_for(shown)
    logged(
        path,
        [
            ("o'neil", "judge", "doc-a", 2),
            ("o'neil", "skip", "doc-b", None),
            ("o'neil", "judge", "doc-c", 0),
        ],
    )
    # A reload is a new connection, so a new app: it resumes at the store's next item.
    page.reload()
    screen = page.wait_for("Item 4 of 5")
    assert "URLSession · doc-d" in screen
    assert "This topic  0 judged · 2 left" in screen
    page.press("1")
    page.wait_for("URLRequest · doc-e")
    page.wait_until(lambda: log(path)[-1] == ("o'neil", "judge", "doc-d", 1), timeout=60)
    # q ends the app; the page says the session ended.
    page.press("q")
    page.wait_until(lambda: page.closed)
    page.page.wait_for_selector("body.-closed", timeout=10_000)
    # The page closes when the socket does; each app (the one the reload replaced too, which may end
    # later on a loaded machine) removes its journal as it exits: wait for the apps, then look.
    page.wait_until(lambda: not server.apps(), timeout=60)
    assert not journal_folder(path).exists()  # nothing was left waiting
    assert not list(tmp_path.rglob("pwned*")) and not list(Path.cwd().glob("pwned*"))


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (.ci/run installs it)")
def test_two_assessors_at_once_one_in_a_terminal_one_in_a_browser(
    tmp_path: Path, serve: Any, page: Any
) -> None:
    """Alice judges in a terminal, bob in the browser, into one campaign, at once."""
    path = build_campaign(tmp_path / "camp.sqlite", assessors=("alice", "bob"))
    server = serve("judge", str(path), "--assessor", "bob")
    page.open(server.url)
    page.wait_for("Item 1 of 5")
    terminal = Terminal(tmp_path)
    script = Path(sys.executable).parent / "trec-toolkit"
    try:
        terminal.start([str(script), "judge", str(path), "--assessor", "alice"], tmp_path)
        terminal.wait_for("Item 1 of 5")
        turns = [
            ("alice", "2", "doc-b"),
            ("bob", "0", "doc-b"),
            ("alice", "s", "doc-c"),
            ("bob", "3", "doc-c"),
            ("bob", "x", "doc-d"),
            ("alice", "1", "doc-d"),
        ]
        for who, key, next_doc in turns:
            if who == "alice":
                terminal.keys(key)
                terminal.wait_for(next_doc)
            else:
                page.press(key)
                page.wait_for(next_doc)
        alice = [
            ("alice", "judge", "doc-a", 2),
            ("alice", "skip", "doc-b", None),
            ("alice", "judge", "doc-c", 1),
        ]
        logged(path, alice, "alice")
        logged(
            path,
            [
                ("bob", "judge", "doc-a", 0),
                ("bob", "judge", "doc-b", 3),
                ("bob", "unrateable", "doc-c", None),
            ],
            "bob",
        )
        # Each sees only their own decisions (blind judging) and their own progress.
        page.press("p")
        assert "Your decision: unrateable" in page.wait_for("Set · doc-c")
        terminal.keys("p")
        assert "Your decision: grade 1" in terminal.wait_for("Set · doc-c")
        terminal.keys("q")
        page.press("q")
        page.wait_until(lambda: page.closed)
    finally:
        terminal.close()


def journal_released(path: Path) -> bool:
    """No window holds a journal of this campaign any more (its process is gone, or it closed it)."""
    folder = journal_folder(path)
    for journal in folder.iterdir() if folder.is_dir() else ():
        with open(journal, "rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            fcntl.flock(handle, fcntl.LOCK_UN)
    return True


def test_a_tab_closed_while_the_campaign_is_busy_loses_nothing(
    tmp_path: Path, serve: Any, browser: Any, page: Any
) -> None:
    """Another process holds the write lock; bob grades two documents in the browser (they wait in the
    outbox) and closes the tab, which ends his app. A new tab shows them decided and, once the lock goes,
    they are in the campaign exactly once."""
    path = build_campaign(tmp_path / "camp.sqlite", assessors=("bob",))
    server = serve("judge", str(path), "--assessor", "bob")
    lock = WriteLock(path)
    try:
        page.open(server.url)
        page.wait_for("Item 1 of 5")
        page.press("2")
        page.wait_for("Hasher · doc-b")
        page.press("0")
        page.wait_for("Set · doc-c")
        page.wait_for("2 not saved yet")
        page.page.close()  # the tab goes, and with it the app (its last try at the store is still waiting)
        lock.release()
        deadline = time.monotonic() + 40
        while not journal_released(path):
            assert time.monotonic() < deadline, "the closed tab's app never let go of its journal"
            time.sleep(0.1)
        second = type(page)(browser)
        try:
            second.open(server.url)
            screen = second.wait_for("Item 3 of 5")  # both decisions count, saved or not
            assert "Set · doc-c" in screen
            second.wait_until(lambda: len(log(path)) == 2)
            second.wait_until(lambda: "not saved" not in second.text())
        finally:
            second.close()
    finally:
        lock.release()
    assert log(path) == [("bob", "judge", "doc-a", 2), ("bob", "judge", "doc-b", 0)]


def test_the_organisers_progress_screen_in_a_browser(tmp_path: Path, serve: Any, page: Any) -> None:
    path = build_campaign(tmp_path / "camp.sqlite", assessors=("alice", "bob"))
    with CampaignStore.open(path) as store:
        store.record("alice", "t1", "doc-a", grade=2, duration_ms=4000)
        store.record("bob", "t1", "doc-a", grade=0, duration_ms=3000)
        store.record("bob", "t1", "doc-b", action="skip")
    server = serve("progress", str(path), "--interval", "0.5")
    page.open(server.url)
    page.wait_for("Agreement")
    page.wait_until(lambda: len(totals(page.text())) == 2)
    # assigned, judged, unrateable, skipped, left
    assert totals(page.text()) == {"alice": ["5", "1", "0", "0", "4"], "bob": ["5", "1", "0", "1", "4"]}
    with CampaignStore.open(path) as store:
        store.record("alice", "t1", "doc-b", grade=1, duration_ms=2000)
    page.wait_until(lambda: totals(page.text()).get("alice") == ["5", "2", "0", "0", "3"])  # live


def totals(screen: str) -> dict[str, list[str]]:
    """The Assessors table's counts per assessor (the first table on the screen)."""
    rows: dict[str, list[str]] = {}
    for line in screen.splitlines():
        words = line.split()
        if words[:1] in (["alice"], ["bob"]) and words[0] not in rows:
            rows[words[0]] = words[1:6]
    return rows
