"""A second store opened in one process must not cost the first its locks (and another process its commits).

POSIX drops every lock a process holds on a file when the process closes *any* descriptor of it. The store
reads a campaign's header with a plain ``open`` before SQLite touches it; done while this process already
had a connection, that close dropped the connection's shared lock, and another process closing its own
connection then took itself for the last one, checkpointed, and deleted the ``-wal`` and ``-shm`` files
still in use: a commit made afterwards by a third process was never seen and was lost when the first
connection closed (sqlite.org, "How To Corrupt An SQLite Database File", section 2.2). The judging app opens
several stores on one campaign (screen, writer, reader) while other processes (a progress screen, another
assessor) open and close theirs.

The expected rows come from what each process committed, not from the store's own reads.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toolkit.judging.store import CampaignStore


def other_process(path: Path, code: str) -> None:
    prelude = (
        "import sys; from toolkit.judging.store import CampaignStore\n"
        f"store = CampaignStore.open({str(path)!r})\n"
    )
    subprocess.run([sys.executable, "-c", prelude + code + "\nstore.close()\n"], check=True, timeout=60)


def test_a_second_store_in_one_process_keeps_the_first_one_s_locks(tmp_path: Path, make_campaign) -> None:
    path = make_campaign(tmp_path / "c.sqlite")
    first = CampaignStore.open(path)
    try:
        first.record("alice", "q1", "d1", grade=1)
        CampaignStore.open(path).close()  # a writer or a reader opened and closed in the same process
        # Another process opens and closes: it must see that this process still has the campaign open.
        other_process(path, "store.queue('bob')")
        assert Path(f"{path}-wal").exists()
        # A third process commits; the first store must see it, and it must survive.
        other_process(path, "store.record('bob', 'q1', 'd1', grade=3)")
        first.record("alice", "q1", "d2", grade=2)
        seen = [(e.assessor, e.doc_id, e.grade) for e in first.log()]
        assert seen == [("alice", "d1", 1), ("bob", "d1", 3), ("alice", "d2", 2)]
    finally:
        first.close()
    with CampaignStore.open(path) as store:
        assert [(e.assessor, e.doc_id, e.grade) for e in store.log()] == seen
