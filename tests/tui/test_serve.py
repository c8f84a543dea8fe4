"""``judge --serve`` and ``progress --serve`` without a browser: which hosts are refused, which addresses
are printed, what the served command is (an argument list, never a shell line), and a screen without a
terminal (tests/browser/ drives the served screens in chromium and with a raw websocket client)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.tui import serve as serving
from toolkit.tui.serve import SERVED_DRIVER, WEB_DRIVER, is_local


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"])
def test_loopback_hosts_are_local(host: str) -> None:
    assert is_local(host)


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "8.8.8.8", "example.org", "myhost"]
)
def test_every_other_host_is_remote(host: str) -> None:
    assert not is_local(host)


class Captured:
    """Records what textual-serve's server was asked to serve (its ``serve`` is replaced: nothing listens):
    above all the shell command line it runs for each browser tab."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def serve(self, server: Any, debug: bool = False) -> None:
        self.calls.append(
            {
                "argv": server.argv,
                "urls": server.urls,
                "token": server.access.token,
                "host": server.host,
                "port": server.port,
                "title": server.title,
                "public_url": server.public_url,
                "served": True,
            }
        )


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Captured:
    from textual_serve.server import Server

    captured = Captured()
    monkeypatch.setattr(Server, "serve", lambda self, debug=False: captured.serve(self, debug))
    monkeypatch.setattr(serving, "_check_port", lambda host, port: None)
    return captured


def test_a_remote_host_is_refused_without_allow_remote(campaign: Path, server: Captured) -> None:
    result = CliRunner().invoke(
        main, ["judge", str(campaign), "--assessor", "alice", "--serve", "--host", "0.0.0.0"]
    )
    assert result.exit_code == 2
    assert result.output == (
        "Error: --host 0.0.0.0 is reachable from other machines, and the served screen has no login; pass "
        "--allow-remote if anyone who can reach that address may use it (or keep the default 127.0.0.1 and "
        "put an authenticating proxy in front)\n"
    )
    assert server.calls == []
    result = CliRunner().invoke(main, ["progress", str(campaign), "--serve", "--host", "192.168.1.5"])
    assert result.exit_code == 2 and "--allow-remote" in result.output and server.calls == []


def test_allow_remote_serves_and_says_who_can_judge(campaign: Path, server: Captured) -> None:
    args = ["judge", str(campaign), "--assessor", "alice", "--serve", "--host", "0.0.0.0", "--port", "8123"]
    result = CliRunner().invoke(main, [*args, "--allow-remote", "--public-url", "https://judge.example.org"])
    assert result.exit_code == 0, result.output
    assert result.output == (
        "Warning: anyone who has the URL below and can reach 0.0.0.0 port 8123 can judge as 'alice'; "
        "there is no other login.\n"
    )
    [call] = server.calls
    assert call["host"] == "0.0.0.0" and call["port"] == 8123 and call["served"]
    assert call["public_url"] == "https://judge.example.org"
    assert call["urls"] == [f"https://judge.example.org/?token={call['token']}"]
    assert call["title"] == "trec-toolkit judge · camp · alice"
    # The default: this machine only, and nothing to warn about.
    server.calls.clear()
    result = CliRunner().invoke(main, ["judge", str(campaign), "--assessor", "alice", "--serve"])
    assert result.exit_code == 0 and result.output == ""
    [call] = server.calls
    assert (call["host"], call["port"], call["public_url"]) == ("127.0.0.1", 8000, "http://127.0.0.1:8000")
    assert call["urls"] == [f"http://127.0.0.1:8000/?token={call['token']}"]
    assert len(call["token"]) >= 43  # 256 bits, new at every start
    server.calls.clear()
    CliRunner().invoke(main, ["judge", str(campaign), "--assessor", "alice", "--serve"])
    assert server.calls[0]["token"] != call["token"]


def interface_addresses() -> list[str]:
    """This machine's IPv4 addresses but loopback, as ``ip`` (iproute2) lists them: the oracle."""
    import shutil

    if shutil.which("ip") is None:
        pytest.skip("iproute2's ip is not installed")
    out = subprocess.run(
        ["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True, check=True
    ).stdout
    found = [line.split()[3].split("/")[0] for line in out.splitlines()]
    return [a for a in found if not a.startswith("127.")]


def test_allow_remote_prints_the_addresses_others_can_use(campaign: Path, server: Captured) -> None:
    """On 0.0.0.0 the server prints one URL per address of this machine's interfaces, never localhost."""
    args = ["judge", str(campaign), "--assessor", "alice", "--serve", "--host", "0.0.0.0", "--port", "8125"]
    result = CliRunner().invoke(main, [*args, "--allow-remote"])
    assert result.exit_code == 0, result.output
    [call] = server.calls
    expected = [f"http://{a}:8125/?token={call['token']}" for a in interface_addresses()]
    assert expected and sorted(call["urls"]) == sorted(expected)
    assert not any("localhost" in u or "127.0.0.1" in u for u in call["urls"])


def run_argv(argv: list[str], tmp_path: Path) -> list[str]:
    """Run the served command as the server does (an argument list, no shell), with a stand-in
    ``toolkit`` package first on the path that prints the arguments it was given."""
    fake = tmp_path / "fake" / "toolkit"
    fake.mkdir(parents=True, exist_ok=True)
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text("import json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    assert argv[:3] == [sys.executable, "-m", "toolkit"]
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(fake.parent), "PATH": "/usr/bin:/bin"},
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_served_command_reaches_the_app_as_the_arguments_given(tmp_path: Path, server: Captured) -> None:
    """Names and paths with quotes, spaces, ``;``, ``$(…)`` and backticks are arguments, never shell."""
    from tui_helpers import build_campaign

    folder = tmp_path / 'it\'s; touch pwned; $(touch pwned2) `touch pwned3` "q"'
    folder.mkdir()
    path = build_campaign(folder / "camp.sqlite", assessors=("o'neil $(touch pwned4)",))
    keys = folder / "keys; rm -rf x.toml"
    keys.write_text('skip = "k"\n')
    result = CliRunner().invoke(
        main,
        ["judge", str(path), "--assessor", "o'neil $(touch pwned4)", "--keys", str(keys), "--serve"],
    )
    assert result.exit_code == 0, result.output
    argv = run_argv(server.calls[0]["argv"], tmp_path)
    assert argv == [
        "judge",
        "--assessor=o'neil $(touch pwned4)",
        f"--keys={keys}",
        "--",
        str(path),
    ]
    assert "--serve" not in argv  # the served app does not serve again
    assert not list(tmp_path.rglob("pwned*"))
    # …and the CLI reads them back as the same campaign and assessor.
    from toolkit.cli.judge import command

    parsed = command.make_context("judge", argv[1:]).params
    assert (parsed["campaign"], parsed["assessor"], parsed["keys_file"]) == (
        path,
        "o'neil $(touch pwned4)",
        keys,
    )

    server.calls.clear()
    result = CliRunner().invoke(main, ["progress", str(path), "--interval", "0.5", "--serve"])
    assert result.exit_code == 0, result.output
    assert run_argv(server.calls[0]["argv"], tmp_path) == [
        "progress",
        "--interval=0.5",
        "--fast-below=1.0",
        "--",
        str(path),
    ]
    server.calls.clear()
    result = CliRunner().invoke(main, ["judge", str(path), "--progress", "--serve", "--port", "8124"])
    assert result.exit_code == 0, result.output
    assert run_argv(server.calls[0]["argv"], tmp_path)[0] == "progress"
    assert server.calls[0]["port"] == 8124


@pytest.mark.parametrize("driver", [SERVED_DRIVER, WEB_DRIVER])
def test_a_served_screen_does_not_serve_again(campaign: Path, server: Captured, driver: str) -> None:
    result = CliRunner(env={"TEXTUAL_DRIVER": driver}).invoke(
        main, ["judge", str(campaign), "--assessor", "alice", "--serve"]
    )
    assert result.exit_code == 2
    assert result.output == "Error: --serve inside a served screen: this screen is already in a browser\n"
    assert server.calls == []


def test_what_is_wrong_is_said_before_serving(campaign: Path, server: Captured) -> None:
    result = CliRunner().invoke(main, ["judge", str(campaign), "--assessor", "carol", "--serve"])
    assert result.exit_code != 0
    assert result.output.startswith(
        "Error: assessor 'carol' has no items in this campaign (assessors: alice)"
    )
    result = CliRunner().invoke(
        main, ["judge", str(campaign.parent / "nope.sqlite"), "-a", "alice", "--serve"]
    )
    assert result.exit_code != 0 and "no such campaign" in result.output
    assert server.calls == []


def test_a_port_in_use_is_one_line(campaign: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            main, ["judge", str(campaign), "--assessor", "alice", "--serve", "--port", str(port)]
        )
    assert result.exit_code == 2
    assert result.output.startswith(f"Error: cannot serve on 127.0.0.1:{port}: Address already in use;")
    assert result.output.count("\n") == 1


def test_a_served_app_keeps_its_stdout_for_the_browser(campaign: Path) -> None:
    """Run the app as textual-serve runs it (Textual's web driver: packets on stdin and stdout), press q:
    the closing summary goes to stderr (the server's console), never into the browser's channel."""
    import os
    import threading
    import time

    script = Path(sys.executable).parent / "trec-toolkit"
    env = {**os.environ, "TEXTUAL_DRIVER": SERVED_DRIVER, "COLUMNS": "110", "ROWS": "36"}
    app = subprocess.Popen(
        [str(script), "judge", str(campaign), "--assessor", "alice"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert app.stdin is not None and app.stdout is not None and app.stderr is not None
    out = bytearray()

    def pump() -> None:
        while chunk := app.stdout.read1(65536):  # type: ignore[union-attr]
            out.extend(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while b"Item 1 of 5" not in out:
            assert time.monotonic() < deadline and app.poll() is None, bytes(out[-2000:])
            time.sleep(0.05)
        app.stdin.write(b"D" + (1).to_bytes(4, "big") + b"q")  # the key q, as the server sends it
        app.stdin.flush()
        assert app.wait(30) == 0
    finally:
        if app.poll() is None:
            app.kill()
    reader.join(5)
    errors = app.stderr.read().decode()
    assert errors.startswith("alice on camp.sqlite\nJudged        0\n"), errors
    assert b"Judged        0" not in out


@pytest.mark.parametrize(
    "args",
    [["judge", "--assessor", "alice"], ["adjudicate", "--adjudicator", "carol"], ["progress"]],
    ids=["judge", "adjudicate", "progress"],
)
def test_a_screen_without_a_terminal_refuses_in_one_line(campaign: Path, args: list[str]) -> None:
    """Input from /dev/null and output to a pipe: one line and exit 2, at once (it used to spin)."""
    script = Path(sys.executable).parent / "trec-toolkit"
    done = subprocess.run(
        [str(script), args[0], str(campaign), *args[1:]],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    hint = "" if args[0] == "adjudicate" else ", or with --serve to use it in a browser"
    assert done.stderr == (
        f"Error: {args[0]} needs a terminal: its standard input and output are not one; run it in a "
        f"terminal{hint}\n"
    )
