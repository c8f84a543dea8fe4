"""Numbers in TREC files, read the way C reads them — never with Python's wider ``int()``/``float()`` grammar.

Why: trec_eval reads scores with ``atof`` and grades with ``atol``. Python's ``float("1_0")`` is 10.0 and
``int("１０")`` (full-width digits) is 10, where C reads 1 and 0: a run that trec_eval ranks one way would be
ranked another way here, silently. Two readings live in this module:

* the toolkit's strict reading (``parse_score``, ``parse_grade``), used by ``read_run``/``read_qrels``: a
  token must be an ASCII decimal number that C reads whole, with the same value — for a score
  ``[+-]?(digits[.[digits]] | .digits)([eE][+-]?digits)?``, for a grade ``[+-]?digits`` within 64 bits.
  Anything else is refused, so the toolkit and trec_eval never disagree about a number;
* C's lenient reading (``c_atof``, ``c_atol``), used by the ``trec_eval`` drop-in to read exactly what
  trec_eval 10 reads: the longest valid prefix (``1_0`` → 1, ``abc`` → 0), ``inf``/``nan``/hex floats,
  ``atol`` clamped to the 64-bit range as glibc's ``strtol`` clamps.

Decimal strings are converted by Python's correctly rounded ``float()``, which gives the same double as
glibc's correctly rounded ``strtod`` for every decimal input.
"""

from __future__ import annotations

import re

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

_SCORE = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_GRADE = re.compile(rb"[+-]?[0-9]+")

#: strtod's decimal prefix is the same pattern, matched at the start (an exponent counts only with digits).
_C_DECIMAL = _SCORE
_C_HEX = re.compile(
    rb"([+-]?)0[xX]((?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+))(?:[pP]([+-]?[0-9]+))?"
)
_C_SPECIAL = re.compile(rb"([+-]?)(inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
_C_INTEGER = re.compile(rb"[+-]?[0-9]+")
_C_SPACE = b" \t\n\v\f\r"


class NumberError(ValueError):
    """A token is not a number of the required form; ``reason`` says why in words for an error message."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NumberRangeError(NumberError):
    """A well-formed number outside the range the format allows."""


def _raw(token: str | bytes) -> bytes | None:
    if isinstance(token, bytes):
        return token
    return token.encode("ascii") if token.isascii() else None


def parse_score(token: str | bytes) -> float:
    """A run score: an ASCII decimal number C reads whole, finite. ``NumberError`` otherwise."""
    raw = _raw(token)
    if raw is None or _SCORE.fullmatch(raw) is None:
        raise NumberError("not a decimal number (ASCII digits with an optional sign, point and exponent)")
    value = float(raw)
    if value in (float("inf"), float("-inf")):
        raise NumberRangeError("out of range for a double")
    return value


def parse_grade(token: str | bytes) -> int:
    """A qrels grade: ASCII ``[+-]digits`` within the 64-bit range. ``NumberError`` otherwise."""
    raw = _raw(token)
    if raw is None or _GRADE.fullmatch(raw) is None:
        raise NumberError("not an integer (ASCII digits with an optional sign)")
    value = int(raw)
    if not INT64_MIN <= value <= INT64_MAX:
        raise NumberRangeError(f"out of range: grades must lie within {INT64_MIN} … {INT64_MAX} (64 bits)")
    return value


def score_hint(token: str) -> str:
    """Why a token Python would read as a number is no score here ("" when nothing would read it)."""
    try:
        float(token)
    except ValueError:
        return ""
    return " (scores are ASCII decimal numbers — digits with an optional sign, point and exponent — as trec_eval reads them)"


def grade_hint(token: str) -> str:
    """Why a token Python would read as an integer is no grade here ("" when nothing would read it)."""
    try:
        int(token)
    except ValueError:
        return ""
    return " (grades are ASCII integers — digits with an optional sign — as trec_eval reads them)"


def c_atof(token: bytes) -> float:
    """``atof`` as glibc computes it: the longest prefix ``strtod`` accepts, 0.0 when there is none."""
    if b"_" not in token:  # float() reads what strtod reads whole the same way, and refuses the rest
        try:
            return float(token)
        except ValueError:
            pass
    text = token.lstrip(_C_SPACE)
    special = _C_SPECIAL.match(text)
    if special is not None:
        factor = -1.0 if special.group(1) == b"-" else 1.0
        word = special.group(2).lower()
        return factor * (float("nan") if word.startswith(b"nan") else float("inf"))
    hexadecimal = _C_HEX.match(text)
    if hexadecimal is not None:
        sign, digits, exponent = hexadecimal.groups()
        try:
            value = float.fromhex(f"0x{digits.decode()}p{(exponent or b'0').decode()}")
        except OverflowError:
            value = float("inf")
        return -value if sign == b"-" else value
    decimal = _C_DECIMAL.match(text)
    if decimal is None:
        return 0.0
    return float(decimal.group())


def c_atol(token: bytes) -> int:
    """``atol`` as glibc computes it (``strtol`` base 10): the leading integer, clamped to 64 bits; else 0."""
    if b"_" not in token:
        try:
            return max(INT64_MIN, min(INT64_MAX, int(token)))
        except ValueError:
            pass
    match = _C_INTEGER.match(token.lstrip(_C_SPACE))
    if match is None:
        return 0
    return max(INT64_MIN, min(INT64_MAX, int(match.group())))
