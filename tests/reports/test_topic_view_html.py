"""The per-topic view's HTML: data that cannot break out of its script, a policy that lets nothing out, a bound.

What a browser makes of the page is tested in tests/browser/test_topic_view.py; here the page's text is read
with the standard library's HTML parser and its embedded JSON with ``json``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser

import pytest

from toolkit.model import Qrels, Run, Topic, TopicSet
from toolkit.reports import document
from toolkit.reports.topic_view import TopicPage, script_json, view_data, view_script
from toolkit.stats.comparison import compare_runs
from toolkit.stats.rankings import DocText, collect_rankings

pytestmark = pytest.mark.filterwarnings("ignore::toolkit.errors.ToolkitWarning")

#: Text from outside that would be markup, a script end, a comment start or a JavaScript line break.
HOSTILE = "</script><script>alert(1)</script><!-- \u2028\u2029 & <b>x</b> \x1b[2J"


class Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.metas: list[dict[str, str | None]] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append((dict(attrs), ""))
            self._open = True
        if tag == "meta":
            self.metas.append(dict(attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._open = False

    def handle_data(self, data: str) -> None:
        if self._open:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)


def parse(page: str) -> Scripts:
    parser = Scripts()
    parser.feed(page)
    return parser


def test_script_json_cannot_end_its_element_and_reads_back_the_same() -> None:
    data = {"title": HOSTILE, "ids": [HOSTILE, "ok"]}
    text = script_json(data)
    assert "</" not in text and "<!--" not in text and "<" not in text
    assert "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == data


def small_comparison(n: int = 5):
    topics = TopicSet(tuple(Topic(f"q{i}", f"query {i}", "c") for i in range(n)))
    qrels = Qrels({f"q{i}": {f"r{i}": 1} for i in range(n)})
    base = Run({f"q{i}": {f"r{i}": 2, "x": 1} for i in range(n)}, name="base")
    # topic i: the relevant document falls to rank 2 in every other topic (degraded), else stays at 1
    cand = Run(
        {f"q{i}": ({"x": 2, f"r{i}": 1} if i % 2 else {f"r{i}": 2, "x": 1}) for i in range(n)},
        name=HOSTILE,
    )
    result = compare_runs([base, cand], qrels, topics=topics, measures="RR@10", primary="RR@10")
    rankings = collect_rankings([base, cand], qrels, depth=10).with_docs(
        {"x": DocText(HOSTILE, HOSTILE), "r1": DocText(error=HOSTILE)}
    )
    return result, rankings, topics


def test_the_page_embeds_hostile_text_as_data_only_and_allows_only_its_own_script() -> None:
    result, rankings, topics = small_comparison()
    page = TopicPage(result, rankings, topics).render(document(result, topics=topics))
    parsed = parse(page)
    data_blocks = [text for attrs, text in parsed.scripts if attrs.get("type") == "application/json"]
    code = [text for attrs, text in parsed.scripts if not attrs]
    assert len(parsed.scripts) == 2 and len(data_blocks) == 1 and code == [view_script()]
    data = json.loads(data_blocks[0])
    shown = HOSTILE.replace("\x1b", "\u241b")  # control characters made visible (formats.text.visible)
    assert data["runs"] == ["base", shown]
    rows = {row[0]: row for row in data["docs"]}
    assert rows["x"] == ["x", shown, shown, None] and rows["r1"] == ["r1", "", "", shown]
    # the policy: nothing from the network, inline styles, data: images, and exactly this script by hash
    (policy,) = [m["content"] for m in parsed.metas if m.get("http-equiv") == "Content-Security-Policy"]
    digest = base64.b64encode(hashlib.sha256(view_script().encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy and "default-src 'none'" in policy
    assert "connect-src" not in policy and "http" not in policy  # default-src 'none' covers fetch and XHR
    # the hostile run name is never markup outside the scripts either: the report's tables escape it
    outside = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.S)
    assert "<b>x</b>" not in outside and "&lt;b&gt;x&lt;/b&gt;" in outside


def test_the_bound_keeps_the_most_changed_topics_and_says_how_many_were_left_out() -> None:
    result, rankings, topics = small_comparison(9)
    data = view_data(result, rankings, topics, shown=3)
    # degraded topics (odd i) come first; all have the same |Δ| = 1/2, so the first three in topic-set order
    assert [t["q"] for t in data["topics"]] == ["q1", "q3", "q5"]
    assert (data["shown"], data["total"], data["limit"]) == (3, 9, 3)
    assert [data["topics"][i]["o"][0][0] for i in data["order"][0]] == ["degraded"] * 3
    page = TopicPage(result, rankings, topics, shown=3).render(document(result, topics=topics))
    assert "3 of 9 topics are in this page, the most changed first (--topics-shown 3); 6 left out." in page
    assert len(view_data(result, rankings, topics, shown=0)["topics"]) == 9


def test_the_view_sits_before_the_appendix() -> None:
    result, rankings, topics = small_comparison()
    page = TopicPage(result, rankings, topics).render(document(result, topics=topics))
    assert page.index('<h2 id="tv-title">Per-topic view</h2>') < page.index("<h2>Appendix</h2>")
