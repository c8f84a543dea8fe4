"""The campaign screens in a browser: ``judge --serve`` and ``progress --serve``, through textual-serve.

Not a second UI: textual-serve's ``Server`` answers a browser with a page that runs a terminal (xterm.js)
and, for each connection, starts the command it was given — here the same ``trec-toolkit judge`` or
``progress`` command, without ``--serve`` — with Textual's web driver, one process per browser tab. So the
browser gets exactly the terminal app: its keys, its writer and journal, its conflict questions between two
tabs (two processes, as two terminals).

What is protected, and how: the URL the server prints carries a secret made for this start, and the page
and its websocket need it, come from the served address and (the websocket) from the page's own origin —
another web page open in the assessor's browser cannot drive the screen (``toolkit.tui.access``). Whoever
has the URL judges *as the assessor the server was started for*; there is no login and no TLS. So the
server binds to the loopback interface unless told otherwise, and ``check_host`` refuses any other address
without ``allow_remote``; the caller then says out loud who can do what, and the URLs printed are the
addresses others can use. Put it behind an authenticating reverse proxy (with ``public_url``) to share it.

The app is started from an argument list, never a shell line (``toolkit.tui.webserver``): a campaign path or
assessor name with spaces, quotes, ``;`` or ``$(…)`` reaches the command as one argument.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path

from toolkit.errors import UsageError

#: The web driver textual-serve sets for the processes it starts, and ours (``toolkit.tui.webdriver``):
#: how a served screen knows it is one.
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
SERVED_DRIVER = "toolkit.tui.webdriver:ServedDriver"
#: Host names that are the loopback interface whatever the resolver says.
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def served() -> bool:
    """This process runs a screen for textual-serve (its output goes to a browser, not a terminal)."""
    return os.environ.get("TEXTUAL_DRIVER") in (WEB_DRIVER, SERVED_DRIVER)


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


def served_names(host: str) -> list[str]:
    """The addresses a browser can use to reach a server listening on ``host``.

    A wildcard (``0.0.0.0``, ``::``) listens on every interface, so it is every address of this machine's
    interfaces but the loopback ones (IPv6 too for ``::``; link-local ones need a zone and are left out),
    never a name such as ``localhost`` that only this machine can use; a loopback host name is 127.0.0.1;
    any other host is itself.
    """
    import psutil

    name = host.strip().strip("[]")
    if name.lower() in LOCAL_NAMES:
        return ["127.0.0.1"]
    if name not in ("0.0.0.0", "::"):
        return [name]
    families = {socket.AF_INET} | ({socket.AF_INET6} if name == "::" else set())
    found: list[str] = []
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family not in families:
                continue
            ip = ipaddress.ip_address(address.address.split("%")[0])
            if not (ip.is_loopback or ip.is_link_local or str(ip) in found):
                found.append(str(ip))
    return found or [socket.getfqdn()]


def url_of(name: str, port: int) -> str:
    """``http://NAME:PORT`` (an IPv6 literal in brackets)."""
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    return f"http://{name}:{port}"


def answered_names(host: str, shown: list[str]) -> list[str]:
    """The names a ``Host`` or ``Origin`` header may carry: the addresses shown, and for a loopback or
    wildcard server the loopback names too (and the machine's own names for a wildcard)."""
    names = list(shown)
    name = host.strip().strip("[]").lower()
    if is_local(name) or name in ("0.0.0.0", "::"):
        names += ["127.0.0.1", "::1", *LOCAL_NAMES]
    if name in ("0.0.0.0", "::"):
        names += [socket.gethostname(), socket.getfqdn()]
    return names


def serve_command(argv: list[str], *, host: str, port: int, title: str, url: str | None = None) -> None:
    """Serve ``argv`` (a screen's command, never one that serves again) until Ctrl+C or SIGTERM; blocks.

    One process per browser connection, at most ``access.MAX_SESSIONS``; each page needs the URL printed
    with this start's secret (``toolkit.tui.access``); closing the tab ends its app (what it had queued is
    journaled, and the next window of the same assessor saves it). A port already taken is a one-line error.
    """
    from toolkit.tui.access import Access, new_token
    from toolkit.tui.webserver import CampaignServer

    _check_port(host, port)
    token = new_token()
    shown = served_names(host)
    urls = (
        [f"{url.rstrip('/')}/?token={token}"] if url else [f"{url_of(n, port)}/?token={token}" for n in shown]
    )
    access = Access.for_server(answered_names(host, shown), port=port, public_url=url, token=token)
    server = CampaignServer(
        argv,
        access=access,
        urls=urls,
        host=host,
        port=port,
        title=title,
        public_url=url or url_of(shown[0], port),
    )
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
