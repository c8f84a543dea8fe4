"""HTTP systems: GET or POST JSON to a search API (Elasticsearch/OpenSearch/Solr or any JSON endpoint).

Placeholders ``{query}``, ``{query_id}``, ``{depth}``:

- in the URL and in ``params`` (the query string) they are URL-encoded;
- in a structured ``body`` (a TOML table) a string that is exactly ``"{depth}"`` becomes a number, other
  strings get the values inserted as text, so the query can never break out of its JSON string;
- in a ``body`` given as a string, each placeholder is replaced by its JSON encoding (write ``{query}``
  without quotes: ``'{"q": {query}, "size": {depth}}'``).

Header values may hold placeholders and ``${ENV_VAR}`` references, so tokens stay out of ``toolkit.toml``; the
manifest records header names only. Every call runs under the limits of ``toolkit.systems.transport``: the
run's ``timeout`` is a wall-clock deadline for the whole call, a reply may hold at most ``max_response`` bytes
(default 64 MiB), and no configured header follows a redirect to another host.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkit.errors import ConfigError
from toolkit.formats.structured import loads_json
from toolkit.systems.base import CallFailed, Hit, fill
from toolkit.systems.parsers import Parser
from toolkit.systems.transport import fetch

if TYPE_CHECKING:
    from toolkit.systems.preflight import Preflight

#: The largest reply a system may send unless its ``max_response`` says otherwise.
DEFAULT_MAX_RESPONSE = 64 * 2**20

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class HttpSystem:
    name: str
    url: str
    parser: Parser
    method: str = "GET"
    params: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)  # run defaults: timeout, retries, workers, depth
    max_response: int = DEFAULT_MAX_RESPONSE
    preflight: Preflight | None = None
    kind: str = "http"

    def __post_init__(self) -> None:
        if self.method not in ("GET", "POST"):
            raise ConfigError(f"system {self.name!r}: method must be GET or POST, not {self.method!r}")
        if not self.url.startswith(("http://", "https://")):
            raise ConfigError(f"system {self.name!r}: url must start with http:// or https://")
        if (
            isinstance(self.max_response, bool)
            or not isinstance(self.max_response, int)
            or self.max_response < 1
        ):
            raise ConfigError(f"system {self.name!r}: max_response must be a positive number of bytes")

    def check(self) -> None:
        for value in self.headers.values():
            for var in _ENV.findall(value):
                if var not in os.environ:
                    raise ConfigError(f"system {self.name!r}: header uses ${{{var}}} but {var} is not set")

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "url": self.url, "method": self.method}
        if self.params:
            out["params"] = dict(self.params)
        if self.body is not None:
            out["body"] = self.body
        if self.headers:
            out["headers"] = sorted(self.headers)
        out["max_response"] = self.max_response
        if self.preflight is not None:
            out["preflight"] = self.preflight.check
        return {**out, **self.parser.describe()}

    def request(self, query: str, *, query_id: str, depth: int) -> urllib.request.Request:
        values = {"query": query, "query_id": query_id, "depth": str(depth)}
        quoted = {k: urllib.parse.quote(v, safe="") for k, v in values.items()}
        url = fill(self.url, quoted)
        if self.params:
            query_string = urllib.parse.urlencode({k: fill(v, values) for k, v in self.params.items()})
            url += ("&" if "?" in url else "?") + query_string
        headers = expand_headers({k: fill(v, values) for k, v in self.headers.items()})
        data = None
        if self.method == "POST":
            if isinstance(self.body, str):
                text = fill(
                    self.body, {k: json.dumps(v if k != "depth" else depth) for k, v in values.items()}
                )
            else:
                text = json.dumps(_fill_json(self.body if self.body is not None else {}, values, depth))
            data = text.encode("utf-8")
            headers.setdefault("Content-Type", "application/json")
        headers.setdefault("Accept", "application/json")
        return urllib.request.Request(url, data=data, headers=headers, method=self.method)

    def search(self, query: str, *, query_id: str, depth: int, timeout: float | None) -> list[Hit]:
        request = self.request(query, query_id=query_id, depth=depth)
        raw = fetch(request, timeout=timeout, max_response=self.max_response, private_headers=self.headers)
        text = raw.decode("utf-8", errors="replace")
        if self.parser.kind != "json":
            return self.parser.parse(text)
        try:
            data = loads_json(text)
        except json.JSONDecodeError as exc:
            raise CallFailed(f"response is not JSON ({exc.msg})", exit_code=0, stderr=text) from None
        return self.parser.parse_data(data)


def expand_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Header values with their ``${ENV_VAR}`` references replaced (``check`` makes sure they are set)."""
    return {k: _ENV.sub(lambda m: os.environ.get(m.group(1), ""), v) for k, v in headers.items()}


def _fill_json(node: Any, values: dict[str, str], depth: int) -> Any:
    if isinstance(node, str):
        return depth if node == "{depth}" else fill(node, values)
    if isinstance(node, list):
        return [_fill_json(item, values, depth) for item in node]
    if isinstance(node, dict):
        return {fill(k, values): _fill_json(v, values, depth) for k, v in node.items()}
    return node
