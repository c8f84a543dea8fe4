"""``toolkit.agree`` on Python objects: assessor names and grades meet the judgments file's rules.

A name with a control or separator character, or a grade outside 64 bits, is refused with the item's number
(1-based), as a DataFrame row or a file line would be.
"""

from __future__ import annotations

import pytest

import toolkit
from toolkit.errors import FormatError

NAME_RULE = "use a non-empty name without tabs, commas, line breaks or other control characters"


@pytest.mark.parametrize("name", ["bo\x1bb", "bo\u2028b", "bo\x85b", "bo\u202eb", "bo,b"])
def test_names_are_checked(name: str) -> None:
    items = [("alice", "q1", "d1", 1), (name, "q1", "d1", 0)]
    with pytest.raises(FormatError) as err:
        toolkit.agree(items, bootstrap=0)
    assert str(err.value) == f"<iterable>:2: invalid assessor name {name!r}: {NAME_RULE}"


def test_grades_beyond_64_bits_are_refused() -> None:
    items = [("alice", "q1", "d1", 1), ("bob", "q1", "d1", 2**63)]
    with pytest.raises(FormatError) as err:
        toolkit.agree(items, bootstrap=0)
    assert str(err.value) == (
        "<iterable>:2: grade 9223372036854775808 is out of range: grades must lie within "
        "-9223372036854775808 … 9223372036854775807 (64 bits)"
    )
