"""``ir_datasets:DATASET_ID`` wherever a topic set or qrels path is accepted, and ir_datasets' iterators as inputs.

A small dataset is registered with ir_datasets from local files (no download). The oracle is the toolkit's
reading of those same files directly: through ir_datasets the topics, qrels and scores must be identical.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.errors import FormatError, ToolkitWarning, UsageError
from toolkit.formats import read_qrels, read_topics
from toolkit.model import Run
from toolkit.scoring import evaluate

SGML = """\
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

<top>
<num> Number: 303
<title> Hubble Telescope Achievements
<desc> Description:
Identify positive accomplishments of the Hubble telescope.
<narr> Narrative:
Documents are relevant that show the Hubble telescope has produced new data.
</top>
"""

QRELS = "301 0 d1 1\n301 0 d2 0\n302 0 d5 2\n302 0 d6 1\n"  # 303 unjudged
RUN = "301 Q0 d2 1 3.0 r\n301 Q0 d1 2 2.0 r\n302 Q0 d5 1 1.0 r\n303 Q0 d9 1 1.0 r\n"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """Registers ``trec-toolkit-test/<random>`` (TREC SGML queries + TREC qrels) and a broken sibling."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecQueries
    from ir_datasets.util import LocalDownload

    root = tmp_path_factory.mktemp("irds")
    (root / "topics.txt").write_text(SGML)
    (root / "qrels.txt").write_text(QRELS)
    (root / "a.run").write_text(RUN)
    name = f"trec-toolkit-test/{uuid.uuid4().hex[:8]}"
    ir_datasets.registry.register(
        name,
        Dataset(
            TrecQueries(LocalDownload(root / "topics.txt")), TrecQrels(LocalDownload(root / "qrels.txt"), {})
        ),
    )
    ir_datasets.registry.register(
        f"{name}-queries-only", Dataset(TrecQueries(LocalDownload(root / "topics.txt")))
    )
    ir_datasets.registry.register(
        f"{name}-missing", Dataset(TrecQrels(LocalDownload(root / "no-such-file.txt"), {}))
    )
    return name, root


def test_topics_and_qrels_through_ir_datasets_equal_the_files(dataset: tuple[str, Path]) -> None:
    name, root = dataset
    topics = read_topics(f"ir_datasets:{name}")
    direct = read_topics(root / "topics.txt")
    assert [(t.query_id, t.query, t.description, t.narrative) for t in topics] == [
        (t.query_id, t.query, t.description, t.narrative) for t in direct
    ]
    assert topics.name == name and topics.path == f"ir_datasets:{name}" and topics.sha256
    qrels = read_qrels(f"ir_datasets:{name}")
    assert qrels.judgments == read_qrels(root / "qrels.txt").judgments
    assert qrels.name == name


def test_cli_takes_ir_datasets_sources(dataset: tuple[str, Path]) -> None:
    name, root = dataset
    run = str(root / "a.run")

    def score(*args: str) -> dict:
        result = CliRunner().invoke(
            main, ["score", run, *args, "--measures", "RR@10 P@1", "--format", "json"]
        )
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["runs"][0]

    via_irds = score("--qrels", f"ir_datasets:{name}", "--topics", f"ir_datasets:{name}")
    via_files = score("--qrels", str(root / "qrels.txt"), "--topics", str(root / "topics.txt"))
    # by hand: 301 RR 1/2, P@1 0; 302 RR 1, P@1 1; 303 unjudged → 0, counted under --topics
    assert via_irds["aggregate"] == via_files["aggregate"] == pytest.approx({"RR@10": 0.5, "P@1": 1 / 3})
    assert via_irds["n"] == 3


def test_iterators_and_dataset_objects_are_inputs(dataset: tuple[str, Path]) -> None:
    import ir_datasets

    name, root = dataset
    ds = ir_datasets.load(name)
    run = Run({"301": {"d2": 3.0, "d1": 2.0}, "302": {"d5": 1.0}})
    expected = {"RR@10": 0.5, "P@1": 1 / 3}
    for qrels, topics in ((ds.qrels_iter(), ds.queries_iter()), (ds, ds)):
        with pytest.warns(ToolkitWarning, match=r"^1 of 3 topics have no qrels \(303\)"):
            scores = evaluate(run, qrels, topics=topics, measures="RR@10 P@1")
        assert scores.aggregate == pytest.approx(expected)
        assert scores.query_ids == ("301", "302", "303")


def test_ir_datasets_errors(dataset: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    name, _ = dataset
    with pytest.raises(FormatError) as info:
        read_qrels("ir_datasets:no-such/dataset-xyz")
    assert str(info.value) == (
        "ir_datasets:no-such/dataset-xyz: ir_datasets has no dataset 'no-such/dataset-xyz'; dataset ids are "
        "listed at https://ir-datasets.com"
    )
    with pytest.raises(FormatError, match=r"^ir_datasets:: no dataset id; write ir_datasets:DATASET_ID"):
        read_topics("ir_datasets:")
    with pytest.raises(FormatError) as info:
        read_qrels(f"ir_datasets:{name}-queries-only")
    assert str(info.value).endswith(": this dataset provides no qrels; pick a dataset id that has qrels")
    with pytest.raises(FormatError) as info:
        read_qrels(f"ir_datasets:{name}-missing")
    assert str(info.value).startswith(
        f"ir_datasets:{name}-missing: ir_datasets could not provide the qrels ("
    )
    result = CliRunner().invoke(main, ["score", "x.run", "--qrels", f"ir_datasets:{name}-missing"])
    assert result.exit_code == 1 and result.output.startswith(
        f"Error: ir_datasets:{name}-missing: ir_datasets could"
    )

    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # as if the extra were not installed
    with pytest.raises(UsageError) as usage:
        read_topics(f"ir_datasets:{name}")
    assert str(usage.value) == (
        f"ir_datasets:{name}: ir_datasets is not installed; pip install 'trec-toolkit[ir-datasets]'"
    )
