"""docs/judge.svg, the README's picture of the judging screen, is drawn here from the real screen, so it can
never show an old layout: the test draws the screen (``App.export_screenshot``) and compares it with the file.
When they differ it redraws the file (commit it); under ``CI=true`` a stale picture fails instead.

The campaign is the example's, made deterministic: a topic and the grade scale of the shipped
``topics/stdlib.toml``, and documents with fixed text in the example corpus's shape (their text would
otherwise follow the Python version that built the corpus). Times are hidden (they would differ per run).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
from helpers import REPO
from tui_helpers import async_test, build_campaign, settle

from toolkit.formats.topics import read_topics
from toolkit.judging.records import CampaignTopic
from toolkit.tui.judge import judge_app

PICTURE = REPO / "docs" / "judge.svg"
SIZE = (110, 32)
TOPIC = "frag-04"
DOCS = {
    "pydoc://concurrent.futures.ThreadPoolExecutor": (
        "concurrent.futures.ThreadPoolExecutor",
        "class ThreadPoolExecutor(max_workers=None, thread_name_prefix='', initializer=None, initargs=())\n\n"
        "An Executor subclass that uses a pool of at most max_workers threads to execute calls "
        "asynchronously.\n",
    ),
    "pydoc://concurrent.futures.ThreadPoolExecutor.shutdown": (
        "concurrent.futures.ThreadPoolExecutor.shutdown",
        "method shutdown(self, wait=True, *, cancel_futures=False)\n\n"
        "Clean-up the resources associated with the Executor.\n\n"
        "It is safe to call this method several times. Otherwise,\n"
        "no other methods can be called after this one.\n\n"
        "Args:\n"
        "    wait: If True then shutdown will not return until all\n"
        "        running futures have finished executing and the\n"
        "        resources used by the executor have been reclaimed.\n"
        "    cancel_futures: If True then shutdown will cancel all\n"
        "        pending futures. Futures that are completed or\n"
        "        running will not be cancelled.\n",
    ),
    "pydoc://concurrent.futures.Executor": (
        "concurrent.futures.Executor",
        "class Executor()\n\nThis is an abstract base class for concrete asynchronous executors.\n",
    ),
}


async def draw(tmp_path: Path) -> str:
    topics = read_topics(REPO / "topics" / "stdlib.toml")
    topic = topics.by_id[TOPIC]
    campaign = build_campaign(
        tmp_path / "stdlib.sqlite",
        [(TOPIC, doc_id) for doc_id in DOCS],
        docs=DOCS,
        topics=[CampaignTopic(TOPIC, topic.query, topic.description, topic.narrative, topic.query_class)],
        grades=dict(topics.grades),
    )
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")  # the first document graded: the screen shows the second one
        await settle(pilot)
        return app.export_screenshot(title="trec-toolkit judge")


@async_test
async def test_the_readme_picture_is_the_judging_screen_as_drawn_now(tmp_path: Path) -> None:
    drawn = await draw(tmp_path)
    assert drawn == await draw(tmp_path / "again"), "the screen does not draw the same twice"
    if PICTURE.read_text(encoding="utf-8") == drawn:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(
            f"{PICTURE} is stale: run this test outside CI to redraw it, and commit it", pytrace=False
        )
    PICTURE.write_text(drawn, encoding="utf-8")
    warnings.warn(f"{PICTURE} was redrawn from the judging screen: commit it", stacklevel=1)
