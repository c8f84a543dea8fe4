"""Judging less from the command line, as an outsider runs it (the installed script, exit codes, messages):
a MaxMean round and a sampled round on the example workspace, judgments imported from the regex truth, the
five-column export, score's estimates and refusals, compare's refusal, and bad pool options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = Path(sys.executable).with_name("trec-toolkit")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *map(str, args)], cwd=REPO, capture_output=True, text=True)


def judge_by_truth(campaign: Path, tmp_path: Path) -> None:
    from toolkit.formats import read_qrels
    from toolkit.judging.store import CampaignStore

    truth = read_qrels(REPO / "qrels" / "stdlib.qrels")
    with CampaignStore.open(campaign) as store:
        judged = {(j.query_id, j.doc_id) for j in store.current_judgments()}
        items = [p for p in store.pool_items() if (p.query_id, p.doc_id) not in judged]
    lines = ["assessor\tquery_id\tdoc_id\tgrade"] + [
        f"alice\t{p.query_id}\t{p.doc_id}\t{max(0, truth.judgments.get(p.query_id, {}).get(p.doc_id, 0))}"
        for p in items
    ]
    sheet = tmp_path / "sheet.tsv"
    sheet.write_text("\n".join(lines) + "\n")
    done = run("judgments", "import", campaign, sheet)
    assert done.returncode == 0, done.stderr


def test_maxmean_rounds_from_the_command_line(tmp_path: Path) -> None:
    campaign = tmp_path / "mm.sqlite"
    args = ["pool", "runs/bm25.run", "runs/bm25f.run", "--strategy", "maxmean", "--budget", "100", "--total"]
    done = run(*args, "--depth", "10", "-o", campaign)
    assert done.returncode == 0, done.stderr
    assert "Budget order: 100 documents selected in" in done.stdout
    judge_by_truth(campaign, tmp_path)
    again = run(*args, "--depth", "10", "-o", campaign)
    assert again.returncode == 0, again.stderr
    assert "Round 2:" in again.stdout and "100 queued" in again.stdout
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(campaign) as store:
        assert sum(s.cost for s in store.order_steps(2)) == 100
        assert any(s.cost == 0 and s.known for s in store.order_steps(2))  # round 1's relevant finds steer it


def test_a_sampled_campaign_exports_five_columns_that_score_estimates(tmp_path: Path) -> None:
    campaign = tmp_path / "s.sqlite"
    done = run(
        "pool", "runs/bm25.run", "runs/bm25f.run", "--sample", "1-2:1,3-10:0.5", "--seed", "3", "-o", campaign
    )
    assert done.returncode == 0, done.stderr
    assert "inclusion probabilities stored" in done.stdout
    judge_by_truth(campaign, tmp_path)
    probs = tmp_path / "s.probs"
    done = run("export", campaign, "--policy", "majority", "-o", probs)
    assert done.returncode == 0, done.stderr
    lines = probs.read_text().splitlines()
    assert lines and all(len(line.split()) == 5 for line in lines)
    assert any(line.split()[3] == "-1" for line in lines)  # the sample left pooled documents unjudged
    manifest = json.loads((tmp_path / "s.probs.json").read_text())
    assert "probability" in manifest["columns"]
    done = run(
        "score",
        "runs/bm25.run",
        "runs/bm25f.run",
        "--qrels",
        probs,
        "--measures",
        "statAP P@10 RR@2 AP",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    by_run = {r["run"]: {m["measure"]: m for m in r["measures"]} for r in data["runs"]}
    assert set(by_run["bm25"]) == {"statAP", "P@10", "RR@2"}
    assert by_run["bm25"]["statAP"]["estimate"] is True and by_run["bm25"]["RR@2"]["estimate"] is False
    # known-item topics: some topic's sample met no relevant document, so statAP (a ratio, 0/0 there) cannot be
    # estimated on it: it counts 0 in the mean, its whole range [0, 1] in the interval, and the note says so;
    # P@10 (Horvitz–Thompson, linear) keeps its interval around its estimate
    stat = by_run["bm25"]["statAP"]
    assert stat["ci95_reason"] is None and stat["bounded"]
    assert all(
        stat["per_query"][q]["bounded"] and stat["per_query"][q]["value"] == 0 for q in stat["bounded"]
    )
    low, high = stat["ci95"]
    assert high - low >= min(1.0, len(stat["bounded"]) / stat["n"]) - 1e-12
    assert (
        f"{len(stat['bounded'])} of {stat['n']} topics met no relevant document in the sample" in stat["note"]
    )
    low, high = by_run["bm25"]["P@10"]["ci95"]
    assert low <= by_run["bm25"]["P@10"]["mean"] <= high
    assert data["refused"] == [
        "AP cannot be estimated from a sampled pool: it depends on which documents come first, and an unjudged "
        "one may be relevant; use infAP, statAP, infNDCG@k or P@k, or judge the top ranks in full (a stratum "
        "1-k:1) to score it exactly"
    ]
    table = run("score", "runs/bm25.run", "--qrels", probs, "--measures", "statAP")
    assert table.returncode == 0 and "statAP (est.)" in table.stdout
    assert "met no relevant document in the sample" in table.stdout
    refused = run("compare", "runs/bm25.run", "runs/bm25f.run", "--qrels", probs)
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("`correlate` checks the ranking")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategy", "maxmean"], "Error: --strategy maxmean needs --budget N (new documents per topic)"),
        (
            ["--strategy", "maxmean", "--total"],
            "Error: --total says how to read --budget N; give --budget too",
        ),
        (
            ["--strategy", "mtf", "--sample", "1-5:1"],
            "Error: --sample draws a sample: it does not go with --strategy mtf",
        ),
        (
            ["--sample", "1-5:1", "--depth", "10"],
            "Error: --depth 10 disagrees with --sample, whose strata end at rank 5",
        ),
        (
            ["--sample", "2-5:1"],
            "Error: --sample '2-5:1': '2-5:1' should start at rank 1; give contiguous rank ranges from 1 with a rate each, e.g. --sample 1-10:1,11-50:0.2",
        ),
    ],
)
def test_bad_pool_options_are_one_line_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    done = run("pool", "runs/bm25.run", *args, "-o", tmp_path / "x.sqlite")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == message
    assert not (tmp_path / "x.sqlite").exists()
