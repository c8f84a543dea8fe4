"""``compare --show TOPIC``: one topic's two rankings side by side in the terminal (rich).

The library gives the view (``toolkit.stats.topic_view.TopicView``) and the words for a grade and a move
(``toolkit.reports.topic_view``); this module only lays them out as rich tables. Every text from outside
(doc ids, titles, query text, run names) goes through ``formats.text.visible`` and ``rich.text.Text``, so
neither a control character nor rich's own ``[markup]`` in a title can do anything but show.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from io import StringIO

from toolkit.formats.text import visible
from toolkit.model import TopicSet
from toolkit.stats.rankings import Rankings
from toolkit.stats.result import ComparisonResult

#: The width of the layout when the output is not a terminal (a file, a pipe).
PLAIN_WIDTH = 140


def render_topics(
    result: ComparisonResult,
    rankings: Rankings,
    topics: TopicSet | None,
    query_ids: Sequence[str],
    *,
    color: bool = False,
) -> str:
    """Each topic of ``query_ids`` for every candidate against the baseline, as text (ANSI when ``color``)."""
    from rich.console import Console, Group
    from rich.table import Table
    from rich.text import Text

    from toolkit.reports.numbers import num, signed
    from toolkit.reports.topic_view import VIEW_BUCKETS, grade_text, move_text, where_text
    from toolkit.stats.topic_view import RankedDoc, TopicViews

    def t(value: object, style: str = "") -> Text:
        return Text(visible(str(value), one_line=True), style=style)

    def doc_cell(d: RankedDoc) -> Text:
        cell = t(d.doc_id, "bold" if d.relevant else "")
        if d.first_relevant:
            cell.append(" ★ first relevant", style="green")
        title = d.text.title if d.text else ""
        if title:
            cell.append("\n").append_text(t(title, "dim"))
        if d.text and d.text.error:
            cell.append("\n").append_text(t(f"not fetched: {d.text.error}", "red"))
        return cell

    views = TopicViews(result, rankings, topics)
    parts: list[object] = []
    for qid in query_ids:
        for cand in result.candidates:
            v = views.view(qid, cand)
            o = v.outcome
            head = t(v.query_id, "bold")
            if v.query:
                head.append("  ").append_text(t(v.query))
            facts = [VIEW_BUCKETS.get(o.bucket, o.bucket)]
            if v.query_class:
                facts.append(f"class {v.query_class}")
            facts.append(
                f"first relevant {o.rank_baseline or '–'} → {o.rank_candidate or '–'} (top {v.depth})"
            )
            facts += o.changes
            head.append("\n").append_text(t(" · ".join(facts), "italic"))
            values = Table(box=None, pad_edge=False, show_edge=False)
            values.add_column("measure")
            for name in (v.baseline, v.candidate):
                values.add_column(t(name), justify="right")
            values.add_column("Δ", justify="right")
            for m, before, after in v.values:
                delta = None if before is None or after is None else after - before
                values.add_row(m, num(before), num(after), signed(delta))
            ranks = Table(show_lines=True, expand=False)
            ranks.add_column("#", justify="right")
            ranks.add_column(t(f"{v.baseline} (baseline)"), overflow="fold", ratio=1)
            ranks.add_column("grade", justify="right")
            ranks.add_column(f"in {visible(v.candidate, one_line=True)}", justify="right")
            ranks.add_column(t(v.candidate), overflow="fold", ratio=1)
            ranks.add_column("grade", justify="right")
            ranks.add_column("move", justify="right")
            for i in range(max(len(v.baseline_docs), len(v.candidate_docs))):
                a = v.baseline_docs[i] if i < len(v.baseline_docs) else None
                b = v.candidate_docs[i] if i < len(v.candidate_docs) else None
                ranks.add_row(
                    str(i + 1),
                    doc_cell(a) if a else "",
                    grade_text(a) if a else "",
                    where_text(a) if a else "",
                    doc_cell(b) if b else "",
                    grade_text(b) if b else "",
                    move_text(b) if b else "",
                )
            parts += [head, values, ranks, Text("")]
    out = StringIO()
    console = Console(
        file=out,
        width=shutil.get_terminal_size((PLAIN_WIDTH, 24)).columns if color else PLAIN_WIDTH,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        emoji=False,
    )
    console.print(Group(*parts))  # type: ignore[arg-type]
    return out.getvalue()
