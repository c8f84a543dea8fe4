"""``trec-toolkit audit`` end to end on a small workspace built here, and on the shipped example workspace.

The small workspace's "search engine" is a script returning fixed rankings, so the expected numbers are hand
computations: topic t1's answer is at rank 1 for `good` and rank 2 for `bad`, etc.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import make_workspace

from toolkit.cli import main

REPO = Path(__file__).resolve().parents[2]

#: good answers t1, t2, t4 at rank 1; bad has every answer lower (t3's is at rank 2 in both).
RANKINGS = {
    "bad": {"t1": ["x", "a1", "y"], "t2": ["x", "y", "b1"], "t3": ["x", "g1"], "t4": ["old", "new"]},
    "good": {"t1": ["a1", "x", "y"], "t2": ["b1", "x"], "t3": ["x", "g1"], "t4": ["new", "old"]},
}

TOPICS = """
[topicset]
name = "mini"

[[topic]]
id = "t1"
query = "alpha"
class = "canonical"
truth = ['^a1$']

[[topic]]
id = "t2"
query = "beta"
class = "canonical"
truth = ['^b1$']

[[topic]]
id = "t3"
query = "gamma"
class = "canonical"
truth = ['^g1$']

[[topic]]
id = "t4"
query = "delta"
class = "deprecation"
truth = ['^new$']
prefer = [{ modern = '^new$', legacy = '^old$' }]
"""


def build(root: Path, **more: Any) -> Path:
    """The small workspace: bad (the baseline) and good over topics/mini.toml, RR@10 primary."""
    make_workspace(
        root,
        topics=TOPICS,
        topics_file="topics/mini.toml",
        engines=RANKINGS,
        workspace={"baseline": "bad", "depth": 10, "measures": ["RR@10", "P@1"], "primary": "RR@10"},
        tables={"audit": {"margins": {"RR@10": 0.05}}},
        **more,
    )
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return build(tmp_path)


def audit(*args: str):
    result = CliRunner().invoke(main, ["audit", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str, str]:
    """The small workspace and its first audit (exit code, stdout, stderr), run once for the tests that only
    read what it wrote or printed (each audit draws its plots: a second or so of CPU)."""
    root = build(tmp_path_factory.mktemp("audited"))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("audited-cwd"))  # an empty folder, as each test has
        code, out, err = audit("--config", str(root / "toolkit.toml"))
    return root, code, out, err


def test_audit_writes_every_file_and_a_summary(audited: tuple[Path, int, str, str]):
    workspace, code, out, err = audited
    assert code == 0, err
    files = sorted(p.name for p in (workspace / "audits").iterdir())
    assert files == [
        "audit-ci-forest.png",
        "audit-delta-good-rr-10.png",
        "audit-first-relevant-rank.png",
        "audit.html",
        "audit.json",
        "audit.md",
    ]
    assert "run bad: running over 4 topics" in err and "run good: running over 4 topics" in err
    # RR@10: bad = (1/2 + 1/3 + 1/2 + 1/2)/4 = 0.458333, good = (1 + 1 + 1/2 + 1)/4 = 0.875
    assert out.splitlines()[0] == (
        "Audit of good against bad on mini (4 topics, primary RR@10, randomization test, seed 42)"
    )
    # deltas 1/2, 2/3, 0, 1/2: 3 non-zero pairs, so no exact test can reach α (smallest p = 2/2^3)
    assert "good: cannot reach α = 0.05 with 3 non-zero pairs — RR@10 0.4583 → 0.8750 (Δ +0.4167" in out
    assert "good: rank 1 fixed 3, degraded 0, unchanged 1, both-suboptimal 0" in out
    assert "good: preferences won 1, lost 0, tied 0" in out
    # 4 topics: fewer than the 10 the minimum-data rule asks of an interval, so no non-inferiority claim
    assert (
        "good: RR@10 non-inferiority: undefined (a non-inferiority claim that holds under skewed per-topic "
        "differences needs at least 30 topics (found 4))" in out
    )
    doc = json.loads((workspace / "audits" / "audit.json").read_text())
    assert doc["baseline"] == "bad" and doc["runs"] == ["bad", "good"]
    assert doc["comparisons"][0]["delta"] == pytest.approx(0.875 - 0.458333333)
    assert doc["rank1"][0]["topics"]["fixed"] == ["t1", "t2", "t4"]
    assert doc["rank1"][0]["topics"]["unchanged"] == ["t3"]
    assert doc["setup"]["topics"]["path"] == "topics/mini.toml"
    assert set(doc["by_class"]) == {"canonical", "deprecation"}
    md = (workspace / "audits" / "audit.md").read_text()
    sections = [
        "## Verdict",
        "## Aggregate",
        "## Confirmatory test (RR@10)",
        "## Secondary measures",
        "## Rank-1 buckets",
        "## Preferences (deprecation)",
        "## Per class (exploratory)",
        "## Judged@10",
        "## Failed topics",
        "## Worst regressions (RR@10)",
        "## Appendix",
        "### Setup",
        "### Versions",
    ]
    at = [md.index(section + "\n") for section in sections]
    assert at == sorted(at)
    assert md.index("![Mean delta per measure") < md.index("## Confirmatory test")  # forest beside the table
    assert (workspace / "qrels" / "mini.qrels").read_text() == "t1 0 a1 1\nt2 0 b1 1\nt3 0 g1 1\nt4 0 new 1\n"


def test_second_audit_reuses_runs_and_is_byte_identical(workspace: Path):
    assert audit("--config", str(workspace / "toolkit.toml"))[0] == 0
    first = {p.name: p.read_bytes() for p in (workspace / "audits").iterdir()}
    code, _, err = audit("--config", str(workspace / "toolkit.toml"))
    assert code == 0
    assert "run bad: reusing" in err and "run good: reusing" in err
    assert {p.name: p.read_bytes() for p in (workspace / "audits").iterdir()} == first
    code, _, err = audit("--config", str(workspace / "toolkit.toml"), "--rerun")
    assert code == 0 and "run good: running over 4 topics" in err


def test_changed_system_config_reruns(workspace: Path):
    assert audit("--config", str(workspace / "toolkit.toml"))[0] == 0
    config = workspace / "toolkit.toml"
    config.write_text(
        config.read_text().replace(
            '"good", "{query_id}", "{query}", "{depth}"]',
            '"good", "{query_id}", "{query}", "{depth}", "--v2"]',
        )
    )
    code, _, err = audit("--config", str(config))
    assert code == 0
    assert "run bad: reusing" in err and "run good: running over 4 topics" in err


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda c: c.replace('baseline = "bad"', 'baseline = "nope"'),
            "[workspace] baseline = 'nope' is not a system; known: bad, good",
        ),
        (
            lambda c: c.replace("[audit]", "[audit]\ncolour = 1"),
            "[audit] has unknown key(s) colour; known: alpha, correction, margins, name, order, output, qrels, seed, "
            "test, topics_shown",
        ),
    ],
)
def test_config_errors(workspace: Path, edit, message):
    config = workspace / "toolkit.toml"
    config.write_text(edit(config.read_text()))
    code, _, err = audit("--config", str(config))
    assert code == 1
    assert err.strip() == f"Error: {config}: {message}"


def test_gate_fails_a_degraded_run_in_the_workspace(audited: tuple[Path, int, str, str]):
    workspace, code, _, err = audited
    assert code == 0, err
    result = CliRunner().invoke(
        main,
        [
            "gate",
            "--baseline",
            str(workspace / "runs" / "good.run"),
            "--candidate",
            str(workspace / "runs" / "bad.run"),
            "--qrels",
            str(workspace / "qrels" / "mini.qrels"),
            "--topics",
            str(workspace / "topics" / "mini.toml"),
            "--rule",
            "RR@10 drop <= 0.05",
            "--rule",
            "P@1 >= 1.0 class=canonical",
        ],
    )
    assert result.exit_code == 3
    assert "RR@10 drop <= 0.05" in result.stdout and "FAIL" in result.stdout


def test_example_workspace_audit(example_audit: Path):
    """The README's main command on a copy of the shipped workspace: bm25f against bm25."""
    tmp_path = example_audit
    summary = (example_audit / "summary.txt").read_text()
    assert summary.startswith("Audit of bm25f against bm25 on stdlib (61 topics, primary RR@10")
    for suffix in ("md", "json", "html"):
        assert (tmp_path / "audits" / f"audit.{suffix}").is_file()
    # the audit's reading order (docs/design.md §7): the confirmatory family, the exploratory per-class tables and Judged@k
    md = (tmp_path / "audits" / "audit.md").read_text()
    for section in (
        "## Verdict",
        "## Confirmatory test (RR@10)",
        "## Per class (exploratory)",
        "## Judged@10",
    ):
        assert section + "\n" in md
    doc = json.loads((tmp_path / "audits" / "audit.json").read_text())
    assert (
        doc["primary"] == "RR@10" and doc["primary_declared"] is True
    )  # [workspace] primary in toolkit.toml
    assert {b["family"] for b in doc["by_class"].values()} == {"exploratory"}
    assert len(list((tmp_path / "audits").glob("audit-*.png"))) == 3


# --- Failed topics and Judged@k are part of every audit (docs/design.md §7) ------------------------


@pytest.fixture
def flaky_ws(tmp_path: Path) -> Path:
    """12 topics: flaky has every answer at rank 1, steady at rank 2; $FAKE_FAIL makes flaky fail some."""
    ids = [f"t{i}" for i in range(12)]
    make_workspace(
        tmp_path,
        topics=[{"id": q, "query": f"w{q[1:]}", "truth": [f"^{q}-rel$"]} for q in ids],
        engines={"steady": {q: ["x", f"{q}-rel"] for q in ids}, "flaky": {q: [f"{q}-rel", "x"] for q in ids}},
        workspace={"baseline": "steady", "measures": ["RR@10"], "primary": "RR@10"},
    )
    return tmp_path


def test_failed_topics_make_the_audit_not_comparable(flaky_ws: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FAIL", "flaky:t3,flaky:t7")
    code, out, err = audit("--config", str(flaky_ws / "toolkit.toml"))
    assert code == 0, err
    assert "flaky: not comparable: 2 topics failed in flaky" in out
    doc = json.loads((flaky_ws / "audits" / "audit.json").read_text())
    assert doc["failed_topics"] == {"steady": [], "flaky": ["t3", "t7"]}
    (verdict,) = doc["verdicts"]
    assert verdict["candidate"] == "flaky" and verdict["comparable"] is False
    assert verdict["verdict"] == "not comparable: 2 topics failed in flaky"
    md = (flaky_ws / "audits" / "audit.md").read_text()
    assert "not comparable: 2 topics failed in flaky" in md.split("## Aggregate")[0]  # the first screen
    assert "t3 t7" in md


def test_allow_failed_gives_the_verdict_and_still_lists_the_failures(flaky_ws: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FAIL", "flaky:t3,flaky:t7")
    code, out, err = audit("--config", str(flaky_ws / "toolkit.toml"), "--allow-failed")
    assert code == 0, err
    doc = json.loads((flaky_ws / "audits" / "audit.json").read_text())
    (verdict,) = doc["verdicts"]
    # 10 topics +1/2, the 2 failed ones −1/2: exact two-sided p = 2 · 79/4096 = 0.0386 < 0.05
    assert verdict["comparable"] is True and verdict["verdict"] == "better"
    assert doc["failed_topics"]["flaky"] == ["t3", "t7"]
    assert "2 topics failed in flaky (allowed with --allow-failed)" in out


def test_audit_reports_judged_at_k(audited: tuple[Path, int, str, str]) -> None:
    workspace, code, _, err = audited
    assert code == 0, err
    doc = json.loads((workspace / "audits" / "audit.json").read_text())
    assert [j["run"] for j in doc["judged"]] == ["bad", "good"]
    # regex truth judges only the matching docs: bad's top 10 over t1..t4 has 9 docs, 4 of them judged
    bad = doc["judged"][0]
    assert bad["depth"] == 10 and bad["rate"] == pytest.approx((1 / 3 + 1 / 3 + 1 / 2 + 1 / 2) / 4)
    md = (workspace / "audits" / "audit.md").read_text()
    assert "## Judged@10" in md


SYSTEMS_MODULE = """
import random


def ranks(seed):
    rng = random.Random(seed)
    out = {}
    for i in range(3000):
        x = rng.random()
        out[f"w{i}"] = None if x < 0.1 else rng.randint(1, 1000) if x < 0.15 else min(1000, int(rng.expovariate(0.3)) + 1)
    return out


BASE, CAND = ranks(1), ranks(2)


def search(table, query):
    rank = table[query]
    if rank is None:
        return [f"{query}-d{j}" for j in range(3)]
    docs = [f"{query}-d{j}" for j in range(1, rank)]
    return [*docs, f"{query}-rel"]


def base(query, depth):
    return search(BASE, query)[:depth]


def cand(query, depth):
    return search(CAND, query)[:depth]
"""


@pytest.mark.slow
def test_audit_of_three_thousand_topics_with_rr_at_1000(tmp_path: Path, monkeypatch) -> None:
    """Audit succeeds on 3,000-topic runs with RR@1000 among the measures."""
    (tmp_path / "topics").mkdir()
    (tmp_path / "qrels").mkdir()
    (tmp_path / "bigsys.py").write_text(SYSTEMS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    topics = "".join(f'[[topic]]\nid = "t{i}"\nquery = "w{i}"\n\n' for i in range(3000))
    (tmp_path / "topics" / "big.toml").write_text(topics)
    (tmp_path / "qrels" / "big.qrels").write_text("".join(f"t{i} 0 w{i}-rel 1\n" for i in range(3000)))
    (tmp_path / "toolkit.toml").write_text(
        '[workspace]\ntopics = "topics/big.toml"\nbaseline = "base"\ndepth = 1000\nworkers = 1\n'
        'measures = ["RR@10", "RR@1000", "P@1"]\nprimary = "RR@10"\n\n'
        '[systems.base]\ncallable = "bigsys:base"\n\n[systems.cand]\ncallable = "bigsys:cand"\n\n'
        '[audit]\nqrels = "qrels/big.qrels"\n'
    )
    code, out, err = audit("--config", str(tmp_path / "toolkit.toml"))
    assert code == 0, err
    doc = json.loads((tmp_path / "audits" / "audit.json").read_text())
    by = {c["measure"]: c for c in doc["comparisons"]}
    assert set(by) == {"RR@10", "RR@1000", "P@1"} and by["RR@1000"]["n"] == 3000
    assert by["RR@10"]["family"] == "confirmatory" and by["RR@1000"]["family"] == "secondary"
    assert out.startswith("Audit of cand against base on big (3000 topics, primary RR@10")


CHECK = """
import pathlib, sys
with open("preflight.log", "a") as log:
    log.write(sys.argv[1] + "\\n")
index = pathlib.Path("index.txt")
if not index.exists():
    print("no index.txt here", file=sys.stderr)
    sys.exit(2)
print("index " + index.read_text().strip())
"""


@pytest.fixture
def checked(tmp_path: Path) -> Path:
    """The workspace with a pre-flight check on both systems, reporting the version in index.txt."""
    (tmp_path / "check.py").write_text(CHECK)
    (tmp_path / "index.txt").write_text("v1\n")
    return build(tmp_path, systems={n: {"preflight": ["{python}", "check.py", n]} for n in ("bad", "good")})


def test_audit_runs_each_preflight_once_before_the_runs(checked: Path) -> None:
    code, _, err = audit("--config", str(checked / "toolkit.toml"))
    assert code == 0, err
    assert (checked / "preflight.log").read_text() == "bad\ngood\n"
    lines = err.splitlines()
    assert lines[:3] == ["Pre-flight bad: index v1", "Pre-flight good: index v1", lines[2]]
    assert lines[2].startswith("run bad: running over 4 topics")
    for name in ("bad", "good"):
        manifest = json.loads((checked / "runs" / f"{name}.run.json").read_text())
        assert manifest["preflight"]["output"] == "index v1\n"
    md = (checked / "audits" / "audit.md").read_text()
    setup = md.split("## Setup", 1)[1].split("## ", 1)[0]
    assert "- Pre-flight of `bad` (`{python} check.py bad`): index v1\n" in setup
    assert "- Pre-flight of `good` (`{python} check.py good`): index v1\n" in setup
    data = json.loads((checked / "audits" / "audit.json").read_text())
    assert data["setup"]["preflight"]["good"]["check"] == ["{python}", "check.py", "good"]
    assert data["setup"]["preflight"]["good"]["output"] == "index v1\n"
    assert "PILOT" not in md and "pilot" not in data


def test_a_failing_preflight_stops_the_audit_before_any_run(checked: Path) -> None:
    (checked / "index.txt").unlink()
    code, _, err = audit("--config", str(checked / "toolkit.toml"))
    assert code == 1
    assert err == (
        "Error: system 'bad': pre-flight `{python} check.py bad` failed (exit code 2): no index.txt here; fix "
        "what it reports, then run again\n"
    )
    assert not (checked / "runs").exists() or not list((checked / "runs").iterdir())


def test_audit_reuses_a_run_only_under_the_same_preflight_output(checked: Path) -> None:
    config = str(checked / "toolkit.toml")
    assert audit("--config", config)[0] == 0
    code, _, err = audit("--config", config)
    assert code == 0 and "run bad: reusing" in err and "run good: reusing" in err
    (checked / "index.txt").write_text("v2\n")
    code, _, err = audit("--config", config)
    assert code == 0, err
    assert (
        f"run good: running over 4 topics → {checked / 'runs' / 'good.run'} (good.run was not reused: the "
        "pre-flight output changed)" in err
    )
    manifest = json.loads((checked / "runs" / "good.run.json").read_text())
    assert manifest["preflight"]["output"] == "index v2\n"
