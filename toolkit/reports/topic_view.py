"""The per-topic view in HTML: the changed topics of a comparison, both rankings side by side.

``topic_view_section`` is a section of the audit page (``compare --format html``, ``audits/audit.html``): a
list of topics in the view's order (``toolkit.stats.topic_view``) with filters — bucket, class, a search
box — and, for the topic opened, its query, its values in both runs and the two top-k rankings with titles,
snippets and grades, lines linking the documents in both lists and the first relevant one marked.

Why it is built this way:

* **Fast with thousands of topics.** The page embeds the data once, as JSON, and a small script draws the
  list of the topics that match the filters (a page at a time) and one topic when it is opened. 7,000
  topics are 7,000 list entries at most, never 7,000 tables (bench/bench_topic_view.py).
* **Offline and self-contained.** No request leaves the page: no external script, style, font or image.
  The page's Content-Security-Policy (``toolkit.reports.html``) allows exactly this script, by its hash, and
  nothing from the network.
* **Text from outside stays text.** Titles, snippets, doc ids, query text and run names are data: the
  JSON inside ``<script type="application/json">`` has ``<``, ``>``, ``&`` and U+2028/U+2029 escaped, so no
  value can close the element or start markup, and the script puts every value in the page with
  ``textContent``, never as HTML. Control characters are made visible (``formats.text.visible``).
* **Bounded.** ``shown`` topics per candidate (``--topics-shown``) go into the page, the changed ones
  first; the section says how many were left out.

``topic_fragment`` is one topic as static HTML (a notebook's output cell: ``ComparisonResult.topic``).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from toolkit.formats.text import visible
from toolkit.model import TopicSet
from toolkit.reports.document import Document
from toolkit.reports.numbers import BUCKET_LABELS, num, signed
from toolkit.reports.view_limits import DEFAULT_TOPICS_SHOWN
from toolkit.stats.rankings import Rankings
from toolkit.stats.result import ComparisonResult
from toolkit.stats.topic_view import EXPECT_EMPTY, RankedDoc, TopicView, TopicViews

#: The filter's label of every bucket the view has.
VIEW_BUCKETS: dict[str, str] = {**BUCKET_LABELS, EXPECT_EMPTY: "Expect empty (refusal)"}
#: Decimals of the per-topic values in the page.
DIGITS = 4

#: ``<``, ``>``, ``&`` and the two JavaScript line terminators JSON leaves raw, escaped inside a script.
_SCRIPT_SAFE = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside ``<script type="application/json">``: no ``</script>``, no
    ``<!--``, no raw U+2028/U+2029 — whatever the strings hold."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).translate(
        _SCRIPT_SAFE
    )


@cache
def view_script() -> str:
    """The script of the view (``topic_view.js`` beside this module)."""
    return resources.files(__package__).joinpath("topic_view.js").read_text(encoding="utf-8")


@cache
def view_style() -> str:
    return resources.files(__package__).joinpath("topic_view.css").read_text(encoding="utf-8")


def _text(value: object) -> str:
    return visible(str(value), one_line=True)


def _value(v: float | None) -> float | None:
    return None if v is None else round(float(v), DIGITS)


def view_data(
    result: ComparisonResult,
    rankings: Rankings,
    topics: TopicSet | None = None,
    *,
    shown: int = DEFAULT_TOPICS_SHOWN,
) -> dict[str, Any]:
    """What the page embeds: runs, measures, the documents (once each) and the topics shown, the first
    ``shown`` of each candidate's order (every topic when ``shown`` is 0 or less)."""
    views = TopicViews(result, rankings, topics)
    orders = {c: views.outcomes(c) for c in result.candidates}
    ids = views.shown(shown)
    index = {q: i for i, q in enumerate(ids)}
    docs: dict[str, int] = {}
    doc_rows: list[list[Any]] = []
    rows = []
    for qid in ids:
        pair = [views.view(qid, c) for c in result.candidates]
        lists = [_list(pair[0].baseline_docs, docs, doc_rows)]
        lists += [_list(v.candidate_docs, docs, doc_rows) for v in pair]
        values = [[_value(b) for _, b, _ in pair[0].values]]
        values += [[_value(c) for _, _, c in v.values] for v in pair]
        rows.append(
            {
                "q": _text(qid),
                "t": _text(pair[0].query),
                "c": _text(pair[0].query_class or ""),
                "o": [_outcome(v) for v in pair],
                "v": values,
                "l": lists,
            }
        )
    classes = sorted({str(row["c"]) for row in rows if row["c"]})
    seen = {o[0] for row in rows for o in row["o"]}
    return {
        "runs": [_text(r) for r in result.runs],
        "depth": rankings.depth,
        "measures": [str(m) for m in result.measures],
        "primary": result.measures.index(result.primary),
        "buckets": {k: v for k, v in VIEW_BUCKETS.items() if k in BUCKET_LABELS or k in seen},
        "classes": classes,
        "total": len(views.query_ids),
        "shown": len(ids),
        "limit": shown,
        "docs": doc_rows,
        "topics": rows,
        "order": [[index[o.query_id] for o in orders[c] if o.query_id in index] for c in result.candidates],
        "grades": {
            str(g): _text(words) for g, words in (topics.grades.items() if topics is not None else ())
        },
    }


def _outcome(v: TopicView) -> list[Any]:
    o = v.outcome
    return [o.bucket, o.rank_baseline, o.rank_candidate, list(o.changes), _value(o.delta), o.changed]


def _list(ranked: tuple[RankedDoc, ...], docs: dict[str, int], rows: list[list[Any]]) -> list[list[Any]]:
    """One ranking as ``[doc index, grade]`` pairs; each document's id, title, snippet and fetch error are
    added to ``rows`` once."""
    out = []
    for d in ranked:
        i = docs.get(d.doc_id)
        if i is None:
            i = docs[d.doc_id] = len(rows)
            t = d.text
            rows.append(
                [
                    _text(d.doc_id),
                    _text(t.title) if t else "",
                    _text(t.snippet) if t else "",
                    _text(t.error) if t and t.error else None,
                ]
            )
        out.append([i, d.grade])
    return out


@dataclass(frozen=True)
class TopicPage:
    """What the HTML page of a comparison needs for its per-topic view: the result, the rankings kept beside
    it, the topic set (query text, class, grade names) and how many topics per candidate go in."""

    result: ComparisonResult
    rankings: Rankings
    topics: TopicSet | None = None
    shown: int = DEFAULT_TOPICS_SHOWN

    def render(self, document: Document) -> str:
        """``document`` as one HTML page with the view before its appendix."""
        from toolkit.reports.html import render_html

        section, script = topic_view_section(self.result, self.rankings, self.topics, shown=self.shown)
        return render_html(document, section=section, scripts=(script,))


def topic_view_section(
    result: ComparisonResult,
    rankings: Rankings,
    topics: TopicSet | None = None,
    *,
    shown: int = DEFAULT_TOPICS_SHOWN,
) -> tuple[str, str]:
    """The view's HTML section and the script it needs (``render_html`` allows it by hash)."""
    data = view_data(result, rankings, topics, shown=shown)
    left_out = data["total"] - data["shown"]
    note = (
        f"{data['shown']} of {data['total']} topics are in this page, the most changed first "
        f"(--topics-shown {data['limit']}); {left_out} left out."
        if left_out
        else f"All {data['total']} topics are in this page."
    )
    section = f"""<section id="tv" class="tv" aria-labelledby="tv-title">
<h2 id="tv-title">Per-topic view</h2>
<p>Topics whose outcome changed first (fixed, degraded, added/removed, refusal or empty-result changes), then the
largest |Δ| of the primary measure. Open a topic to see both top-{data["depth"]} rankings side by side with each
document's grade; lines link a document that moved between the lists. {html.escape(note)}
Keys: <kbd>/</kbd> search, <kbd>↑</kbd>/<kbd>↓</kbd> move in the list, <kbd>Enter</kbd> open,
<kbd>Esc</kbd> back to the list.</p>
<noscript><p>The per-topic view needs JavaScript; the tables above hold the same buckets.</p></noscript>
<div class="tv-controls" role="search">
<label>Candidate <select id="tv-cand"></select></label>
<label>Bucket <select id="tv-bucket"></select></label>
<label>Class <select id="tv-class"></select></label>
<label>Search <input id="tv-search" type="search" placeholder="topic id, query or doc id" autocomplete="off"></label>
<span id="tv-count" role="status" aria-live="polite"></span>
</div>
<div class="tv-body">
<div class="tv-list-wrap"><ul id="tv-list" class="tv-list" aria-label="Topics"></ul>
<button type="button" id="tv-more" hidden>Show more</button></div>
<div id="tv-detail" class="tv-detail" tabindex="-1" aria-live="polite"><p class="tv-hint">Open a topic from the list.</p></div>
</div>
<script type="application/json" id="tv-data">{script_json(data)}</script>
</section>"""
    return f"<style>{view_style()}</style>\n{section}", view_script()


def topic_fragment(view: TopicView) -> str:
    """One topic as static HTML (no script): its outcome, values and both rankings in one table."""
    o = view.outcome
    esc = html.escape
    head = (
        f"<p><strong>{esc(_text(view.query_id))}</strong> {esc(_text(view.query))}"
        + (f" <em>({esc(_text(view.query_class))})</em>" if view.query_class else "")
        + f" — {esc(VIEW_BUCKETS.get(o.bucket, o.bucket))}"
        + "".join(f"; {esc(c)}" for c in o.changes)
        + "</p>"
    )
    values = "".join(
        f"<tr><td class='l'>{esc(m)}</td><td>{num(b)}</td><td>{num(c)}</td>"
        f"<td>{signed(None if b is None or c is None else c - b)}</td></tr>"
        for m, b, c in view.values
    )
    table = (
        f"<table><thead><tr><th class='l'>measure</th><th>{esc(_text(view.baseline))}</th>"
        f"<th>{esc(_text(view.candidate))}</th><th>Δ</th></tr></thead><tbody>{values}</tbody></table>"
    )
    rows = []
    for i in range(max(len(view.baseline_docs), len(view.candidate_docs))):
        cells = [f"<td>{i + 1}</td>"]
        for docs, where in ((view.baseline_docs, where_text), (view.candidate_docs, move_text)):
            d = docs[i] if i < len(docs) else None
            cells += _cells(d, where)
        rows.append("<tr>" + "".join(cells) + "</tr>")
    ranked = (
        "<table><thead><tr><th>rank</th>"
        + "".join(
            f"<th class='l'>{esc(_text(run))}</th><th>grade</th><th class='l'>{move}</th>"
            for run, move in ((view.baseline, f"in {esc(_text(view.candidate))}"), (view.candidate, "move"))
        )
        + f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    return f'<div class="trec-toolkit">{head}{table}{ranked}</div>'


def move_text(d: RankedDoc) -> str:
    """A candidate's document against the baseline: ``↑2`` (2 ranks higher than in the baseline), ``↓1``,
    ``=``, or ``new`` (not in the baseline's top k)."""
    if d.other_rank is None:
        return "new"
    if d.other_rank == d.rank:
        return "="
    return f"↑{d.other_rank - d.rank}" if d.rank < d.other_rank else f"↓{d.rank - d.other_rank}"


def where_text(d: RankedDoc) -> str:
    """A baseline's document in the candidate: ``→3`` (at rank 3 there) or ``out`` (not in its top k)."""
    return "out" if d.other_rank is None else f"→{d.other_rank}"


def grade_text(d: RankedDoc) -> str:
    return "unjudged" if d.grade is None else str(d.grade)


def _cells(d: RankedDoc | None, where: Callable[[RankedDoc], str]) -> list[str]:
    if d is None:
        return ["<td></td>", "<td></td>", "<td></td>"]
    esc = html.escape
    title = d.text.title if d.text else ""
    doc = f"<code>{esc(_text(d.doc_id))}</code>" + (f"<br>{esc(_text(title))}" if title else "")
    if d.first_relevant:
        doc = f"<strong>★</strong> {doc}"
    return [
        f"<td class='l'>{doc}</td>",
        f"<td>{esc(grade_text(d))}</td>",
        f"<td class='l'>{esc(where(d))}</td>",
    ]
