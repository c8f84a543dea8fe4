"""200,000 nested ``[`` are a ``path:line`` error, not "internal error RecursionError" (docs/reliability.md).

The real CLI in a subprocess on topic sets (JSONL, TOML), judgments (JSONL), a corpus (JSONL), a manifest
and ``toolkit.toml``; an HTTP system whose reply nests that deep fails that topic, and the run goes on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

DEEP = "[" * 200_000
MESSAGE = "arrays or objects nested too deeply for the parser; nothing real nests this far"


def toolkit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkit", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1 a\n")
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "t.tsv").write_text("q1\tapple pie\n")
    return tmp_path


CASES = {
    "JSONL topics": (
        "topics.jsonl",
        '{"id": "q0", "query": "fine"}\n{"id": "q1", "query": ' + DEEP + "}\n",
        ["score", "r.run", "--qrels", "q.qrels", "--topics", "topics.jsonl"],
        f"Error: topics.jsonl:2: invalid JSON ({MESSAGE}); expected one topic object per line, like "
        '{"id": "q1", "query": "…"}\n',
    ),
    "TOML topics": (
        "topics.toml",
        '[[topic]]\nid = "q1"\nquery = "x"\nextra = ' + DEEP + "\n",
        ["score", "r.run", "--qrels", "q.qrels", "--topics", "topics.toml"],
        f"Error: topics.toml:4: invalid TOML: {MESSAGE} (at line 4)\n",
    ),
    "JSONL judgments": (
        "j.jsonl",
        '{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": ' + DEEP + "}\n",
        ["agree", "j.jsonl"],
        f"Error: j.jsonl:1: invalid JSON ({MESSAGE}); expected one JSON object per line with assessor, "
        "query_id, doc_id and grade\n",
    ),
    "JSONL corpus": (
        "docs.jsonl",
        '{"doc_id": "d1", "text": ' + DEEP + "}\n",
        ["pool", "r.run", "--topics", "t.tsv", "--docs", "docs.jsonl", "-o", "c.sqlite"],
        f"Error: docs.jsonl:1: invalid JSON ({MESSAGE}); expected one document object per line, like "
        '{"doc_id": "d1", "text": "…"}\n',
    ),
    "a run's manifest": (
        "r.run.json",
        '{"failures":\n' + DEEP + "}\n",
        ["compare", "r.run", "r.run", "--qrels", "q.qrels"],
        f"Error: r.run.json:2: invalid manifest JSON ({MESSAGE}); delete it to regenerate\n",
    ),
    "toolkit.toml": (
        "toolkit.toml",
        "[workspace]\ndepth = " + DEEP + "\n",
        ["run", "es", "--topics", "t.tsv"],
        f"Error: toolkit.toml:2: invalid TOML: {MESSAGE} (at line 2)\n",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_deep_nesting_is_a_path_line_error(root: Path, case: str) -> None:
    name, text, args, error = CASES[case]
    (root / name).write_text(text)
    done = toolkit(root, *args)
    assert (done.returncode, done.stderr.replace(f"{root}/", "")) == (1, error)
    assert not (root / "c.sqlite").exists()


@pytest.fixture
def deep_server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            body = (DEEP if "deep" in self.path else json.dumps({"hits": ["d1", "d2"]})).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_an_http_reply_nested_too_deep_fails_that_topic_not_the_run(root: Path, deep_server: str) -> None:
    (root / "t2.tsv").write_text("q1\tfine\nq2\tdeep\n")
    (root / "toolkit.toml").write_text(
        f'[systems.es]\nurl = "{deep_server}/s"\nparams = {{ q = "{{query}}" }}\nids = "hits"\n'
    )
    done = toolkit(root, "run", "es", "--topics", "t2.tsv")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(
        f"Warning: 1 of 2 topics failed and have no results (q2: response is not JSON ({MESSAGE})); "
    )
    assert (root / "runs" / "es.run").read_text().splitlines()[0].startswith("q1 Q0 d1 1 ")
