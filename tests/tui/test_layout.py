"""The judging screen fits the smallest terminal it serves: at 80×24 the whole progress panel is on screen,
times shown, after a skip and an unrateable (the longest tallies), without scrolling the side column."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import async_test, build_campaign, settle

from toolkit.tui.judge import judge_app
from toolkit.tui.widgets import ProgressPanel


@pytest.mark.parametrize("size", [(80, 24), (110, 36), (160, 48)], ids=["80x24", "110x36", "160x48"])
@async_test
async def test_the_whole_progress_panel_is_on_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    app = judge_app(build_campaign(tmp_path / "c.sqlite"), "alice", show_times=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("s", "x")  # doc-a skipped, doc-b unrateable: "1 unrateable · 1 left (1 skipped)"
        await settle(pilot)
        panel = app.query_one(ProgressPanel)
        assert "median" in str(panel.render())  # the times are shown
        placed = app.screen.find_widget(panel)
        # on screen as a whole: nothing of it cut off by the side column or by the screen's edge
        assert placed.visible_region == placed.region, (placed.region, placed.visible_region)
        # and tall enough for its text, wrapped to its width, inside its border
        needed = panel.get_content_height(
            panel.content_region.size, panel.content_region.size, panel.content_region.width
        )
        assert panel.content_region.height >= needed
