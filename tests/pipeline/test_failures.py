"""The run-failure policy (``toolkit.pipeline.failures``): one rule for ``run`` and ``audit``."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import make_workspace

from toolkit.cli import main
from toolkit.errors import FormatError, SystemCallError, ToolkitWarning
from toolkit.model import Run
from toolkit.pipeline.failures import check_failures, manifest_failures, recorded_failures
from toolkit.systems.runner import Failure


def failure(query_id: str, tail: str = "") -> Failure:
    return Failure(query_id, "exit code 3", 3, tail, 1.0, 1)


def test_failed_topics_per_run_from_the_manifests() -> None:
    runs = [Run(results={}, name="a"), Run(results={}, name="b"), Run(results={}, name="c")]
    manifests = {
        "a": {"failures": [{**failure("q2").__dict__}, {**failure("q7").__dict__}]},
        "b": {"failures": []},
        "c": None,  # a run made elsewhere: no manifest, so its failures are unknown
    }
    assert recorded_failures(runs, manifests) == {"a": ("q2", "q7"), "b": (), "c": None}


def test_failed_topics_reads_the_manifest_beside_the_run(tmp_path: Path) -> None:
    path = tmp_path / "x.run"
    Path(f"{path}.json").write_text(json.dumps({"failures": [failure("q1").__dict__]}), encoding="utf-8")
    assert recorded_failures([Run(results={}, name="x", path=str(path))]) == {"x": ("q1",)}


def test_a_malformed_failure_list_names_the_manifest() -> None:
    with pytest.raises(FormatError, match=r"m\.json: failures must be a list of failure records"):
        manifest_failures({"failures": [{"query_id": "q1"}]}, where="m.json")


def test_some_failed_topics_are_one_warning_naming_the_first_three() -> None:
    failures = [failure(f"q{i}") for i in range(1, 6)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_failures(failures, topics=10, manifest="runs/x.run.json", label="run x: ")
    assert [str(w.message) for w in caught if issubclass(w.category, ToolkitWarning)] == [
        "run x: 5 of 10 topics failed and have no results (q1: exit code 3; q2: exit code 3; q3: exit code 3 "
        "and 2 more); see runs/x.run.json"
    ]


def test_every_topic_failing_is_an_error_with_the_first_stderr_line() -> None:
    failures = [failure("q1", "Traceback …\nRuntimeError: down\n"), failure("q2")]
    with pytest.raises(SystemCallError) as info:
        check_failures(failures, topics=2, manifest="runs/x.run.json")
    assert str(info.value) == (
        "every topic failed (2); first: q1: exit code 3: RuntimeError: down (details in runs/x.run.json)"
    )


def build(root: Path) -> Path:
    """steady and flaky over two topics, with the same answers; ``$FAKE_FAIL`` makes flaky fail."""
    answers = {"t1": ["a1", "x"], "t2": ["x", "b1"]}
    make_workspace(
        root,
        topics=[
            {"id": "t1", "query": "alpha", "truth": ["^a1$"]},
            {"id": "t2", "query": "beta", "truth": ["^b1$"]},
        ],
        engines={"steady": answers, "flaky": answers},
        workspace={"measures": ["RR@10"]},
    )
    return root


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return build(tmp_path)


def audit(ws: Path, monkeypatch: pytest.MonkeyPatch, *fail: str):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FAKE_FAIL", ",".join(f"flaky:{q}" for q in fail))
    return CliRunner().invoke(main, ["audit", "--config", str(ws / "toolkit.toml")])


def test_audit_warns_about_failed_topics_and_asks_them_again_next_time(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = audit(ws, monkeypatch, "t2")
    assert first.exit_code == 0, first.stderr
    manifest = ws / "runs" / "flaky.run.json"
    assert (
        f"Warning: run flaky: 1 of 2 topics failed and have no results (t2: exit code 1); see {manifest}"
        in first.stderr.splitlines()
    )
    second = audit(ws, monkeypatch)
    assert second.exit_code == 0, second.stderr
    assert "run steady: reusing" in second.stderr
    assert "run flaky: running over 2 topics" in second.stderr  # its manifest recorded a failure
    assert "Warning" not in second.stderr
    third = audit(ws, monkeypatch)
    assert "run flaky: reusing" in third.stderr


def test_audit_stops_when_a_system_failed_every_topic(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = audit(ws, monkeypatch, "t1", "t2")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        "Error: run flaky: every topic failed (2); first: t1: exit code 1: search backend down "
        f"(details in {ws / 'runs' / 'flaky.run.json'})"
    )
    assert not (ws / "audits").exists()
