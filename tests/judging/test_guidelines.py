"""The guidelines the judging screens show: the option, else the campaign's own, else toolkit.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import UsageError
from toolkit.judging.guidelines import read_guidelines


def test_guidelines_come_from_the_option_then_the_campaign_then_toolkit_toml(tmp_path: Path) -> None:
    own = tmp_path / "mine.md"
    own.write_text("mine")
    configured = tmp_path / "judging" / "guidelines.md"
    configured.parent.mkdir()
    configured.write_text("configured")
    config = {"judge": {"guidelines": "judging/guidelines.md"}}
    assert read_guidelines(own, {"guidelines": "campaign"}, config, tmp_path) == "mine"
    assert read_guidelines(None, {"guidelines": "campaign"}, config, tmp_path) == "campaign"
    assert read_guidelines(None, {}, config, tmp_path) == "configured"
    assert read_guidelines(None, {}, {}, tmp_path) is None
    with pytest.raises(
        UsageError, match="nope.md: cannot read the guidelines \\(file not found; check the path\\)"
    ):
        read_guidelines(tmp_path / "nope.md", {}, {}, tmp_path)


def test_the_workspace_guidelines_are_what_pool_stores_in_a_campaign(tmp_path: Path) -> None:
    from toolkit.judging.guidelines import configured_guidelines

    (tmp_path / "g.md").write_text("# Guidelines\n")
    assert configured_guidelines({"judge": {"guidelines": "g.md"}}, tmp_path) == "# Guidelines\n"
    assert configured_guidelines({}, tmp_path) is None
    with pytest.raises(UsageError, match="missing.md: cannot read the guidelines"):
        configured_guidelines({"judge": {"guidelines": "missing.md"}}, tmp_path)
