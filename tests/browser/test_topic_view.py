"""The per-topic view of ``audits/audit.html`` in a real browser (headless chromium through Playwright).

``trec-toolkit audit`` runs on a copy of the example workspace; the page is opened from the file with every
request but the file itself blocked and recorded, the browser offline: the view must work, and nothing may
have been attempted. What the page shows is checked against the inputs, read here on their own: the run
files (trec_eval's order: score descending, ties by doc id descending), the qrels file, the audit's JSON.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "trec-toolkit"
DEGRADED = "frag-05"  # the example's degraded topic: bm25 has a relevant document at rank 1, bm25f at 4


def ranked(path: Path, k: int = 10) -> dict[str, list[str]]:
    rows: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        rows.setdefault(q, []).append((float(score), doc))
    return {q: [d for _, d in sorted(r, reverse=True)[:k]] for q, r in rows.items()}


def grades(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        q, _, doc, rel = line.split()
        out.setdefault(q, {})[doc] = int(rel)
    return out


@pytest.fixture(scope="module")
def audited(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("example")
    for name in ("toolkit.toml", "topics", "runs", "qrels"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, ws / name)
    done = subprocess.run([str(SCRIPT), "audit"], cwd=ws, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return ws


@pytest.fixture
def open_offline(browser: Any) -> Iterator[Callable[[Path], tuple[Any, list[str], list[str]]]]:
    """Open a page from a file with the browser offline and every other request blocked; the page, the
    requests it attempted and its errors (script errors, console errors)."""
    pages: list[Any] = []
    attempted: list[str] = []
    allowed: set[str] = set()

    def block(route: Any) -> None:
        if route.request.url in allowed:
            route.continue_()
        else:
            attempted.append(route.request.url)
            route.abort()

    browser.set_offline(True)
    browser.route("**/*", block)

    def open_file(path: Path) -> tuple[Any, list[str], list[str]]:
        errors: list[str] = []
        page = browser.new_page()
        pages.append(page)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        allowed.add(path.as_uri())
        page.goto(path.as_uri())
        return page, attempted, errors

    try:
        yield open_file
    finally:
        for page in pages:
            page.close()
        browser.unroute("**/*")
        browser.set_offline(False)


@pytest.fixture
def offline(
    open_offline: Callable[[Path], tuple[Any, list[str], list[str]]], audited: Path
) -> tuple[Any, list[str], list[str]]:
    page, attempted, errors = open_offline(audited / "audits" / "audit.html")
    page.set_viewport_size({"width": 1300, "height": 900})
    return page, attempted, errors


def test_the_degraded_topic_shows_both_rankings_titles_grades_and_moves(
    offline: tuple[Any, list[str], list[str]], audited: Path
) -> None:
    page, attempted, errors = offline
    runs = {name: ranked(audited / "runs" / f"{name}.run") for name in ("bm25", "bm25f")}
    judged = grades(audited / "qrels" / "stdlib.qrels")[DEGRADED]
    audit = json.loads((audited / "audits" / "audit.json").read_text())
    degraded = audit["rank1"][0]["topics"]["degraded"]
    assert DEGRADED in degraded

    page.select_option("#tv-bucket", "degraded")
    listed = page.locator("#tv-list .tv-q").all_inner_texts()
    assert sorted(listed) == sorted(degraded)
    page.locator(f'#tv-list button:has(.tv-q:text-is("{DEGRADED}"))').click()
    detail = page.locator("#tv-detail")
    assert detail.locator("h3").inner_text() == DEGRADED
    assert page.evaluate("document.activeElement.id") == "tv-detail"

    columns = detail.locator(".tv-rank-list")
    assert columns.count() == 2
    for column, run in zip(columns.all(), ("bm25", "bm25f"), strict=True):
        docs = runs[run][DEGRADED]
        assert column.locator(".tv-id").all_inner_texts() == docs
        shown = column.locator(".tv-g").all_inner_texts()
        assert shown == [f"grade {judged[d]}" if d in judged else "unjudged" for d in docs]
        titles = column.locator(".tv-title").all_inner_texts()
        assert len(titles) == len(docs) and all(titles)  # every document has its title from [docs]
        first = next(i for i, d in enumerate(docs) if judged.get(d, 0) >= 1)
        marks = column.locator(".tv-doc").evaluate_all(
            "els => els.map(e => e.classList.contains('tv-first'))"
        )
        assert marks == [i == first for i in range(len(docs))]
    # a line per document in both lists: up when the candidate ranks it higher, down when lower
    base, cand = runs["bm25"][DEGRADED], runs["bm25f"][DEGRADED]
    both = [d for d in base if d in cand]
    up = sum(cand.index(d) < base.index(d) for d in both)
    down = sum(cand.index(d) > base.index(d) for d in both)
    assert detail.locator("svg path").count() == len(both)
    assert (detail.locator("svg path.tv-up").count(), detail.locator("svg path.tv-down").count()) == (
        up,
        down,
    )
    assert up and down  # the example's degraded topic moves documents both ways
    assert attempted == [] and errors == []


def test_the_view_is_usable_with_the_keyboard(offline: tuple[Any, list[str], list[str]]) -> None:
    from playwright.sync_api import expect

    page, attempted, errors = offline
    page.locator("body").press("/")
    assert page.evaluate("document.activeElement.id") == "tv-search"
    page.keyboard.type(DEGRADED)
    expect(page.locator("#tv-list button")).to_have_count(1)  # the search runs shortly after typing
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('data-topic') !== null")
    page.keyboard.press("Enter")
    assert page.locator("#tv-detail h3").inner_text() == DEGRADED
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.querySelector('.tv-q').textContent") == DEGRADED
    # arrows walk the list
    page.fill("#tv-search", "")
    expect(page.locator("#tv-list button").nth(2)).to_be_visible()
    page.locator("#tv-list button").first.focus()
    page.keyboard.press("ArrowDown")
    second = page.locator("#tv-list .tv-q").nth(1).inner_text()
    assert page.evaluate("document.activeElement.querySelector('.tv-q').textContent") == second
    assert attempted == [] and errors == []


def test_hostile_titles_and_names_stay_text(
    tmp_path: Path, open_offline: Callable[[Path], tuple[Any, list[str], list[str]]]
) -> None:
    """A title that is markup and a run named like a tag: shown as text, nothing runs, nothing is fetched."""
    title = (
        '<img src="http://example.com/t.png" onerror="document.title=\'owned\'"></script><script>x</script>'
    )
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "base.run").write_text("q1 Q0 d1 1 2 b\nq1 Q0 d2 2 1 b\n")
    (tmp_path / "<b>cand.run").write_text("q1 Q0 d2 1 2 c\nq1 Q0 d1 2 1 c\n")
    (tmp_path / "c.jsonl").write_text(
        json.dumps({"doc_id": "d2", "title": title, "text": "\u2028" + title}) + "\n"
    )
    page_path = tmp_path / "page.html"
    args = [
        "compare",
        "base.run",
        "<b>cand.run",
        "--qrels",
        "q.qrels",
        "--docs",
        "c.jsonl",
        "--format",
        "html",
    ]
    done = subprocess.run(
        [str(SCRIPT), *args, "-o", str(page_path)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    page, attempted, errors = open_offline(page_path)
    page.locator("#tv-list button").first.click()
    assert title in page.locator("#tv-detail .tv-title").all_inner_texts()
    assert page.locator("#tv-detail h4").all_inner_texts()[2] == "<b>cand"
    assert page.locator("#tv img, #tv b").count() == 0 and page.title() != "owned"
    assert attempted == [] and errors == []
