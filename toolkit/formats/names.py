"""Assessor names: what a name may hold so that it reads back as itself from every export and prints as what it is.

One rule for every door a name comes in by — judgments files (``toolkit.formats.judgments``), the campaign
store's writes, ``assign --assessors``, ``judge --assessor``, the Python API.
"""

from __future__ import annotations

import unicodedata

__all__ = ["NAME_RULE", "assessor_problem"]

#: Unicode categories no assessor name may hold: controls (C0, DEL, C1), format characters (zero-width,
#: bidi overrides, the BOM, the soft hyphen), line and paragraph separators.
_NAME_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
#: What the TSV, CSV and ``--assessors`` use as separators, refused besides.
_NAME_SEPARATORS = frozenset("\t,")
NAME_RULE = "use a non-empty name without tabs, commas, line breaks or other control characters"


def assessor_problem(name: str) -> str | None:
    """Why ``name`` cannot be an assessor name, or None.

    Names end up in TSV and CSV columns, JSON, manifests and on the terminal: a name must read back as
    itself from every export and print as what it is. So no blanks around it, no tab or comma (the
    separators), and no character of the Unicode categories Cc, Cf, Zl or Zp — C0 and C1 controls (NUL,
    ESC, NEL …), line and paragraph separators (U+2028, U+2029), zero-width and bidi format characters.
    """
    if (
        not name
        or name != name.strip()
        or any(c in _NAME_SEPARATORS or unicodedata.category(c) in _NAME_CATEGORIES for c in name)
    ):
        return f"invalid assessor name {name!r}: {NAME_RULE}"
    return None
