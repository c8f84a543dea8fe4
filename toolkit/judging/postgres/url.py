"""Campaign URLs: ``postgresql://user@host:port/db?campaign=NAME``, parsed and checked without psycopg.

Kept apart from the store so that ``CampaignStore.open`` and the command line can tell a URL from a path,
and refuse a bad one with a one-line error, without importing the database driver.

Why a password in the URL is refused: the URL is what people type on the command line and what the toolkit
records (manifests, messages, ``location``), so a password in it would land in a shell history, a manifest
and a log. libpq reads it from ``PGPASSWORD`` or a ``~/.pgpass`` line instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from toolkit.errors import StoreError

SCHEMES = ("postgresql", "postgres")

#: Any ``scheme://``: a location that is a URL rather than a path (only ``SCHEMES`` are served).
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

#: A campaign is a schema of its own; a lower-case SQL identifier needs no quoting in psql.
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_RESERVED = ("public", "information_schema")

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
    """Split ``url`` into libpq's part and the campaign name; refuse passwords and other schemes."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in SCHEMES:
        raise StoreError(
            f"{url}: unsupported campaign URL scheme {parts.scheme!r}; use postgresql://user@host:port/db"
            "?campaign=NAME, or a path for an SQLite campaign"
        )
    try:
        query = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise StoreError(f"{_safe(url)}: cannot read the URL's query ({parts.query!r})") from None
    if parts.password is not None or any(key == "password" for key, _ in query):
        raise StoreError(f"{_safe(url)}: the URL contains a password; {PASSWORD_ADVICE}")
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
    """The URL with its password blanked, so the refusal never repeats the secret."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        user = parts.username or ""
        host = netloc.rsplit("@", 1)[-1]
        netloc = f"{user}:***@{host}"
    query = "&".join(
        f"{k}=***" if k == "password" else f"{k}={v}"
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
