"""The JSON documents the toolkit writes (``compare``, ``audit``, ``score`` … ``--format json``), read back.

``plan`` reads an earlier audit's JSON as its pilot; this is where such a file is opened and checked to be a
JSON object, so a wrong file gets one ``path:line`` error instead of a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.textfile import read_text


def read_report_json(
    path: str | Path, *, what: str = "the .json an audit or compare wrote"
) -> dict[str, Any]:
    """The JSON object in ``path``; anything else is a ``FormatError`` saying what to pass (``what``)."""
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise FormatError(path, exc.lineno, f"not JSON ({exc.msg}); pass {what}") from None
    if not isinstance(data, dict):
        raise FormatError(path, None, f"expected a JSON object; pass {what}")
    return data
