"""Every command has help with an example, and the group's error boundary never shows a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from toolkit.cli import COMMANDS, LazyGroup, main


def available() -> list[str]:
    return [name for name in COMMANDS if LazyGroup._available(name)]


def test_top_level_help_lists_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in available():
        assert name in result.output


@pytest.mark.parametrize("name", available())
def test_every_command_has_help(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    assert len(result.output.splitlines()) > 3


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["no-such-command"])
    assert result.exit_code == 2


def test_python_dash_m_toolkit_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "--version"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    assert proc.stdout.strip() == "trec-toolkit, version 0.1.0"


def test_test_option_offers_the_tests_the_library_runs() -> None:
    """``--test``'s choices are written out in the CLI (so --help loads no numpy): they must be the library's."""
    from toolkit.cli.options import PAIRED_TESTS
    from toolkit.stats.paired import TESTS

    assert PAIRED_TESTS == TESTS
