"""Search the example corpus with SQLite FTS5 in two configurations, and fetch one document.

- **bm25**: one text column (name, signature, docstring), FTS5's plain ``bm25()``.
- **bm25f**: columns name, summary, body and ident (identifier components split from CamelCase and
  snake_case, so ``Decoder`` finds ``JSONDecoder``) with field weights; the query's identifiers are split the
  same way.

Both use the ``unicode61`` tokenizer without stemming, so the difference between them is the fields and the
identifier splitting, nothing else. Query words are OR-ed (classic BM25: every word counts, none is
required); FTS5 syntax in the query is neutralised by quoting each word.

This module is imported by every search subprocess, so it imports only the standard library and builds the
corpus (``toolkit.example.corpus``, which imports the whole stdlib) only when the cache is missing.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.example.identifiers import split_identifier

CACHE_ENV = "TREC_TOOLKIT_CACHE"
ENGINES = ("bm25", "bm25f")

#: bm25f column weights (name, summary, body, ident), chosen a priori: a name or identifier hit says more
#: about what a page is than a word deep in its body.
FIELD_WEIGHTS = (4.0, 2.0, 1.0, 2.0)

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Hit:
    doc_id: str
    title: str
    kind: str
    score: float


def cache_dir() -> Path:
    """``$TREC_TOOLKIT_CACHE``, else ``$XDG_CACHE_HOME/trec-toolkit``, else ``~/.cache/trec-toolkit``."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "trec-toolkit"


def corpus_path() -> Path:
    """The cache file for this Python and this builder: a new Python version gets a new corpus."""
    from toolkit.example.corpus_version import CORPUS_VERSION

    version = sys.version.split()[0]
    return cache_dir() / f"stdlib-{sys.implementation.name}{version}-v{CORPUS_VERSION}.sqlite"


def ensure_corpus(*, rebuild: bool = False) -> Path:
    """The corpus database, built first if missing; concurrent callers wait for one builder (flock)."""
    path = corpus_path()
    if path.exists() and not rebuild:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    import fcntl

    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if rebuild or not path.exists():
            from toolkit.example.corpus import build_corpus

            build_corpus(path)
    return path


def connect() -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{ensure_corpus()}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


def match_expression(query: str, *, split_identifiers: bool) -> str:
    """An FTS5 MATCH expression OR-ing the query's words, each quoted (so ``AND``, ``*``, ``"`` are inert)."""
    words: dict[str, None] = {}
    for word in _WORD.findall(query):
        words.setdefault(word.lower(), None)
        if split_identifiers:
            for part in split_identifier(word):
                words.setdefault(part.lower(), None)
    return " OR ".join(f'"{w}"' for w in words)


def search(query: str, *, engine: str = "bm25", limit: int = 10) -> list[Hit]:
    """The top ``limit`` docs for ``query`` (best first); an empty or wordless query finds nothing."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}")
    expression = match_expression(query, split_identifiers=engine == "bm25f")
    if not expression or limit <= 0:
        return []
    if engine == "bm25":
        sql = (
            "SELECT d.doc_id, d.title, d.kind, bm25(plain) AS s FROM plain JOIN docs d ON d.id = plain.rowid "
            "WHERE plain MATCH ? ORDER BY s, d.doc_id LIMIT ?"
        )
        params: tuple[object, ...] = (expression, limit)
    else:
        weights = ", ".join(str(w) for w in FIELD_WEIGHTS)
        sql = (
            f"SELECT d.doc_id, d.title, d.kind, bm25(fields, {weights}) AS s FROM fields "
            "JOIN docs d ON d.id = fields.rowid WHERE fields MATCH ? ORDER BY s, d.doc_id LIMIT ?"
        )
        params = (expression, limit)
    with connect() as db:
        rows = db.execute(sql, params).fetchall()
    # FTS5's bm25() is lower-is-better; report the conventional higher-is-better score.
    return [Hit(r["doc_id"], r["title"], r["kind"], round(-r["s"], 6)) for r in rows]


def get_doc(doc_id: str) -> sqlite3.Row | None:
    with connect() as db:
        return db.execute("SELECT * FROM docs WHERE doc_id = ?", (doc_id,)).fetchone()  # type: ignore[no-any-return]


def all_ids() -> list[str]:
    with connect() as db:
        return [r[0] for r in db.execute("SELECT doc_id FROM docs ORDER BY id")]


def describe_index(engine: str = "bm25") -> str:
    """What a search with ``engine`` runs against: the corpus (its Python, builder version and size, read
    from the database itself) and the engine's configuration. Nothing that differs between two machines with
    the same corpus (no path, no time), so runs stay comparable across checkouts."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}")
    with connect() as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    if engine == "bm25":
        config = "FTS5 unicode61, one text column, bm25()"
    else:
        weights = ", ".join(f"{w:g}" for w in FIELD_WEIGHTS)
        config = f"FTS5 unicode61, columns name, summary, body, ident weighted {weights}"
    return (
        f"corpus: Python {meta.get('python', '?')} standard library docstrings, builder v"
        f"{meta.get('corpus_version', '?')}, {meta.get('docs', '?')} docs\n"
        f"engine: {engine} ({config})\n"
    )


def corpus_version() -> str:
    """Every document's version: the corpus build it comes from (Python version and builder version).

    A document can only change when the corpus is rebuilt for another Python or builder, so this is exact
    and costs nothing to tell."""
    return corpus_path().stem


def doc_records(doc_ids: Sequence[str]) -> Iterator[dict[str, str]]:
    """The batch protocol's answers: one object per id, in the order asked, over one connection."""
    version = corpus_version()
    with connect() as db:
        for doc_id in doc_ids:
            row = db.execute("SELECT * FROM docs WHERE doc_id = ?", (doc_id,)).fetchone()
            if row is None:
                yield {"doc_id": doc_id, "error": "unknown doc id"}
            else:
                yield {
                    "doc_id": doc_id,
                    "title": row["title"],
                    "text": plain_text(row),
                    "format": "text",
                    "version": version,
                }


def doc_versions(doc_ids: Sequence[str]) -> Iterator[dict[str, str]]:
    """``{"doc_id", "version"}`` for every id the corpus has (the others are left unanswered)."""
    version = corpus_version()
    with connect() as db:
        for doc_id in doc_ids:
            if db.execute("SELECT 1 FROM docs WHERE doc_id = ?", (doc_id,)).fetchone():
                yield {"doc_id": doc_id, "version": version}


def plain_text(row: sqlite3.Row) -> str:
    """What an assessor reads, as plain text (the title and id are shown apart from it): the kind and the
    signature, then the docstring with its own line breaks."""
    name = row["title"].rsplit(".", 1)[-1]
    head = f"{row['kind']} {name}{row['signature']}" if row["signature"] else row["kind"]
    text = "\n\n".join(p for p in (row["summary"], row["body"]) if p)
    return f"{head}\n\n{text if text else '(no docstring)'}\n"


def render_doc(row: sqlite3.Row) -> str:
    """A document as Markdown: the title line, the doc id, then the text an assessor reads."""
    lines = [f"# {row['title']}", "", f"`{row['doc_id']}` · {row['kind']}", ""]
    if row["signature"]:
        lines += ["```python", f"{row['title'].rsplit('.', 1)[-1]}{row['signature']}", "```", ""]
    text = "\n\n".join(p for p in (row["summary"], row["body"]) if p)
    lines.append(text if text else "(no docstring)")
    return "\n".join(lines).rstrip() + "\n"
