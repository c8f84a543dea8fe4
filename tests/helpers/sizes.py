"""How many random cases a property test draws: a fifth in the README's command, all of them in the stress tier.

Why: the property tests (Hypothesis, and the seeded loops that draw random runs) were a tenth of the suite's
CPU, and their first examples find what a property test finds in practice — the long tail is what the stress
tier is for. A test declares its full count once, with ``scaled_settings(max_examples=N, …)`` in place of
Hypothesis's ``settings`` or ``examples(N)`` for a seeded loop marked ``@pytest.mark.sized``. The README's
command draws ``examples(N)`` (a fifth, at least ten); with ``TREC_TOOLKIT_SLOW`` set the count is N, and
tests/conftest.py marks every ``sized`` test ``slow`` too, so ``.ci/run``'s stress tier (``-m slow``) runs
each at its full count.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import settings

#: The stress tier is on (``.ci/run`` sets it after the README's command).
SLOW = bool(os.environ.get("TREC_TOOLKIT_SLOW"))

#: The README's command draws this fraction of a test's declared count.
QUICK_FRACTION = 5
QUICK_MINIMUM = 10

F = TypeVar("F", bound=Callable[..., Any])


def examples(full: int, minimum: int = QUICK_MINIMUM) -> int:
    """The count to draw now: ``full`` in the stress tier, else a fifth of it (at least ``minimum`` — ten unless
    each case is itself costly — and at most ``full``)."""
    return full if SLOW else min(full, max(full // QUICK_FRACTION, minimum))


def scaled_settings(*, max_examples: int, **kwargs: Any) -> Callable[[F], F]:
    """Hypothesis's ``settings(max_examples=examples(max_examples), …)``, and the test marked ``sized``."""

    def apply(test: F) -> F:
        return pytest.mark.sized(settings(max_examples=examples(max_examples), **kwargs)(test))

    return apply
