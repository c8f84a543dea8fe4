"""docs/scoring.md's measure table is what ``docs/gen_measures.py`` writes from the measure table now."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_measure_table_is_generated_from_the_declaration() -> None:
    spec = importlib.util.spec_from_file_location("gen_measures", DOCS / "gen_measures.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    page = (DOCS / "scoring.md").read_text()
    assert generator.BEGIN in page and generator.END in page
    assert page == generator.render(page), (
        "docs/scoring.md is out of date: run .venv/bin/python docs/gen_measures.py"
    )
