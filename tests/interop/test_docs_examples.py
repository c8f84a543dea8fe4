"""The Python examples of docs/formats.md run as written and give the values worked out by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "formats.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)


def test_interoperability_example_runs() -> None:
    (block,) = python_blocks()
    namespace: dict[str, object] = {}
    exec(compile(block, str(DOCS), "exec"), namespace)
    scores = namespace["scores"]
    # by hand: topic 1 ranks d3 then d1 (relevant) → RR 1/2; topic 2 ranks d4 (relevant) first → RR 1
    assert scores.aggregate["RR@10"] == pytest.approx(0.75)  # type: ignore[attr-defined]
    # nDCG@10: topic 1 gain 1 at rank 2 over the ideal gain 1 at rank 1 = 1/log2(3); topic 2 = 1
    assert scores.aggregate["nDCG@10"] == pytest.approx((1 / 1.5849625007211562 + 1) / 2)  # type: ignore[attr-defined]
