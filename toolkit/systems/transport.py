"""One HTTP call to a system under three limits a search API out of our hands cannot get round.

* **A wall-clock deadline.** A socket timeout bounds each read, not the call: a server sending one byte a
  second never trips it. Here every read of the reply — status line, headers and body, across redirects —
  waits at most for what is left of the call's time, so a call ends at its deadline whatever the server does
  (the TLS handshake and a proxy tunnel are bounded by the time left when the connection opens).
* **A size cap.** A reply larger than ``max_response`` bytes fails the call as soon as the cap is passed (at
  once when its ``Content-Length`` says so), so a runaway server cannot run the machine out of memory.
* **Redirects keep secrets home.** A redirect to another origin (another scheme, host or port; an upgrade
  from http to https on the default ports of the same host is not a change) carries none of the headers the
  system's config declares — every one of them may hold a token (``Authorization``, ``X-Api-Key``, a cookie)
  and the new host was chosen by the server, not by the user. A redirect from https to plain http, or to a
  scheme other than http(s), is refused.

Only the standard library (``urllib``/``http.client``): the limits sit in a connection class and two handlers.
"""

from __future__ import annotations

import functools
import http.client
import io
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from typing import Any
from urllib.parse import SplitResult, urlsplit

from toolkit.systems.base import CallFailed

#: How much of an error reply's body is read (its tail goes to the manifest).
ERROR_BODY_LIMIT = 64 * 1024
_CHUNK = 64 * 1024
_DEFAULT_PORTS = {"http": 80, "https": 443}


class DeadlineExceeded(TimeoutError):
    """The call's wall-clock deadline passed."""


class _Deadline:
    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.started = time.monotonic()
        self.end = None if seconds is None else self.started + seconds

    def remaining(self) -> float | None:
        """Seconds left (None: no deadline); raises ``DeadlineExceeded`` when none are."""
        if self.end is None:
            return None
        left = self.end - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded
        return left

    def elapsed(self) -> float:
        return time.monotonic() - self.started


class _DeadlineReader(io.RawIOBase):
    """The reply's byte stream; each read waits at most for the time left of the call."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)  # keeps the socket open while the reply is read
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self._sock.settimeout(self._deadline.remaining())
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineSocket:
    """A connected socket whose reads and writes are bounded by the call's deadline (``http.client`` reads a
    reply through ``makefile``)."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self._sock = sock
        self._deadline = deadline

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))

    def sendall(self, data: Any, *args: Any) -> None:
        self._sock.settimeout(self._deadline.remaining())
        self._sock.sendall(data, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _DeadlineConnection:
    """Mixed into ``http.client``'s connections: open with the time left, then read under the deadline."""

    _deadline: _Deadline
    timeout: float | None
    sock: Any

    def connect(self) -> None:
        left = self._deadline.remaining()
        if left is not None:
            self.timeout = left
        super().connect()  # type: ignore[misc]
        self.sock = _DeadlineSocket(self.sock, self._deadline)


class _HTTPConnection(_DeadlineConnection, http.client.HTTPConnection):
    def __init__(self, *args: Any, deadline: _Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline


class _HTTPSConnection(_DeadlineConnection, http.client.HTTPSConnection):
    def __init__(self, *args: Any, deadline: _Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPConnection, deadline=self._deadline), req)  # type: ignore[arg-type]


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(_HTTPSConnection, deadline=self._deadline)
        return self.do_open(connection, req, context=self._context)  # type: ignore[arg-type,attr-defined]


def _origin(url: SplitResult) -> tuple[str, str, int | None]:
    scheme = url.scheme.lower()
    return scheme, (url.hostname or "").lower(), url.port or _DEFAULT_PORTS.get(scheme)


def same_origin(old: str, new: str) -> bool:
    """True when a redirect from ``old`` to ``new`` stays with the same server: same host and port, or the
    same host upgraded from http on port 80 to https on port 443."""
    before, after = _origin(urlsplit(old)), _origin(urlsplit(new))
    if before == after:
        return True
    return before[1] == after[1] and before[0::2] == ("http", 80) and after[0::2] == ("https", 443)


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """Follow a redirect without the configured headers when it leaves the origin; refuse a downgrade."""

    def __init__(self, private_headers: Iterable[str]) -> None:
        super().__init__()
        self._private = {name.lower() for name in private_headers}

    def redirect_request(  # type: ignore[override]
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        old, new = urlsplit(req.full_url), urlsplit(newurl)
        refusal = None
        if new.scheme.lower() not in ("http", "https"):
            refusal = f"refused a redirect to {newurl!r}: only http and https are followed"
        elif old.scheme.lower() == "https" and new.scheme.lower() == "http":
            refusal = (
                f"refused a redirect from https to plain http ({newurl}): it would send the query, and any "
                "secret, unencrypted"
            )
        if refusal is not None:
            fp.close()
            raise CallFailed(refusal)
        follow = super().redirect_request(req, fp, code, msg, headers, newurl)
        fp.close()  # the redirect's own body is never read, however large the server makes it
        if follow is not None and not same_origin(req.full_url, newurl):
            for name in [n for n in follow.headers if n.lower() in self._private]:
                del follow.headers[name]
        return follow


def fetch(
    request: urllib.request.Request,
    *,
    timeout: float | None,
    max_response: int,
    private_headers: Iterable[str] = (),
) -> bytes:
    """The reply's body, or ``CallFailed`` for an HTTP error, a timeout, a reply over ``max_response`` bytes,
    a refused redirect or a broken connection. ``private_headers`` never follow a redirect to another origin."""
    deadline = _Deadline(timeout)
    opener = urllib.request.build_opener(
        _HTTPHandler(deadline), _HTTPSHandler(deadline), _RedirectHandler(private_headers)
    )
    try:
        with opener.open(request, timeout=timeout) as reply:
            return _read(reply, max_response)
    except urllib.error.HTTPError as exc:
        body = _error_body(exc, min(max_response, ERROR_BODY_LIMIT))
        raise CallFailed(f"HTTP {exc.code} {exc.reason}", exit_code=exc.code, stderr=body) from None
    except CallFailed:
        raise
    except (OSError, http.client.HTTPException, ValueError) as exc:
        reason = getattr(exc, "reason", None) if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(reason, TimeoutError):
            limit = f" (the deadline of {timeout:g}s per call)" if timeout is not None else ""
            raise CallFailed(f"timed out after {deadline.elapsed():.1f}s{limit}") from None
        if isinstance(exc, http.client.HTTPException):
            raise CallFailed(f"broken HTTP reply: {type(exc).__name__} {exc}".rstrip()) from None
        raise CallFailed(f"request failed: {reason}") from None


def _read(reply: Any, limit: int) -> bytes:
    length = reply.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > limit:
        raise CallFailed(_too_large(limit))
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = reply.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise CallFailed(_too_large(limit))
        chunks.append(chunk)


def _too_large(limit: int) -> str:
    return (
        f"the reply is larger than max_response = {limit} bytes; raise max_response for this system if the "
        "reply is meant to be that large"
    )


def _error_body(exc: urllib.error.HTTPError, limit: int) -> str:
    """As much of an error reply's body as fits in ``limit`` and in the time left; never an error itself."""
    if exc.fp is None:
        return ""
    try:
        data = exc.read(limit)
    except (OSError, http.client.HTTPException):
        return ""
    finally:
        exc.close()  # the connection goes now, not when the error is collected
    return data.decode("utf-8", errors="replace")
