"""HTTP systems against hostile servers (threads on 127.0.0.1, ephemeral ports): redirects that would leak
secrets to another host or downgrade to plain http, replies that drip one byte at a time, replies too big."""

from __future__ import annotations

import contextlib
import json
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.errors import ConfigError
from toolkit.formats.manifest import read_manifest
from toolkit.systems import CallFailed, HttpSystem, Parser, system_from_config
from toolkit.systems.http import DEFAULT_MAX_RESPONSE

HITS = json.dumps({"hits": ["d1", "d2"]}).encode()
SECRETS = {"Authorization": "Bearer s3cret", "X-Api-Key": "k3y"}


class Server:
    """One HTTP(S) server on 127.0.0.1 whose handler is ``answer(handler)``; it records every request."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler], None], tls: ssl.SSLContext | None = None):
        self.seen: list[dict[str, Any]] = []
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                seen.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}})
                with contextlib.suppress(BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    answer(self)  # a broken pipe: the client gave up, as it should

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def url(self, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(answer: Callable[[BaseHTTPRequestHandler], None], tls: ssl.SSLContext | None = None) -> Server:
        servers.append(Server(answer, tls))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def hits(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(HITS)))
    handler.end_headers()
    handler.wfile.write(HITS)


def redirect_to(location: str) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.path.startswith("/final"):
            hits(handler)
            return
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


def system(url: str, **kwargs: Any) -> HttpSystem:
    return HttpSystem("es", url, Parser("json", ids="hits"), params={"q": "{query}"}, **kwargs)


# --- redirects ---------------------------------------------------------------------------------------------


def test_redirect_to_another_host_drops_the_secret_headers(serve: Callable[..., Server]) -> None:
    other = serve(hits)
    # 127.0.0.1 and localhost are the same machine but two hosts to HTTP: the second must not see the secrets
    first = serve(redirect_to(f"{other.url('localhost')}/final"))
    found = system(f"{first.url()}/search", headers={**SECRETS, "X-Trace": "t1"}).search(
        "q", query_id="q1", depth=2, timeout=5
    )
    assert [h.doc_id for h in found] == ["d1", "d2"]
    assert first.seen[0]["headers"]["authorization"] == "Bearer s3cret"
    assert first.seen[0]["headers"]["x-api-key"] == "k3y"
    forwarded = other.seen[0]["headers"]
    assert "authorization" not in forwarded and "x-api-key" not in forwarded
    assert "x-trace" not in forwarded  # every configured header may be a secret: none crosses hosts


def test_redirect_on_the_same_host_keeps_the_headers(serve: Callable[..., Server]) -> None:
    server = serve(redirect_to("/final"))
    found = system(f"{server.url()}/search", headers=SECRETS).search("q", query_id="q1", depth=2, timeout=5)
    assert [h.doc_id for h in found] == ["d1", "d2"]
    assert [r["path"] for r in server.seen] == ["/search?q=q", "/final"]
    assert server.seen[1]["headers"]["authorization"] == "Bearer s3cret"


def test_redirect_to_another_port_of_the_same_host_drops_the_headers(serve: Callable[..., Server]) -> None:
    other = serve(hits)
    first = serve(redirect_to(f"{other.url()}/final"))
    system(f"{first.url()}/search", headers=SECRETS).search("q", query_id="q1", depth=2, timeout=5)
    assert "authorization" not in other.seen[0]["headers"]


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> tuple[ssl.SSLContext, Path]:
    """A self-signed certificate for 127.0.0.1 (made with the openssl program) and a context serving it."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl program is needed to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context, cert


def test_redirect_from_https_to_http_is_refused(
    serve: Callable[..., Server], tls: tuple[ssl.SSLContext, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    context, cert = tls
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the client trusts the test certificate
    plain = serve(hits)
    secure = serve(redirect_to(f"{plain.url()}/final"), tls=context)
    with pytest.raises(CallFailed) as failed:
        system(f"{secure.url(scheme='https')}/search", headers=SECRETS).search(
            "q", query_id="q1", depth=2, timeout=5
        )
    assert failed.value.reason == (
        f"refused a redirect from https to plain http ({plain.url()}/final): it would send the query, and "
        "any secret, unencrypted"
    )
    assert plain.seen == []
    assert len(secure.seen) == 1  # the https server itself answered (the certificate was trusted)


# --- the wall-clock deadline -------------------------------------------------------------------------------


def drip_body(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.end_headers()
    for byte in b'{"hits": ["d1"]' + b" " * 200 + b"}":
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.05)


def drip_headers(handler: BaseHTTPRequestHandler) -> None:
    for byte in b"HTTP/1.0 200 OK\r\n" + b"X-Slow: " + b"." * 200 + b"\r\n\r\n" + HITS:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.05)


@pytest.mark.parametrize("answer", [drip_body, drip_headers], ids=["body", "headers"])
def test_a_server_dripping_bytes_hits_the_deadline(serve: Callable[..., Server], answer: Any) -> None:
    """Each byte comes well within the 1 s timeout, so a per-read timeout never fires; the whole reply would
    take over 10 s. The call must end at its 1 s deadline: it fails (a per-read timeout would let the whole
    reply arrive and succeed), saying so."""
    server = serve(answer)
    with pytest.raises(CallFailed) as failed:
        system(f"{server.url()}/search").search("q", query_id="q1", depth=2, timeout=1.0)
    assert failed.value.reason.startswith("timed out after 1.")
    assert failed.value.reason.endswith("s (the deadline of 1s per call)")


def test_the_deadline_covers_the_redirects_too(serve: Callable[..., Server]) -> None:
    slow = serve(drip_body)
    first = serve(redirect_to(f"{slow.url()}/search"))
    with pytest.raises(CallFailed, match=r"timed out after 1\."):
        system(f"{first.url()}/start").search("q", query_id="q1", depth=2, timeout=1.0)


# --- the size cap ------------------------------------------------------------------------------------------


def big(declared: bool) -> Callable[[BaseHTTPRequestHandler], None]:
    body = b'{"hits": ["d1"], "pad": "' + b"x" * 300_000 + b'"}'

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        if declared:
            handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "until-close"])
def test_a_reply_over_the_cap_fails_the_call(serve: Callable[..., Server], declared: bool) -> None:
    server = serve(big(declared))
    with pytest.raises(CallFailed) as failed:
        system(f"{server.url()}/search", max_response=100_000).search("q", query_id="q1", depth=2, timeout=5)
    assert failed.value.reason == (
        "the reply is larger than max_response = 100000 bytes; raise max_response for this system if the "
        "reply is meant to be that large"
    )
    found = system(f"{server.url()}/search", max_response=400_000).search(
        "q", query_id="q", depth=2, timeout=5
    )
    assert [h.doc_id for h in found] == ["d1"]


def test_an_error_reply_is_capped_too(serve: Callable[..., Server]) -> None:
    def error(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(500)
        handler.end_headers()
        handler.wfile.write(b"E" * 300_000)

    server = serve(error)
    with pytest.raises(CallFailed) as failed:
        system(f"{server.url()}/search", max_response=100_000).search("q", query_id="q", depth=2, timeout=5)
    assert failed.value.reason == "HTTP 500 Internal Server Error"
    assert failed.value.stderr_tail == "E" * 2000


def test_max_response_from_toolkit_toml() -> None:
    base = {"url": "http://127.0.0.1:1/s", "ids": "hits"}
    default = system_from_config("es", base)
    assert isinstance(default, HttpSystem) and default.max_response == DEFAULT_MAX_RESPONSE == 64 * 2**20
    for value, expected in [(1000, 1000), ("512 KiB", 512 * 1024), ("2MiB", 2 * 2**20), ("1 GiB", 2**30)]:
        made = system_from_config("es", {**base, "max_response": value})
        assert isinstance(made, HttpSystem) and made.max_response == expected
    for bad in (0, -5, "lots", "1.5 MiB", True, "3 MB"):
        with pytest.raises(ConfigError, match=r"max_response must be a positive number of bytes"):
            system_from_config("es", {**base, "max_response": bad})
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['max_response'\] for a command system"):
        system_from_config("c", {"command": ["p", "{query}"], "max_response": 10})


def test_an_oversized_reply_through_run_is_a_recorded_failure(
    serve: Callable[..., Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve(big(declared=False))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.tsv").write_text("q1\tfirst\nq2\tsecond\n", encoding="utf-8")
    (tmp_path / "toolkit.toml").write_text(
        f'[systems.es]\nurl = "{server.url()}/s"\nparams = {{ q = "{{query}}" }}\nids = "hits"\n'
        'max_response = "100 KiB"\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["run", "es", "--topics", "t.tsv"])
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: every topic failed (2); first: q1: the reply is larger than max_response = 102400 bytes"
    )
    manifest = read_manifest(tmp_path / "runs" / "es.run")
    assert manifest is not None and manifest["system"]["max_response"] == 102400
