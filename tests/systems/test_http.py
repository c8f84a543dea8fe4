"""The http system against a small JSON search server this test starts on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from toolkit.formats.manifest import read_manifest
from toolkit.model import Topic, TopicSet
from toolkit.systems import CallFailed, HttpSystem, Parser, run_system

HOSTILE = 'a "quoted" \\ back\\slash {depth} $(x) & b=c ü 🦆\nline2'


class Handler(BaseHTTPRequestHandler):
    seen: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def _answer(self, query: str, size: int) -> None:
        if query == "boom":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"index unavailable")
            return
        hits = [{"_id": f"doc-{i}", "_score": 1.0} for i in range(size)]
        body = json.dumps({"hits": {"hits": hits}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        parts = urlsplit(self.path)
        params = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.seen.append(
            {"method": "GET", "path": parts.path, "params": params, "headers": dict(self.headers)}
        )
        self._answer(params.get("q", ""), int(params.get("size", "10")))

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"method": "POST", "path": self.path, "body": body, "headers": dict(self.headers)})
        self._answer(body["query"]["match"]["text"], body["size"])


@pytest.fixture
def server() -> Iterator[str]:
    Handler.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_get_with_url_encoded_params(server: str) -> None:
    system = HttpSystem(
        "es",
        f"{server}/idx/_search",
        Parser("json", ids="hits.hits[*]._id"),
        params={"q": "{query}", "size": "{depth}", "qid": "{query_id}"},
    )
    hits = system.search(HOSTILE, query_id="q7", depth=3, timeout=5)
    assert [h.doc_id for h in hits] == ["doc-0", "doc-1", "doc-2"]
    assert Handler.seen[0]["params"] == {"q": HOSTILE, "size": "3", "qid": "q7"}
    assert Handler.seen[0]["path"] == "/idx/_search"


def test_post_json_body_template_and_headers(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_API_KEY", "s3cret")
    system = HttpSystem(
        "es",
        f"{server}/idx/_search",
        Parser("json", ids="hits.hits[*]._id", scores="hits.hits[*]._score"),
        method="POST",
        body={"query": {"match": {"text": "{query}"}}, "size": "{depth}", "tag": "topic {query_id}"},
        headers={"Authorization": "ApiKey ${TEST_API_KEY}", "X-Topic": "{query_id}"},
    )
    hits = system.search(HOSTILE, query_id="q1", depth=2, timeout=5)
    assert [h.doc_id for h in hits] == ["doc-0", "doc-1"]
    request = Handler.seen[0]
    assert request["body"] == {"query": {"match": {"text": HOSTILE}}, "size": 2, "tag": "topic q1"}
    assert request["headers"]["Authorization"] == "ApiKey s3cret"
    assert request["headers"]["X-Topic"] == "q1"
    assert request["headers"]["Content-Type"] == "application/json"
    assert system.describe()["headers"] == ["Authorization", "X-Topic"]  # names only, never the secret


def test_post_string_body_gets_json_encoded_values(server: str) -> None:
    system = HttpSystem(
        "es",
        f"{server}/s",
        Parser("json", ids="hits.hits[*]._id"),
        method="POST",
        body='{"query": {"match": {"text": {query}}}, "size": {depth}}',
    )
    system.search(HOSTILE, query_id="q1", depth=1, timeout=5)
    assert Handler.seen[0]["body"] == {"query": {"match": {"text": HOSTILE}}, "size": 1}


def test_http_errors_are_recorded_in_the_run(server: str, tmp_path: Path) -> None:
    system = HttpSystem("es", f"{server}/s", Parser("json", ids="hits.hits[*]._id"), params={"q": "{query}"})
    with pytest.raises(CallFailed, match="HTTP 500"):
        system.search("boom", query_id="q", depth=1, timeout=5)
    topics = TopicSet(topics=(Topic("ok", "fine"), Topic("bad", "boom")), name="t", sha256="1" * 64)
    result = run_system(system, topics, output=tmp_path / "es.run", depth=2)
    assert [(f.query_id, f.reason, f.exit_code, f.stderr_tail) for f in result.failures] == [
        ("bad", "HTTP 500 Internal Server Error", 500, "index unavailable")
    ]
    manifest = read_manifest(tmp_path / "es.run")
    assert manifest is not None and manifest["system"]["url"] == f"{server}/s"


def test_unreachable_server_is_a_failed_call() -> None:
    system = HttpSystem("es", "http://127.0.0.1:9/none", Parser("json", ids="x"))
    with pytest.raises(CallFailed, match="request failed"):
        system.search("q", query_id="q", depth=1, timeout=2)
