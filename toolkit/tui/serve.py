"""The campaign screens in a browser: ``judge --serve`` and ``progress --serve``, through textual-serve.

Not a second UI: textual-serve's ``Server`` answers a browser with a page that runs a terminal (xterm.js)
and, for each connection, starts the command it was given — here the same ``trec-toolkit judge`` or
``progress`` command, without ``--serve`` — with Textual's web driver, one process per browser tab. So the
browser gets exactly the terminal app: its keys, its writer and journal, its conflict questions between two
tabs (two processes, as two terminals).

What is and is not protected: there is no login. Whoever reaches the port gets the screen, and on ``judge``
judges *as the assessor the server was started for*. So the server binds to the loopback interface unless
told otherwise, and ``check_host`` refuses any other address without ``allow_remote``; the caller then says
out loud who can do what. Put it behind an authenticating reverse proxy (with ``public_url``) to share it.

The command textual-serve runs is a shell command line (it uses ``create_subprocess_shell``), so it is built
from an argument list with ``shlex.join``: a campaign path or assessor name with spaces, quotes, ``;`` or
``$(…)`` reaches the command as one argument, never as shell syntax.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import shlex
import socket
from pathlib import Path
from typing import Any

from toolkit.errors import UsageError

#: The web driver textual-serve sets for the processes it starts (how a served screen knows it is one).
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
#: Host names that are the loopback interface whatever the resolver says.
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def served() -> bool:
    """This process runs a screen for textual-serve (its output goes to a browser, not a terminal)."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def is_local(host: str) -> bool:
    """Only this machine can connect to ``host``: a loopback address or a name for one.

    Any other name counts as remote (it may resolve to a public address), and so do the wildcards
    ``0.0.0.0`` and ``::`` (every interface).
    """
    name = host.strip().strip("[]").lower()
    if name in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_host(host: str, *, allow_remote: bool) -> None:
    """Refuse to listen beyond this machine unless asked to: the port is the only key."""
    if not host.strip():
        raise UsageError("--host is empty; give an address to listen on (default 127.0.0.1)")
    if not is_local(host) and not allow_remote:
        raise UsageError(
            f"--host {host} is reachable from other machines, and the served screen has no login; "
            "pass --allow-remote if anyone who can reach that address may use it (or keep the default "
            "127.0.0.1 and put an authenticating proxy in front)"
        )


def public_url(host: str, port: int) -> str:
    """The address the page tells the browser to connect back to (a wildcard is no address to connect to)."""
    name = host.strip()
    if name in ("0.0.0.0", "::", ""):
        name = socket.getfqdn()
    elif ":" in name and not name.startswith("["):
        name = f"[{name}]"  # an IPv6 literal in a URL
    return f"http://{name}:{port}"


def serve_command(argv: list[str], *, host: str, port: int, title: str, url: str | None = None) -> None:
    """Serve ``argv`` (a screen's command, never one that serves again) until Ctrl+C; blocks.

    One process per browser connection; closing the tab ends it (what it had queued is journaled, and the
    next window of the same assessor saves it). A port already taken is a one-line error.
    """
    from textual_serve.server import Server

    class CampaignServer(Server):
        """textual-serve's server with our start-up lines instead of its banner, and no access log."""

        def initialize_logging(self) -> None:
            super().initialize_logging()
            logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

        async def on_startup(self, app: Any) -> None:
            self.console.print(f"Serving {title} at {self.public_url}", markup=False, highlight=False)
            self.console.print(
                "Open it in a browser; Ctrl+C stops the server.", markup=False, highlight=False
            )

    _check_port(host, port)
    address = url or public_url(host, port)
    server = CampaignServer(shlex.join(argv), host=host, port=port, title=title, public_url=address)
    try:
        server.serve()
    except OSError as exc:
        raise UsageError(
            f"cannot serve on {host}:{port}: {exc.strerror or exc}; pick another --port (or stop what uses it)"
        ) from None


def _check_port(host: str, port: int) -> None:
    """Say now, in one line, that the port is taken (before the server announces itself)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise UsageError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; check --host") from None
    for family, kind, proto, _, address in infos[:1]:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
            try:
                probe.bind(address)
            except OSError as exc:
                raise UsageError(
                    f"cannot serve on {host}:{port}: {exc.strerror or exc}; pick another --port "
                    "(or stop what uses it)"
                ) from None


def absolute(location: str | Path) -> str:
    """A campaign or file for the served command: a path made absolute (it means the same whatever the
    server's folder), a campaign URL as written."""
    from toolkit.judging.postgres.url import is_campaign_url

    if is_campaign_url(location):
        return str(location)
    return str(Path(location).expanduser().resolve())
