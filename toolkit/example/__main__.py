"""``python -m toolkit.example``: the example search CLI (argparse, not click: each call is a process).

Output contract (what ``toolkit.toml`` parses): ``search`` prints
``{"query": …, "engine": …, "results": [{"doc_id": …, "title": …, "kind": …, "score": …}]}``, best first.
``show DOC_ID`` prints one document as Markdown for people; ``show`` without an id and ``versions`` speak the
toolkit's batch doc-source protocol (docs/pooling.md "Doc sources"): ids on stdin, one per line, and one
JSON object per id on stdout — ``{"doc_id", "title", "text", "format", "version"}`` (or ``{"doc_id",
"error"}``), and ``{"doc_id", "version"}`` for ``versions``.
Errors print one ``Error: …`` line on stderr and exit 1 (2 for usage errors, argparse's convention).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m toolkit.example", description="Search the Python standard library's docstrings."
    )
    sub = parser.add_subparsers(dest="action", required=True)
    search = sub.add_parser("search", help="Print the top documents for a query as JSON.")
    search.add_argument("query", help="The query text (one argument, any characters).")
    search.add_argument("--engine", choices=("bm25", "bm25f"), default="bm25")
    search.add_argument("--limit", type=int, default=10, help="How many results (default 10).")
    show = sub.add_parser(
        "show", help="Print one document as Markdown; without DOC_ID, answer the ids on stdin as JSONL."
    )
    show.add_argument("doc_id", nargs="?", help="A doc id such as pydoc://json.loads.")
    sub.add_parser("versions", help="Answer the ids on stdin with their versions, as JSONL.")
    sub.add_parser("ids", help="Print every doc id, one per line (for `trec-toolkit truth --doc-ids`).")
    info = sub.add_parser(
        "info", help="Print which corpus and engine a search uses (the workspace's pre-flight check)."
    )
    info.add_argument("--engine", choices=("bm25", "bm25f"), default="bm25")
    build = sub.add_parser("build", help="Build the corpus cache (done automatically when missing).")
    build.add_argument("--force", action="store_true", help="Rebuild even if the cache exists.")
    sub.add_parser("path", help="Print the corpus cache file's path.")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from toolkit.example import search as engine

    if args.action == "search":
        if args.limit < 0:
            print("Error: --limit must be >= 0", file=sys.stderr)
            return 2
        hits = engine.search(args.query, engine=args.engine, limit=args.limit)
        results = [{"doc_id": h.doc_id, "title": h.title, "kind": h.kind, "score": h.score} for h in hits]
        json.dump(
            {"query": args.query, "engine": args.engine, "results": results}, sys.stdout, ensure_ascii=False
        )
        sys.stdout.write("\n")
    elif args.action == "show" and args.doc_id is None:
        _answer(engine.doc_records(_stdin_ids()))
    elif args.action == "versions":
        _answer(engine.doc_versions(_stdin_ids()))
    elif args.action == "show":
        row = engine.get_doc(args.doc_id)
        if row is None:
            print(
                f"Error: unknown doc id {args.doc_id!r}; list them with `python -m toolkit.example ids`",
                file=sys.stderr,
            )
            return 1
        sys.stdout.write(engine.render_doc(row))
    elif args.action == "ids":
        sys.stdout.write("".join(f"{doc_id}\n" for doc_id in engine.all_ids()))
    elif args.action == "info":
        sys.stdout.write(engine.describe_index(args.engine))
    elif args.action == "build":
        path = engine.ensure_corpus(rebuild=args.force)
        print(f"{path}", file=sys.stderr)
    else:
        print(engine.corpus_path())
    return 0


def _stdin_ids() -> list[str]:
    return [line.rstrip("\r\n") for line in sys.stdin if line.strip()]


def _answer(records: Iterable[dict[str, str]]) -> None:
    for record in records:
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(1)
