"""The error tree: what a Python caller can catch (docs/python-api.md).

A malformed file, a wrong argument or an invalid setting is a bad value: library users catch those as
``ValueError`` without importing the toolkit's tree, as they would for ``int("x")`` or ``json.loads``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit
from toolkit.errors import (
    CheckFailed,
    ConfigError,
    FormatError,
    StoreError,
    SystemCallError,
    ToolkitError,
    UsageError,
)


@pytest.mark.parametrize("error", [FormatError("x.run", 3, "bad"), UsageError("bad"), ConfigError("bad")])
def test_bad_values_are_value_errors(error: ToolkitError) -> None:
    assert isinstance(error, ValueError) and isinstance(error, ToolkitError)


@pytest.mark.parametrize("error", [StoreError("x"), SystemCallError("x"), CheckFailed("x")])
def test_other_errors_are_not_value_errors(error: ToolkitError) -> None:
    assert not isinstance(error, ValueError)


def test_a_malformed_run_from_the_python_api_is_caught_as_value_error(tmp_path: Path) -> None:
    run = tmp_path / "bad.run"
    run.write_text("1 Q0 a 1 high r\n")
    with pytest.raises(ValueError, match=r"bad.run:1: expected a numeric score in column 5, found 'high'"):
        toolkit.read_run(run)


def test_format_error_keeps_its_fields_and_message() -> None:
    error = FormatError("x.qrels", 7, "expected 4 columns")
    assert (error.path, error.line, error.detail, str(error)) == (
        "x.qrels",
        7,
        "expected 4 columns",
        "x.qrels:7: expected 4 columns",
    )
