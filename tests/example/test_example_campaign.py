"""``trec-toolkit example campaign``: the example judged right after the Quickstart, and `judging/` shipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO as ROOT

from toolkit.judging.assign import AssignPolicy, recorded_policy
from toolkit.judging.progress import pool_status
from toolkit.judging.store import CampaignStore


def toolkit(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_example_campaign_is_ready_to_judge(cache: dict[str, str], workspace_copy: Path) -> None:
    # the console script by a relative path, as the README's `.venv/bin/trec-toolkit`: the next step printed
    # is that same command, ready to paste
    script = os.path.relpath(Path(sys.executable).parent / "trec-toolkit", workspace_copy)
    done = subprocess.run(
        [script, "example", "campaign"], cwd=workspace_copy, env=cache, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Round 1: 61 topics, ") and lines[0].endswith("-> judging/stdlib.sqlite")
    assert lines[-1] == f"Judge it:  {script} judge judging/stdlib.sqlite --assessor alice"
    with CampaignStore.open(workspace_copy / "judging" / "stdlib.sqlite") as store:
        assert store.assignees() == ["alice", "bob"]
        assert recorded_policy(store) == AssignPolicy(("alice", "bob"), 0.2, 0)
        assert pool_status(store).unassigned == 0
        # the workspace's guidelines are the campaign's own: what `g` shows every assessor
        assert store.meta()["guidelines"] == (ROOT / "judging" / "guidelines.md").read_text(encoding="utf-8")
        narrated = [t for t in store.topics() if t.narrative]
        assert len(narrated) >= 5
        doc = store.document(store.queue("alice")[0].doc_id)
        assert doc.format == "text" and doc.version and doc.fetch_error is None
    again = toolkit(cache, workspace_copy, "example", "campaign")
    assert (again.returncode, again.stderr) == (
        2,
        "Error: judging/stdlib.sqlite exists (it may hold judgments); judge it, or delete it to build it again\n",
    )


def test_campaign_databases_and_the_built_site_stay_out_of_git() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    built = ("site/index.html",)  # what `mkdocs build` writes
    for name in ("judging/stdlib.sqlite", "judging/stdlib.sqlite-wal", "judging/stdlib.sqlite-shm", *built):
        ignored = subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT, check=False)
        assert ignored.returncode == 0, f"{name} is not ignored by .gitignore"
    for name in ("judging/README.md", "judging/guidelines.md"):
        assert (ROOT / name).is_file()


def test_the_guidelines_cover_every_query_class_with_examples_from_the_topic_set() -> None:
    from toolkit.formats.topics import read_topics

    text = (ROOT / "judging" / "guidelines.md").read_text(encoding="utf-8")
    topics = read_topics(ROOT / "topics" / "stdlib.toml")
    for query_class in {t.query_class for t in topics}:
        assert f"### {query_class} " in text, query_class
    cited = {t.query_id for t in topics if f"({t.query_id})" in text}
    assert len(cited) >= 8  # examples are the topic set's own topics
    for grade, definition in topics.grades.items():
        assert f"| {grade} | {definition.split(':')[0]} |" in text
