"""C's arithmetic where it differs from Python's, so that every value the drop-in prints is trec_eval's double.

Python floats are IEEE doubles and ``+ - * /`` round the same way C's do; what differs is the edges: C divides
by zero (0/0 is the x86 default NaN, printed ``-nan``), ``log(0)`` is ``-inf``, casts truncate or give
``LONG_MIN`` out of range, ``lround`` rounds halves away from zero, ``printf("%6.4f")`` prints a NaN's sign,
and glibc's ``qsort`` is a merge sort whose result with an inconsistent comparator (trec_eval has two) is
whatever that merge sort makes of it. Each is reproduced here, once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

LONG_MIN = -(1 << 63)
LONG_MAX = (1 << 63) - 1
INT_MIN = -(1 << 31)

#: The NaN an x86 invalid operation produces (sign bit set: glibc prints it ``-nan``).
DEFAULT_NAN = -math.nan


def div(a: float, b: float) -> float:
    """``(double) a / (double) b`` with C's results for a zero divisor."""
    x, y = float(a), float(b)
    if y != 0.0:
        return x / y
    if math.isnan(x):
        return x
    if x == 0.0:
        return DEFAULT_NAN
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


def _c_log(base_log: Callable[[float], float]) -> Callable[[float], float]:
    """A C logarithm from Python's: ``-inf`` at 0 and NaN below, where Python raises ``ValueError``."""

    def c_log(x: float) -> float:
        if math.isnan(x):
            return x
        if x == 0.0:
            return -math.inf
        if x < 0.0:
            return DEFAULT_NAN
        return base_log(x)

    return c_log


#: C ``log``: ``-inf`` at 0, NaN below.
log = _c_log(math.log)
#: C ``log2``: ``-inf`` at 0, NaN below.
log2 = _c_log(math.log2)


def exp(x: float) -> float:
    """C ``exp``: ``inf`` on overflow."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def cmin(a: T, b: T) -> T:
    """trec_eval's ``MIN(A,B)``: ``(A) > (B) ? (B) : (A)`` (with a NaN, the first argument)."""
    return b if a > b else a  # type: ignore[operator]


def cmax(a: T, b: T) -> T:
    """trec_eval's ``MAX(A,B)``: ``(A) > (B) ? (A) : (B)`` (with a NaN, the second argument)."""
    return a if a > b else b  # type: ignore[operator]


def to_long(x: float) -> int:
    """``(long) x``: truncation toward zero; NaN and out-of-range give ``LONG_MIN`` as on x86."""
    if math.isnan(x) or not (-9.223372036854775808e18 <= x < 9.223372036854775808e18):
        return LONG_MIN
    return int(x)


def lround(x: float) -> int:
    """C ``lround``: nearest integer, halves away from zero; NaN and out-of-range give ``LONG_MIN``."""
    if math.isnan(x) or math.isinf(x):
        return LONG_MIN
    whole = math.floor(abs(x))
    if abs(x) - whole >= 0.5:
        whole += 1
    value = int(math.copysign(whole, x))
    return value if LONG_MIN <= value <= LONG_MAX else LONG_MIN


def to_int32(value: int) -> int:
    """An integer converted to C ``int`` (two's complement wrap, as gcc does)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def wrap_long(value: int) -> int:
    """A ``long`` result of integer arithmetic, wrapped to 64 bits as the hardware does."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def double_to_int(x: float) -> int:
    """``(int) x`` for a double: truncation; NaN and out-of-range give ``INT_MIN`` as on x86."""
    if math.isnan(x) or not (-2147483649.0 < x < 2147483648.0):
        return INT_MIN
    return int(x)


def qsort(items: list[T], compare: Callable[[T, T], int]) -> list[T]:
    """glibc 2.36 ``qsort``: a top-down merge sort (``msort_with_tmp``), first half taken on ``compare <= 0``.

    Used where trec_eval's comparator is not a total order (its gain and cutoff comparators truncate a
    difference to ``int``; NaN scores compare neither above nor below); with a consistent comparator any
    stable sort gives the same result, and callers use Python's sort instead.
    """
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left = qsort(items[:half], compare)
    right = qsort(items[half:], compare)
    merged: list[T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged


def format_fixed(value: float, decimals: int = 4, width: int = 6) -> str:
    """``printf("%{width}.{decimals}f")`` as glibc prints it, ``-nan`` included."""
    if -math.inf < value < math.inf:  # finite: Python's formatting is glibc's (exact binary value, rounded)
        return f"{value:{width}.{decimals}f}"
    if math.isnan(value):
        text = "-nan" if math.copysign(1.0, value) < 0 else "nan"
        return text.rjust(width)
    if math.isinf(value):
        return ("-inf" if value < 0 else "inf").rjust(width)
    return f"{value:{width}.{decimals}f}"
