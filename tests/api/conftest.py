"""Fixtures of the public-API tests: a small ir_datasets dataset (local files, no download), a small campaign."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from api_campaign import build_campaign

TOPICS = """\
<top>
<num> Number: 301
<title> International Organized Crime
<desc> Description:
Identify organizations that participate in international criminal activity.
<narr> Narrative:
A relevant document must identify the organization.
</top>

<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio
<desc> Description:
Is the disease of Poliomyelitis under control in the world?
<narr> Narrative:
Relevant documents should contain data on outbreaks.
</top>
"""

QRELS = "301 0 d1 1\n301 0 d2 0\n302 0 d5 2\n"


@pytest.fixture(scope="session")
def irds_dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """``trec-toolkit-api/<random>``: TREC SGML queries and TREC qrels; returns (id, folder of the files)."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecQueries
    from ir_datasets.util import LocalDownload

    root = tmp_path_factory.mktemp("irds-api")
    (root / "topics.txt").write_text(TOPICS)
    (root / "qrels.txt").write_text(QRELS)
    name = f"trec-toolkit-api/{uuid.uuid4().hex[:8]}"
    ir_datasets.registry.register(
        name,
        Dataset(
            TrecQueries(LocalDownload(root / "topics.txt")), TrecQrels(LocalDownload(root / "qrels.txt"), {})
        ),
    )
    return name, root


@pytest.fixture
def example_campaign(tmp_path: Path) -> Path:
    return build_campaign(tmp_path / "judging" / "example.sqlite")
