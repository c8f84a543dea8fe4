"""What the assessor sees (docs/design.md §8), through Pilot and the rendered screen."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from textual.widgets import Static
from tui_helpers import TOPICS, async_test, build_campaign, screen_text, settle

from toolkit.judging.records import CampaignTopic, Document
from toolkit.judging.store import CampaignStore
from toolkit.tui.judge import JudgeApp, judge_app
from toolkit.tui.screens import DoneScreen, TextScreen
from toolkit.tui.widgets import DocumentView, TopicPanel, body_of, render_document

SIZE = (110, 36)


def page(app: JudgeApp) -> str:
    """The whole text of an open help or guidelines page, scrolled or not."""
    assert isinstance(app.screen, TextScreen)
    console = Console(width=100, record=True)
    console.print(app.screen.body)
    return console.export_text()


def lines(document: Document, doc_format: str, width: int = 60, query: str = "") -> list[str]:
    console = Console(width=width)
    return [
        line.plain.rstrip()
        for line in render_document(document, query, doc_format=doc_format).lines(console, console.options)
    ]


def test_text_keeps_its_line_breaks_and_markdown_is_rendered() -> None:
    docstring = Document(
        "pydoc://os.walk",
        "os.walk",
        "os.walk\n\nDirectory tree generator.\n\nArgs:\n    top: the root\n    topdown: order\n* not a list\n",
        None,
    )
    # text: every line as written (a docstring is not Markdown), the title line not repeated
    assert lines(docstring, "text") == [
        "Directory tree generator.",
        "",
        "Args:",
        "    top: the root",
        "    topdown: order",
        "* not a list",
    ]
    markdown = Document(
        "d", "Hashable", "# Hashable\n\nA type that can be **hashed**.\n\n- one\n- two\n", None
    )
    rendered = lines(markdown, "markdown")
    assert "Hashable" not in "".join(rendered)  # the title heading is the header's, shown once there
    assert rendered[0] == "A type that can be hashed."
    assert any(line.strip().startswith("• one") for line in rendered)
    assert not any("**" in line or line.startswith("#") for line in rendered)


def test_html_is_rendered_safely() -> None:
    html = Document(
        "h",
        "Page",
        "<h1>Page</h1><p>Use <b>this</b> <a href='https://x.example/a'>link</a>.</p>"
        "<script>alert('x')</script><style>p { color: red }</style><ul><li>item</li></ul>",
        None,
    )
    rendered = "\n".join(lines(html, "html"))
    assert "Use this link (https://x.example/a)." in rendered  # a link shows where it goes; not clickable
    assert "alert" not in rendered and "color: red" not in rendered and "<" not in rendered
    assert "• item" in rendered


def test_the_title_and_id_lines_at_the_top_are_not_repeated() -> None:
    text = "# json.loads\n\n`pydoc://json.loads` · function\n\nDeserialize s."
    assert body_of(text, "json.loads", "pydoc://json.loads") == "function\n\nDeserialize s."
    assert body_of("Other first line\nbody", "json.loads", "x") == "Other first line\nbody"


@async_test
async def test_header_shows_title_and_id_once_and_the_view_opens_at_the_first_query_term(
    tmp_path: Path,
) -> None:
    text = (
        "Hasher\n\n" + "\n".join(f"Line {i} about nothing." for i in range(60)) + "\nHashable at last.\nEnd."
    )
    path = build_campaign(tmp_path / "long.sqlite", [("t1", "doc-x")], docs={"doc-x": ("Hasher", text)})
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause(0.1)
        screen = screen_text(app)
        assert screen.count("Hasher") == 1 and screen.count("doc-x") == 1
        view = app.query_one(DocumentView)
        assert view.scroll_y > 20  # "hashable" (a query term) is on line 62: the view opened near it
        assert "Hashable at last." in screen_text(app)


@async_test
async def test_find_says_enter_to_search_and_counts_the_matches(tmp_path: Path) -> None:
    text = "\n\n".join(f"Paragraph {i}." + (" needle" if i % 20 == 0 else "") for i in range(100))
    path = build_campaign(tmp_path / "find.sqlite", [("t1", "doc-f")], docs={"doc-f": ("Finding", text)})
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert "Enter to search" in str(app.screen.query_one(".dialog-hint", Static).render())
        await pilot.press(*"needle", "enter")
        await settle(pilot)
        assert app.find_status.startswith("'needle': match 1 of 5")
        await pilot.press("slash", "enter")  # Enter again on the same text: the next match
        await settle(pilot)
        assert app.find_status.startswith("'needle': match 2 of 5")
        assert "match 2 of 5" in screen_text(app)


@async_test
async def test_a_note_on_an_ungraded_item_is_confirmed_and_shown(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c", *"ask bob", "enter")
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert any("Note saved. No decision on this document yet" in m for m in notes)
        assert "Your note: ask bob" in screen_text(app)
    with CampaignStore.open(campaign) as store:
        assert [(e.action, e.note) for e in store.log()] == [("note", "ask bob")]


@async_test
async def test_help_lists_the_scroll_keys(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        text = page(app)
        for expected in (
            "Scrolling the document",
            "Scroll down a page",
            "Top of the document",
            "mouse wheel",
        ):
            assert expected in text
        assert "pgdn" in text and "home" in text


@async_test
async def test_unrateable_is_counted_as_unrateable_not_judged(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x", "2")
        await settle(pilot)
        progress = str(app.query_one("#progress").render())
        assert "This topic  1 judged · 1 unrateable · 1 left" in progress
        assert "Overall     1 judged · 1 unrateable · 3 left" in progress


@async_test
async def test_a_cue_when_the_topic_changes(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.query_one(TopicPanel)
        assert panel.border_title == "Topic" and not panel.has_class("-new")
        await pilot.press("1", "1", "1")  # t1 done: doc-d is the first document of t2
        await settle(pilot)
        assert app.query_one(DocumentView).doc_id == "doc-d"
        assert panel.border_title == "New topic" and panel.has_class("-new")
        assert "URLSession" in str(panel.render())
        await pilot.press("1")  # the next document of the same topic: the cue goes
        await settle(pilot)
        assert panel.border_title == "Topic" and not panel.has_class("-new")


@async_test
async def test_queue_done_shows_a_summary_and_quitting_returns_the_same(tmp_path: Path) -> None:
    path = build_campaign(tmp_path / "small.sqlite", [("t1", "doc-a"), ("t1", "doc-b"), ("t1", "doc-c")])
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2", "x", "s", "0")  # doc-c skipped, then (it comes back) judged
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        summary = app.screen.summary.plain
        box = app.screen.query_one("#done-summary").region
        assert box.x == (SIZE[0] - box.width) // 2  # the box is centred, not pinned to the left edge
        assert "Judged        2\nUnrateable    1\nSkipped       0\nLeft          0  of 3" in summary
        await pilot.press("q")
    assert (
        app.return_value
        == "alice on small.sqlite\nJudged        2\nUnrateable    1\nSkipped       0\nLeft          0  of 3\n"
    )


def test_summary_times_are_people_sized() -> None:
    from toolkit.judging.session import SessionSummary, Tally
    from toolkit.tui.screens import duration, summary_lines

    assert [duration(s) for s in (0.4, 42, 252, 3780)] == ["0 s", "42 s", "4 min 12 s", "1 h 03 min"]
    lines = summary_lines(SessionSummary(Tally(10, 6, 1, 1), 7, 252_000, 400.0, 0))
    assert lines[-2:] == [
        "Time judging  4 min 12 s (reading time of every decision)",
        "This session  6 min 40 s, 7 decisions",
    ]


@async_test
async def test_at_80_by_24_every_footer_key_and_the_position_are_visible(campaign: Path) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rows = screen_text(app)
        for key in ("Grade", "Skip", "Unrateable", "Undo", "Note", "Find", "Help", "Quit"):
            assert key in rows, key
        assert "Item 1 of 5" in rows
        # what the narrow footer leaves out is still on the help page
        await pilot.press("question_mark")
        text = page(app)
        assert "Next" in text and "Previous" in text and "Guidelines" in text


def test_topics_keep_the_default_fixture() -> None:
    assert isinstance(TOPICS[0], CampaignTopic)
