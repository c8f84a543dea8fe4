"""Who may use a served screen: the secret in the printed URL, the served address, its own origin.

A served judging screen records grades as the assessor it was started for, so reaching the port must not be
enough. Three checks, as Jupyter does for its notebooks:

* **A secret per start.** The server makes a random token and prints the URL carrying it
  (``http://127.0.0.1:8000/?token=…``). Opening that URL sets a cookie holding the token (``HttpOnly``,
  ``SameSite=Strict``, named after the port, since cookies are shared between the ports of one host) and
  redirects to the bare page, so the token leaves the address bar. The page and its websocket need the
  cookie; tokens are compared in constant time.
* **The served address.** The ``Host`` header must name the address served (or a loopback name for a
  loopback server, or the ``--public-url``): a page of another site that points its own name at 127.0.0.1
  (DNS rebinding) is refused.
* **Its own origin.** The websocket needs an ``Origin`` header equal to the served address's origin (or
  the ``--public-url``'s): a page of another origin — another site, or another port of the same host,
  which would carry the cookie — cannot open it, nor can a client that sends no ``Origin``.

Sizes are bounded too: at most ``MAX_SESSIONS`` screens at once (each is a process), and a terminal of at
most ``MAX_COLUMNS`` × ``MAX_ROWS`` whatever the URL or a resize asks for (a 3000 × 3000 screen took 142 MiB
per app).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

#: Screens (app processes) served at once; one more websocket is refused until one closes.
MAX_SESSIONS = 8
#: The largest terminal a page may ask for (a 4K screen at a small font is about 500 columns).
MAX_COLUMNS = 500
MAX_ROWS = 200
#: The smallest, so that a screen can still lay itself out.
MIN_COLUMNS = 20
MIN_ROWS = 5
#: The largest websocket message a page may send (keys, pastes, resizes).
MAX_MESSAGE = 1 << 20


def new_token() -> str:
    """A fresh secret for one start of the server (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def cookie_name(port: int) -> str:
    """The cookie holding the token: one per port, so two servers on one host keep their own."""
    return f"trec_toolkit_{port}"


def _endpoint(value: str, default_port: int | None) -> tuple[str, int | None] | None:
    """``(host, port)`` of a ``Host`` header value (``name[:port]``), lower-cased, IPv6 without brackets."""
    try:
        parts = urlsplit("//" + value.strip())
        name, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not name or parts.path or parts.query or parts.fragment or parts.username is not None:
        return None
    return name.lower(), port if port is not None else default_port


def _origin(value: str) -> tuple[str, str, int | None] | None:
    """``(scheme, host, port)`` of an ``Origin`` header or a URL, default ports filled in."""
    try:
        parts = urlsplit(value.strip())
        name, port = parts.hostname, parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not name:
        return None
    return parts.scheme, name.lower(), port if port is not None else (443 if parts.scheme == "https" else 80)


@dataclass(frozen=True)
class Access:
    """The served address(es), the public URL if any, and this start's token."""

    token: str
    port: int
    names: frozenset[str]  # host names and addresses the server answers to (lower case, no brackets)
    public_url: str | None = None

    @classmethod
    def for_server(cls, names: Iterable[str], *, port: int, public_url: str | None, token: str) -> Access:
        clean = frozenset(n.strip().strip("[]").lower() for n in names if n.strip())
        return cls(token=token, port=port, names=clean, public_url=public_url)

    @property
    def cookie(self) -> str:
        return cookie_name(self.port)

    def host_allowed(self, host: str | None) -> bool:
        """The ``Host`` header names this server (or the public URL's host)."""
        if not host:
            return False
        found = _endpoint(host, 80)
        if found is None:
            return False
        if found[0] in self.names and found[1] == self.port:
            return True
        public = _origin(self.public_url) if self.public_url else None
        return public is not None and found == (public[1], public[2])

    def origin_allowed(self, origin: str | None) -> bool:
        """The ``Origin`` header is the page's own: this server's address, or the public URL's origin."""
        if not origin:
            return False
        found = _origin(origin)
        if found is None:
            return False
        if found[0] == "http" and found[1] in self.names and found[2] == self.port:
            return True
        public = _origin(self.public_url) if self.public_url else None
        return public is not None and found == public

    def token_matches(self, given: str | None) -> bool:
        """``given`` is this start's token (compared in constant time)."""
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def page_refusal(self, host: str | None, cookie: str | None) -> str | None:
        """Why the page (or a download) is refused, or None."""
        if not self.host_allowed(host):
            return f"this server does not serve {host or 'an empty Host'}"
        if not self.token_matches(cookie):
            return "open the address the server printed: it carries this start's secret (?token=…)"
        return None

    def socket_refusal(self, host: str | None, origin: str | None, cookie: str | None) -> str | None:
        """Why a websocket is refused, or None: the page check, and the page's own origin."""
        if not self.origin_allowed(origin):
            return f"a page from {origin or 'no origin'} may not open this screen"
        return self.page_refusal(host, cookie)


def clamp_size(width: object, height: object, *, default: tuple[int, int] = (80, 24)) -> tuple[int, int]:
    """A terminal size a page asked for, made an int within bounds (a non-number is the default)."""

    def one(value: object, fallback: int, low: int, high: int) -> int:
        if isinstance(value, str) and value.isascii() and value.isdigit():
            value = int(value[:6])
        if not isinstance(value, int) or isinstance(value, bool):
            value = fallback
        return max(low, min(high, value))

    return one(width, default[0], MIN_COLUMNS, MAX_COLUMNS), one(height, default[1], MIN_ROWS, MAX_ROWS)
