"""The public face: every name resolves, lazily — ``import toolkit`` and the CLI load no heavy library."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import toolkit

HEAVY = ("pandas", "scipy", "ir_measures", "textual", "numpy", "matplotlib", "statsmodels")


def loaded_after(code: str) -> list[str]:
    """The HEAVY modules loaded after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_import_toolkit_loads_no_heavy_library() -> None:
    assert loaded_after("import toolkit") == []


def test_cli_help_loads_no_heavy_library() -> None:
    code = (
        "from click.testing import CliRunner\nfrom toolkit.cli import main\n"
        "result = CliRunner().invoke(main, ['--help'])\nassert result.exit_code == 0, result.output"
    )
    assert loaded_after(code) == []


def test_reading_a_file_loads_no_pandas() -> None:
    assert "pandas" not in loaded_after("import toolkit\ntoolkit.read_run\ntoolkit.Campaign")


def test_every_public_name_resolves() -> None:
    from toolkit.api import campaign, evaluation, files, results

    expected = {
        "read_run": files.read_run,
        "read_qrels": files.read_qrels,
        "read_topics": files.read_topics,
        "write_run": files.write_run,
        "write_qrels": files.write_qrels,
        "score": evaluation.score,
        "compare": evaluation.compare,
        "agree": evaluation.agree,
        "ComparisonResult": results.ComparisonResult,
        "AgreementResult": results.AgreementResult,
        "Campaign": campaign.Campaign,
    }
    assert sorted(toolkit.__all__) == sorted(["__version__", *expected])
    for name, value in expected.items():
        assert getattr(toolkit, name) is value
        assert name in dir(toolkit)
    from toolkit import compare, score  # the from-import form goes through __getattr__ too

    assert (score, compare) == (evaluation.score, evaluation.compare)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'toolkit' has no attribute 'scor'"):
        toolkit.scor  # noqa: B018
