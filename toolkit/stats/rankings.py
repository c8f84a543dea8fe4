"""Each run's top k per topic, kept beside a comparison so that a reviewer can look at the changed topics.

A ``ComparisonResult`` keeps numbers, not rankings: ``compare`` reads the runs one at a time and frees each
(a run of 7,000 topics at depth 1,000 is seven million rows). What a reviewer looks at is much smaller — the
top k of each run for each topic, the grades of those documents and their titles — so ``RankingCollector``
keeps exactly that while each run passes on its way to ``compare_runs``, in trec_eval's order
(``toolkit.scoring.engine.ranking``: the same order every measure ranks by). k is the comparison's cutoff
(``toolkit.stats.comparison.rank_cutoff``), the depth its rank-1 buckets look at.

Titles and snippets come later (``Rankings.with_docs``): fetching them is the pipeline's business (a doc
source is a command, a corpus or a campaign), and only the documents of the topics shown are fetched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from toolkit.judging.records import Document
from toolkit.model import Qrels, Run

#: Longest title and snippet kept per document: the view shows a line of each, and 7,000 topics of 20
#: documents must stay a file a browser opens at once (bench/bench_topic_view.py).
TITLE_CHARS = 120
SNIPPET_CHARS = 160

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class DocText:
    """What the view shows of a document: its title and the start of its text, or why it was not fetched."""

    title: str = ""
    snippet: str = ""
    error: str | None = None


def _cut(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, cut at a word boundary with an ellipsis."""
    flat = _SPACE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip() + "…"


def doc_text(title: str, text: str, *, error: str | None = None, format: str | None = None) -> DocText:
    """The title and snippet of a fetched document: whitespace folded, both cut short; an HTML text
    (``format="html"``) reduced to its words; a text that opens with its own title (a folder's file, whose
    first line is the title) does not repeat it in the snippet."""
    flat_title = _SPACE.sub(" ", title).strip()
    body = (_html_words(text) if format == "html" else text).lstrip()
    if flat_title and body.startswith(flat_title):
        body = body[len(flat_title) :]
    elif flat_title and body.lstrip("# ").startswith(flat_title):  # a Markdown heading
        body = body.lstrip("# ")[len(flat_title) :]
    return DocText(_cut(flat_title, TITLE_CHARS), _cut(body, SNIPPET_CHARS), error)


def doc_texts(documents: Mapping[str, Document]) -> dict[str, DocText]:
    """``doc_text`` of each fetched document (``toolkit.pooling.docsource.fetch_documents``, a campaign's
    snapshots), its fetch error kept."""
    return {
        d: doc_text(doc.title, doc.text, error=doc.fetch_error, format=doc.format)
        for d, doc in documents.items()
    }


def _html_words(text: str) -> str:
    """The text of an HTML document without its tags, scripts and styles."""
    from html.parser import HTMLParser

    words: list[str] = []

    class Words(HTMLParser):
        skip = 0

        def handle_starttag(self, tag: str, attrs: object) -> None:
            self.skip += tag in ("script", "style")

        def handle_endtag(self, tag: str) -> None:
            self.skip -= tag in ("script", "style") and self.skip > 0

        def handle_data(self, data: str) -> None:
            if not self.skip:
                words.append(data)

    parser = Words(convert_charrefs=True)
    parser.feed(text[: SNIPPET_CHARS * 50])  # the start is enough for a snippet
    parser.close()
    return " ".join(words)


@dataclass(frozen=True)
class Rankings:
    """The top ``depth`` doc ids of each run per topic (``lists[run][query_id]``, trec_eval order), the grades
    of those documents (``grades[query_id][doc_id]``; a document without one is unjudged) and what is known of
    their text (``docs``, empty until fetched)."""

    depth: int
    runs: tuple[str, ...]
    lists: Mapping[str, Mapping[str, tuple[str, ...]]]
    grades: Mapping[str, Mapping[str, int]]
    docs: Mapping[str, DocText] = field(default_factory=dict)

    def ranking(self, run: str, query_id: str) -> tuple[str, ...]:
        return self.lists.get(run, {}).get(query_id, ())

    def grade(self, query_id: str, doc_id: str) -> int | None:
        return self.grades.get(query_id, {}).get(doc_id)

    def doc_ids(self, query_ids: Iterable[str] | None = None) -> list[str]:
        """The distinct documents listed for ``query_ids`` (every topic when None), in first-seen order."""
        wanted = None if query_ids is None else list(query_ids)
        seen: dict[str, None] = {}
        for run in self.runs:
            topics = self.lists.get(run, {})
            for qid in topics if wanted is None else wanted:
                seen.update(dict.fromkeys(topics.get(qid, ())))
        return list(seen)

    def with_docs(self, docs: Mapping[str, DocText]) -> Rankings:
        """The same rankings, with ``docs`` added to what is known of the documents' text."""
        return replace(self, docs={**self.docs, **docs})


class RankingCollector:
    """Keeps the top ``depth`` of each run that passes through ``watch`` (see the module docstring)."""

    def __init__(self, qrels: Qrels, depth: int) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self.qrels = qrels
        self.depth = depth
        self._lists: dict[str, dict[str, tuple[str, ...]]] = {}
        self._grades: dict[str, dict[str, int]] = {}

    def add(self, run: Run) -> None:
        from toolkit.scoring.engine import ranking

        lists: dict[str, tuple[str, ...]] = {}
        for qid in run.results:
            docs = tuple(ranking(run, qid, self.depth))
            if not docs:
                continue
            lists[qid] = docs
            judged = self.qrels.judgments.get(qid)
            if judged:
                grades = self._grades.setdefault(qid, {})
                grades.update((d, int(judged[d])) for d in docs if d in judged)
        self._lists[run.name] = lists

    def watch(self, runs: Iterable[Run]) -> Iterator[Run]:
        """``runs`` unchanged, one at a time (a generator stays a generator), each one's top k kept."""
        for run in runs:
            self.add(run)
            yield run

    def rankings(self) -> Rankings:
        return Rankings(self.depth, tuple(self._lists), self._lists, self._grades)


def collect_rankings(runs: Iterable[Run], qrels: Qrels, *, depth: int) -> Rankings:
    """The top ``depth`` of each of ``runs`` (held in memory already: the Python API's case)."""
    collector = RankingCollector(qrels, depth)
    for run in runs:
        collector.add(run)
    return collector.rankings()
