"""The code, tests, benchmarks and docs cite what is in the repository (docs/design.md, the docs pages), never an
issue tracker that is not: a number of an issue or of a defect in it tells a reader nothing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITATION = re.compile(r"\b(issues?[ ]\d|issue[']s|defects?[ ]?\d)", re.I)


def test_nothing_cites_an_issue_tracker() -> None:
    files = [
        p
        for folder in ("toolkit", "tests", "bench", "docs")
        for p in (ROOT / folder).rglob("*")
        if p.suffix in (".py", ".md", ".toml", ".tcss")
    ]
    files += [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "toolkit.toml"]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if CITATION.search(line)
    ]
    assert not found, "cite docs/design.md or a docs page instead:\n" + "\n".join(found)
