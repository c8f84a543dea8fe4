"""Render a document's ``data`` as the JSON contract: ``schema_version`` first, then the builder's keys.

Key order is fixed by construction (the builders make their dicts in contract order, nothing is sorted),
numbers are never rounded, and non-finite floats become ``null`` so that the output is strict JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

from toolkit.formats.text import json_inert
from toolkit.reports.document import SCHEMA_VERSION, Document


def render_json(document: Document) -> str:
    """The contract document as text (2-space indent, trailing newline; no control character written raw:
    ``json_inert``)."""
    doc = {"schema_version": SCHEMA_VERSION, **document.data}
    return json_inert(json.dumps(_clean(doc), indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value
