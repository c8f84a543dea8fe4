"""Campaign URLs: ``postgresql://user@host:port/db?campaign=NAME``, parsed and checked without psycopg.

Kept apart from the store so that ``CampaignStore.open`` and the command line can tell a URL from a path,
and refuse a bad one with a one-line error, without importing the database driver.

Why a password in the URL is refused: the URL is what people type on the command line and what the toolkit
records (manifests, messages, ``location``), so a password in it would land in a shell history, a manifest
and a log. libpq reads it from ``PGPASSWORD`` or a ``~/.pgpass`` line instead. Every secret-bearing parameter
is refused — ``password``, ``sslpassword``, an OAuth client secret — whatever its case or percent-encoding
(``PASSWORD=``, ``pass%77ord=``, ``password%3D…``), and no message ever repeats the value of one: a refused
URL is shown with its user-info and every query value masked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from toolkit.errors import StoreError

SCHEMES = ("postgresql", "postgres")

#: Any ``scheme://``: a location that is a URL rather than a path (only ``SCHEMES`` are served).
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

#: A campaign is a schema of its own; a lower-case SQL identifier needs no quoting in psql.
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_RESERVED = ("public", "information_schema")

#: A query parameter whose name (decoded, in any case) says it carries a secret.
_SECRET = re.compile(r"password|secret", re.IGNORECASE)

PASSWORD_ADVICE = (
    "remove it and put the password in PGPASSWORD or a ~/.pgpass line "
    "(a password in a URL lands in shell history, manifests and logs)"
)


def is_campaign_url(location: object) -> bool:
    """True for a ``scheme://…`` string (a server campaign), False for a path (an SQLite file)."""
    return isinstance(location, str) and bool(_URL.match(location))


def check_campaign_name(name: str) -> str:
    """The campaign name is the schema name on the server: a plain identifier, never a system schema."""
    if not _NAME.match(name) or name.startswith("pg_") or name in _RESERVED:
        raise StoreError(
            f"campaign name {name!r}: use 1–63 lower-case letters, digits and _, starting with a letter "
            "(not pg_… or public), e.g. ?campaign=trec2025"
        )
    return name


@dataclass(frozen=True)
class CampaignURL:
    """A parsed server location: ``conninfo`` is what libpq gets (the URL without ``campaign=``)."""

    url: str
    conninfo: str
    campaign: str | None
    user: str | None
    host: str | None
    database: str | None


def parse_campaign_url(url: str, *, campaign_required: bool = True) -> CampaignURL:
    """Split ``url`` into libpq's part and the campaign name; refuse secrets and other schemes."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in SCHEMES:
        raise StoreError(
            f"{_safe(url)}: unsupported campaign URL scheme {parts.scheme!r}; use "
            "postgresql://user@host:port/db?campaign=NAME, or a path for an SQLite campaign"
        )
    userinfo = unquote(parts.netloc.rpartition("@")[0])  # libpq splits user:password before decoding
    keys = [
        key for key, _ in parse_qsl(parts.query, keep_blank_values=True)
    ]  # decoded: pass%77ord=, password%3D…
    if ":" in userinfo or _SECRET.search(userinfo) or any(_SECRET.search(key) for key in keys):
        raise StoreError(f"{_safe(url)}: the URL contains a password or other secret; {PASSWORD_ADVICE}")
    try:
        query = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise StoreError(
            f"{_safe(url)}: cannot read the URL's query; write it as ?key=value&key=value"
        ) from None
    names = [value for key, value in query if key == "campaign"]
    if len(names) > 1:
        raise StoreError(f"{url}: campaign= is given {len(names)} times; give it once")
    campaign = check_campaign_name(names[0]) if names else None
    if campaign is None and campaign_required:
        raise StoreError(f"{url}: no campaign named; add ?campaign=NAME (one schema per campaign)")
    rest = urlencode([(k, v) for k, v in query if k != "campaign"])
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment))
    database = parts.path.lstrip("/") or None
    return CampaignURL(url, conninfo, campaign, parts.username, parts.hostname, database)


def campaign_label(location: str | Path) -> str:
    """A short name for titles: the campaign of a URL, the file stem of a path."""
    if is_campaign_url(location):
        names = [v for k, v in parse_qsl(urlsplit(str(location)).query) if k == "campaign"]
        return names[0] if names else str(location)
    return Path(location).stem


def _safe(url: str) -> str:
    """The URL with its password and every query value but the campaign's blanked: what a refusal may show
    (a value that is not a secret is masked too — safer than deciding which ones are)."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        user = unquote(user)
        netloc = f"{user.split(':', 1)[0]}{':***' if ':' in user else ''}@{host}"
    try:
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        return urlunsplit((parts.scheme, netloc, parts.path, "***" if parts.query else "", ""))
    query = "&".join(f"{k}={v}" if k == "campaign" else f"{_shown(k)}=***" for k, v in pairs)
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _shown(key: str) -> str:
    """A query key as it may be shown: its name, unless it holds more than a name (``password=…``)."""
    return key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else "***"
