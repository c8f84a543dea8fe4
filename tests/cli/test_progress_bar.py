"""The CLI's progress bars: the library calls back ``(done, total)``; only the CLI draws, with rich."""

from __future__ import annotations

import io
import re

from rich.console import Console

from toolkit.cli.options import progress_bar


def test_the_bar_names_the_step_and_shows_count_and_rate_from_the_start() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    with progress_bar("topics", console=console) as update:
        assert update is not None
        update("run bm25", 0, 4)
        update("run bm25", 3, 4)
        update("run bm25f", 1, 2)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert re.search(r"run bm25 .*0/4 topics 0\.0 topics/s", text)  # the first frame: count and rate
    assert re.search(r"run bm25 .*3/4 topics \d+\.\d topics/s", text)
    assert re.search(r"run bm25f .*1/2 topics", text)


def test_no_bar_when_stderr_is_not_a_terminal() -> None:
    # pytest captures stderr, so it is not a terminal here: the library gets no callback at all
    with progress_bar("topics") as update:
        assert update is None
