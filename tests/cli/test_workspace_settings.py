"""The workspace's evaluation settings, read the same by ``score``, ``compare``, ``gate`` and ``audit``.

A small workspace: three topics in the topic set, of which the qrels judge two (t1, t2) and t3 is unjudged;
run ``a`` finds t1's answer at rank 1 and t2's at rank 2, run ``b`` the reverse. So over the topic set
(n = 3) RR@10 is (1 + 1/2 + 0)/3 = 0.5 for both; over the qrels' topics (n = 2) it is 0.75 — the numbers
that tell which topic set a command used.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import make_workspace

from toolkit.cli import main

SCRIPT = Path(sys.executable).parent / "trec-toolkit"
TOPICS = [{"id": q, "query": f"query {q}", "truth": [f"^{q}-rel$"]} for q in ("t1", "t2", "t3")]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_workspace(tmp_path, topics=TOPICS, workspace={"primary": "RR@10", "measures": ["RR@10", "P@1"]})
    (tmp_path / "q.qrels").write_text("t1 0 t1-rel 1\nt2 0 t2-rel 1\n")
    (tmp_path / "a.run").write_text("t1 Q0 t1-rel 1 2 a\nt1 Q0 x 2 1 a\nt2 Q0 x 1 2 a\nt2 Q0 t2-rel 2 1 a\n")
    (tmp_path / "b.run").write_text("t1 Q0 x 1 2 b\nt1 Q0 t1-rel 2 1 b\nt2 Q0 t2-rel 1 2 b\nt2 Q0 x 2 1 b\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_score_and_compare_count_the_workspace_topic_set_and_mark_its_primary(ws: Path) -> None:
    code, out, err = invoke("score", "a.run", "b.run", "--qrels", "q.qrels")
    assert code == 0, err
    assert out.splitlines()[:3] == [
        "run  topic  n  empty  RR@10 (primary)     P@1",
        "a    all    3      1           0.5000  0.3333",
        "b    all    3      1           0.5000  0.3333",
    ]
    assert err == "Warning: 1 of 3 topics have no qrels (t3); they score 0 and count in n\n"
    code, out, err = invoke("compare", "a.run", "b.run", "--qrels", "q.qrels")
    assert code == 0, err
    assert "Confirmatory test: RR@10 (declared)" in out
    assert "\nb          3  0.5000      0.5000  +0.0000" in out  # the confirmatory row: n = 3, the same means
    assert err == "Warning: 1 of 3 topics have no qrels (t3); they score 0 and count in n\n"  # once


def test_a_flag_says_otherwise(ws: Path) -> None:
    code, out, _ = invoke("score", "a.run", "--qrels", "q.qrels", "--no-workspace", "--measures", "RR@10")
    assert code == 0 and out.splitlines()[1] == "a    all    2      0  0.7500"  # the qrels' two topics
    (ws / "two.toml").write_text('[[topic]]\nid = "t1"\nquery = "x"\n[[topic]]\nid = "t2"\nquery = "y"\n')
    code, out, _ = invoke("score", "a.run", "--qrels", "q.qrels", "--topics", "two.toml", "--measures", "P@1")
    assert code == 0 and out.splitlines()[:2] == [
        "run  topic  n  empty  RR@10 (primary)     P@1",
        "a    all    2      0           0.7500  0.5000",
    ]
    code, out, _ = invoke("compare", "a.run", "b.run", "--qrels", "q.qrels", "--primary", "P@1")
    assert code == 0 and "Confirmatory test: P@1 (declared)" in out


def test_gate_counts_the_workspace_topic_set(ws: Path) -> None:
    args = [
        "gate",
        "--baseline",
        "a.run",
        "--candidate",
        "b.run",
        "--qrels",
        "q.qrels",
        "--rule",
        "RR@10 >= 0.6",
    ]
    code, out, _ = invoke(*args)
    assert code == 3 and "0.5000" in out  # over the topic set's 3 topics: fails
    code, out, _ = invoke(*args, "--no-workspace")
    assert code == 0 and "0.7500" in out  # over the qrels' 2 topics: holds


def test_the_old_audit_keys_are_read_with_a_deprecation_warning(ws: Path) -> None:
    make_workspace(ws, topics=TOPICS, tables={"audit": {"primary": "P@1"}})
    code, out, err = invoke("compare", "a.run", "b.run", "--qrels", "q.qrels")
    assert code == 0, err
    assert "Confirmatory test: P@1 (declared)" in out
    assert err.splitlines()[0] == (
        f"Warning: {ws / 'toolkit.toml'}: [audit] primary is deprecated: move it to [workspace] primary, which "
        "score, compare, gate and audit all read"
    )
    assert len(err.splitlines()) == len(set(err.splitlines()))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"workspace": {"primary": "RR@10"}, "audit": {"primary": "P@1"}},
            "[audit] primary = 'P@1' and [workspace] primary = 'RR@10' disagree; keep only [workspace] primary",
        ),
        ({"workspace": {"primary": ["RR@10"]}}, '[workspace] primary must be one measure name, e.g. "RR@10"'),
        (
            {"workspace": {"measures": 10}},
            '[workspace] measures must be a list of measure names, e.g. ["RR@10", "nDCG@10"]',
        ),
        ({"workspace": {"measures": ["RR@10", "mapp"]}}, "[workspace] measures: unknown measure 'mapp'"),
    ],
)
def test_settings_errors_name_the_file_and_the_key(ws: Path, settings: dict, message: str) -> None:
    make_workspace(
        ws, topics=TOPICS, workspace=settings["workspace"], tables={"audit": settings.get("audit", {})}
    )
    for command in (["score", "a.run"], ["compare", "a.run", "b.run"]):
        code, _, err = invoke(*command, "--qrels", "q.qrels")
        assert code == 1
        assert err.startswith(f"Error: {ws / 'toolkit.toml'}: {message}"), err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["q.qrels", "--qrels", "q.qrels"],
            "Error: q.qrels:1: expected 6 columns (query_id Q0 doc_id rank score run_tag), found 4 — a qrels line "
            "(query_id iteration doc_id relevance)? did you swap the run and the qrels?\n",
        ),
        (
            ["a.run", "--qrels", "a.run"],
            "Error: a.run:1: expected 4 columns (query_id iteration doc_id relevance), found 6 — a run line "
            "(query_id Q0 doc_id rank score run_tag)? did you swap the run and the qrels?\n",
        ),
    ],
)
def test_a_run_and_qrels_given_the_wrong_way_round(ws: Path, args: list[str], message: str) -> None:
    done = subprocess.run([SCRIPT, "score", *args], cwd=ws, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", message)
