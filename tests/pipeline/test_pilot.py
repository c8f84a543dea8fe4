"""Pilot runs (``run --pilot``, ``[systems.NAME] pilot = true``) through the real commands: marked in the
manifest, refused by ``audit`` unless ``--allow-pilot``, never reused by an audit for the record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import make_workspace

from toolkit.cli import main


def build(root: Path, **systems: dict[str, Any]) -> Path:
    """bad (the baseline) and good over two topics: good answers at rank 1, bad at rank 2."""
    make_workspace(
        root,
        topics=[
            {"id": "t1", "query": "alpha", "truth": ["^a1$"]},
            {"id": "t2", "query": "beta", "truth": ["^b1$"]},
        ],
        topics_file="topics/mini.toml",
        engines={
            "good": {"t1": ["a1", "x"], "t2": ["b1", "x"]},
            "bad": {"t1": ["x", "a1"], "t2": ["x", "b1"]},
        },
        systems=systems,
        workspace={"baseline": "bad", "measures": ["RR@10"]},
    )
    return root


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return build(tmp_path)


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def manifest(ws: Path, name: str) -> dict[str, Any]:
    return json.loads((ws / "runs" / f"{name}.run.json").read_text())


def mark_pilot(ws: Path, system: str) -> None:
    build(ws, **{system: {"pilot": True}})


def test_run_pilot_is_marked_in_the_manifest(ws: Path) -> None:
    result = invoke("run", "good", "--pilot")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(
        "Wrote runs/good.run as a PILOT run, not for the record (2 topics, 0 failed;"
    )
    assert manifest(ws, "good")["pilot"] is True
    result = invoke("run", "good")
    assert result.exit_code == 0 and result.stderr.startswith("Wrote runs/good.run (2 topics")
    assert manifest(ws, "good")["pilot"] is False


def test_a_system_marked_pilot_makes_pilot_runs(ws: Path) -> None:
    mark_pilot(ws, "good")
    assert invoke("run", "good").exit_code == 0
    assert manifest(ws, "good")["pilot"] is True


def test_pilot_must_be_true_or_false(ws: Path) -> None:
    config = build(ws, good={"pilot": "yes"}) / "toolkit.toml"
    result = invoke("run", "good")
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: {config}: [systems.good]: pilot must be true or false\n",
    )


def test_audit_refuses_a_pilot_system_unless_allowed(ws: Path) -> None:
    mark_pilot(ws, "good")
    result = invoke("audit")
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: {ws / 'toolkit.toml'}: system 'good' is marked pilot = true: pilot runs are not for the record, "
        "so audit refuses them; remove pilot = true, or pass --allow-pilot for an audit marked PILOT\n"
    )
    assert not (ws / "runs").exists()  # refused before anything ran
    result = invoke("audit", "--allow-pilot")
    assert result.exit_code == 0, result.output
    assert manifest(ws, "good")["pilot"] is True and manifest(ws, "bad")["pilot"] is False


def test_audit_makes_a_run_for_the_record_instead_of_reusing_a_pilot_run(ws: Path) -> None:
    assert invoke("run", "good", "--pilot").exit_code == 0
    assert invoke("run", "bad").exit_code == 0
    result = invoke("audit")
    assert result.exit_code == 0, result.output
    assert "run bad: reusing" in result.stderr
    assert (
        "run good: running over 2 topics → runs/good.run (good.run was not reused: it is a pilot run, not for "
        "the record)" in result.stderr.replace(str(ws) + "/", "")
    )
    assert manifest(ws, "good")["pilot"] is False


def test_audit_allow_pilot_reuses_a_pilot_run(ws: Path) -> None:
    assert invoke("run", "good", "--pilot").exit_code == 0
    result = invoke("audit", "--allow-pilot")
    assert result.exit_code == 0, result.output
    assert "run good: reusing" in result.stderr
    assert manifest(ws, "good")["pilot"] is True


QRELS = "t1 0 a1 1\nt2 0 b1 1\n"


@pytest.fixture
def pilot_and_record(ws: Path) -> Path:
    """runs/good.run is a pilot run, runs/bad.run one for the record; q.qrels by hand."""
    assert invoke("run", "good", "--pilot").exit_code == 0
    assert invoke("run", "bad").exit_code == 0
    (ws / "q.qrels").write_text(QRELS)
    return ws


def test_score_of_a_pilot_run_says_so_at_the_top(pilot_and_record: Path) -> None:
    result = invoke("score", "runs/good.run", "runs/bad.run", "--qrels", "q.qrels", "--measures", "RR@10")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "PILOT — not for the record (pilot run: good)"
    data = json.loads(
        invoke(
            "score", "runs/good.run", "--qrels", "q.qrels", "--measures", "RR@10", "--format", "json"
        ).stdout
    )
    assert list(data)[:2] == ["schema_version", "pilot"] and data["pilot"] == ["good"]
    clean = invoke("score", "runs/bad.run", "--qrels", "q.qrels", "--measures", "RR@10")
    assert "PILOT" not in clean.stdout and "pilot" not in json.dumps(
        json.loads(invoke("score", "runs/bad.run", "--qrels", "q.qrels", "--format", "json").stdout)
    )


def test_machine_formats_keep_their_shape_and_say_it_on_stderr(pilot_and_record: Path) -> None:
    result = invoke("score", "runs/good.run", "--qrels", "q.qrels", "--measures", "RR@10", "--format", "csv")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].startswith("run,")
    assert result.stderr == "Warning: PILOT — not for the record (pilot run: good)\n"


def test_compare_with_a_pilot_run_says_so_at_the_top(pilot_and_record: Path) -> None:
    args = ("compare", "runs/bad.run", "runs/good.run", "--qrels", "q.qrels", "--measures", "RR@10")
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "PILOT — not for the record (pilot run: good)"
    assert invoke(*args, "--format", "md", "-o", "c.md").exit_code == 0
    assert Path("c.md").read_text().splitlines()[0] == "**PILOT — not for the record** (pilot run: `good`)"
    html = invoke(*args, "--format", "html").stdout
    assert html.index("PILOT — not for the record") < html.index("<h1")


def test_gate_refuses_a_pilot_run_unless_allowed(pilot_and_record: Path) -> None:
    args = ["gate", "--baseline", "runs/bad.run", "--candidate", "runs/good.run", "--qrels", "q.qrels"]
    result = invoke(*args, "--rule", "RR@10 >= 0.5")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: runs/good.run is a pilot run (not for the record), so gate refuses it; make the run without "
        "--pilot, or pass --allow-pilot\n"
    )
    assert result.stdout == ""
    result = invoke(*args, "--rule", "RR@10 >= 0.5", "--allow-pilot")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "PILOT — not for the record (pilot run: good)"
    both = invoke("gate", "--baseline", "runs/good.run", "--candidate", "runs/good.run", "--qrels", "q.qrels",
                  "--rule", "RR@10 >= 0.5")  # fmt: skip
    assert both.exit_code == 2 and both.stderr.startswith("Error: runs/good.run is a pilot run")


def test_an_audit_allowed_pilot_says_so_at_the_top_of_every_file(ws: Path) -> None:
    mark_pilot(ws, "good")
    result = invoke("audit", "--allow-pilot")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "PILOT — not for the record (pilot run: good)"
    assert (ws / "audits" / "audit.md").read_text().splitlines()[0] == (
        "**PILOT — not for the record** (pilot run: `good`)"
    )
    data = json.loads((ws / "audits" / "audit.json").read_text())
    assert data["pilot"] == ["good"]
    html = (ws / "audits" / "audit.html").read_text()
    assert html.index("PILOT — not for the record") < html.index("<h1")
