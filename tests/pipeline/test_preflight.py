"""Pre-flight checks (``[systems.NAME] preflight``) through the real ``run`` command: run once before the run,
stop it with the check's output when it fails, record its stdout in the manifest, refuse to resume a run made
under another pre-flight output."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import engine_argv, make_workspace

from toolkit.cli import main

CHECK = """
import pathlib, sys, time
with open("preflight.log", "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
index = pathlib.Path("index.txt")
if not index.exists():
    print("no index: index.txt is missing")
    print("build it first", file=sys.stderr)
    sys.exit(4)
if index.read_text().strip() == "hang":
    time.sleep(300)
print("index: " + index.read_text().strip())
print("docs: 2")
"""


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """System a: the fake engine (its calls logged to search.log) with check.py as its pre-flight."""
    (tmp_path / "check.py").write_text(CHECK)
    (tmp_path / "index.txt").write_text("v1\n")
    make_workspace(
        tmp_path,
        topics="q1\tfirst\nq2\tsecond\n",
        topics_file="t.tsv",
        workspace={"depth": 2},
        systems={"a": {"command": engine_argv(), "preflight": ["{python}", "check.py", "a"]}},
    )
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "search.log"))
    monkeypatch.setenv("FAKE_DELAY", "0")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def manifest(ws: Path, name: str = "a") -> dict[str, Any]:
    return json.loads((ws / "runs" / f"{name}.run.json").read_text())


def test_run_records_the_preflight_output_once(ws: Path) -> None:
    result = invoke("run", "a")
    assert result.exit_code == 0, result.output
    assert (ws / "preflight.log").read_text() == "a\n"  # once per run, not per topic
    assert (ws / "search.log").read_text().split() == ["q1", "q2"]
    record = manifest(ws)["preflight"]
    output = "index: v1\ndocs: 2\n"
    assert record["check"] == ["{python}", "check.py", "a"]
    assert record["output"] == output
    assert record["sha256"] == hashlib.sha256(output.encode()).hexdigest()
    assert manifest(ws)["system"]["preflight"] == ["{python}", "check.py", "a"]
    assert result.stderr.splitlines()[0] == "Pre-flight a: index: v1 (+1 line)"


def test_a_failing_preflight_stops_the_run_with_its_output(ws: Path) -> None:
    (ws / "index.txt").unlink()
    result = invoke("run", "a")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: system 'a': pre-flight `{python} check.py a` failed (exit code 4): "
        "no index: index.txt is missing | build it first; fix what it reports, then run again\n"
    )
    assert not (ws / "search.log").exists()
    assert not (ws / "runs" / "a.run").exists()


def test_a_preflight_that_hangs_stops_at_the_timeout(ws: Path) -> None:
    (ws / "index.txt").write_text("hang\n")
    started = time.monotonic()
    result = invoke("run", "a", "--timeout", "1")
    assert (
        time.monotonic() - started < 150
    )  # the check (sleeping 300 s) is stopped at the timeout, not waited for
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: system 'a': pre-flight `{python} check.py a` failed: timed out after 1."
    )
    assert not (ws / "search.log").exists()


def test_a_preflight_program_that_does_not_exist(ws: Path) -> None:
    config = ws / "toolkit.toml"
    config.write_text(
        config.read_text().replace('preflight = ["{python}"', 'preflight = ["no-such-check-xyz"')
    )
    result = invoke("run", "a")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: system 'a': pre-flight `no-such-check-xyz check.py a` failed: cannot start 'no-such-check-xyz': "
        "No such file or directory\n"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"check.py"', "preflight must be an argv list such as"),
        ("[]", "preflight must be an argv list such as"),
        ('["check", 3]', "preflight must be an argv list such as"),
        ('"http://localhost:9/health"', "a URL pre-flight is for http systems"),
    ],
)
def test_preflight_config_errors(ws: Path, value: str, message: str) -> None:
    config = ws / "toolkit.toml"
    config.write_text(
        config.read_text().replace('preflight = ["{python}", "check.py", "a"]', f"preflight = {value}")
    )
    result = invoke("run", "a")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {config}: [systems.a]: {message}")


def test_resume_refuses_a_run_begun_under_another_preflight_output(ws: Path) -> None:
    """kill -9 the run after its first topic; the index changes; --resume must not mix the two."""
    (ws / "t.tsv").write_text("q1\tfirst\nslow2\tsecond\n")
    env = {**os.environ, "FAKE_DELAY": "3"}
    proc = subprocess.Popen([sys.executable, "-m", "toolkit", "run", "a"], cwd=ws, env=env)
    journal = ws / "runs" / "a.run.partial"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        journal.exists() and len(journal.read_text().splitlines()) >= 2
    ):
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    assert len(journal.read_text().splitlines()) == 2  # the header and q1
    (ws / "index.txt").write_text("v2\n")
    result = invoke("run", "a", "--resume")
    assert result.exit_code == 2
    assert result.stderr == (
        "Pre-flight a: index: v2 (+1 line)\n"
        "Error: runs/a.run.partial was begun under another pre-flight output than `{python} check.py a` "
        "prints now; rerun without --resume to start over\n"
    )
    (ws / "index.txt").write_text("v1\n")
    result = invoke("run", "a", "--resume")
    assert result.exit_code == 0, result.output
    assert (ws / "search.log").read_text().split() == ["q1", "slow2", "slow2"]
    assert manifest(ws)["preflight"]["output"] == "index: v1\ndocs: 2\n"


class Health(BaseHTTPRequestHandler):
    status = 200
    seen: list[dict[str, str]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        Health.seen.append({"path": self.path, **{k.lower(): v for k, v in self.headers.items()}})
        if self.path.startswith("/health"):
            body = b'{"index": "docs-v7", "status": "green"}' if Health.status == 200 else b"index closed"
            self.send_response(Health.status)
        else:
            body = json.dumps({"hits": ["d1", "d2"]}).encode()
            self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def http_ws(ws: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    Health.seen, Health.status = [], 200
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    monkeypatch.setenv("TEST_TOKEN", "s3cret")
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    (ws / "toolkit.toml").write_text(
        f"""
[workspace]
topics = "t.tsv"

[systems.es]
url = "{url}/search"
params = {{ q = "{{query}}" }}
headers = {{ Authorization = "Bearer ${{TEST_TOKEN}}" }}
ids = "hits"
preflight = "{url}/health"
"""
    )
    yield ws
    httpd.shutdown()
    httpd.server_close()


def test_an_http_preflight_url_is_fetched_with_the_systems_headers(http_ws: Path) -> None:
    result = invoke("run", "es")
    assert result.exit_code == 0, result.output
    paths = [r["path"] for r in Health.seen]
    assert paths[0] == "/health"  # first, and once; the searches may come in any order (2 workers)
    assert sorted(paths[1:]) == ["/search?q=first", "/search?q=second"]
    assert Health.seen[0]["authorization"] == "Bearer s3cret"
    record = manifest(http_ws, "es")["preflight"]
    assert record["check"].startswith("http://127.0.0.1:") and record["check"].endswith("/health")
    assert record["output"] == '{"index": "docs-v7", "status": "green"}'


def test_an_http_preflight_error_stops_the_run(http_ws: Path) -> None:
    Health.status = 503
    result = invoke("run", "es")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: system 'es': pre-flight GET http://127.0.0.1:")
    assert result.stderr.endswith(
        "/health failed (HTTP 503 Service Unavailable): index closed; fix what it reports, then run again\n"
    )
    assert [r["path"] for r in Health.seen] == ["/health"]
