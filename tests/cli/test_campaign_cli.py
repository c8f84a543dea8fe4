"""The campaign commands end to end through the real CLI: pool → assign → judgments import/export → export.

Runs in a temporary folder without a toolkit.toml, so every input is given on the command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.judging.store import CampaignStore


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("topics.tsv").write_text("q-1\tapple pie\n202\tbanana bread\n")
    Path("a.run").write_text(
        "q-1 Q0 d1 1 3.0 a\nq-1 Q0 d2 2 2.0 a\nq-1 Q0 d3 3 1.0 a\n202 Q0 d4 1 2.0 a\n202 Q0 d5 2 1.0 a\n"
    )
    Path("b.run").write_text("q-1 Q0 d3 1 3.0 b\nq-1 Q0 d6 2 2.0 b\n202 Q0 d5 1 2.0 b\n202 Q0 d7 2 1.0 b\n")
    Path("docs.jsonl").write_text(
        "".join(
            json.dumps({"doc_id": d, "title": f"T {d}", "text": f"text of {d}"}) + "\n"
            for d in ["d1", "d2", "d3", "d4", "d5", "d6"]
        )
    )
    return tmp_path


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_pool_assign_import_export(ws: Path) -> None:
    r = cli(
        "pool",
        "a.run",
        "b.run",
        "--topics",
        "topics.tsv",
        "--depth",
        "2",
        "--docs",
        "docs.jsonl",
        "-o",
        "judging/c.sqlite",
    )
    assert r.exit_code == 0, r.output
    # q-1: d1 d2 (a) d3 d6 (b); 202: d4 d5 (a) d5 d7 (b) → 7 items, d7 not in the corpus
    assert r.stdout == (
        "Round 1: 2 topics, 7 pooled, 7 queued (0 stale), 0 already judged, 0 already queued, "
        "1 fetch failures -> judging/c.sqlite\n"
    )
    assert r.stderr == (
        "Warning: could not fetch 1 document(s): d7\n"
        "Next: 7 items are not assigned to anyone; share them out with\n"
        "  trec-toolkit assign judging/c.sqlite --assessors NAME,NAME --overlap 0.2\n"
    )

    r = cli("assign", "judging/c.sqlite", "--assessors", "alice,bob", "--overlap", "0.5", "--seed", "3")
    assert r.exit_code == 0, r.output
    # q-1 (4 items) → alice, 202 (3) → bob; overlap round(0.5×4) = 2 to bob, round(0.5×3) = round(1.5) = 2 to alice
    assert r.stdout == (
        "alice: 6 new items in 2 topics (1 owned)\nbob: 5 new items in 2 topics (1 owned)\n"
        "Assigned 11 items (4 overlap, 0 gold per assessor), seed 3\n"
    )

    Path("j.tsv").write_text(
        "alice\tq-1\td1\t3\nbob\tq-1\td1\t1\nalice\t202\td4\tunrateable\nbob\t202\td5\t2\n"
    )
    r = cli("judgments", "import", "judging/c.sqlite", "j.tsv")
    assert (r.exit_code, r.stdout) == (0, "Imported 4 judgments into judging/c.sqlite\n")

    r = cli("judgments", "export", "judging/c.sqlite")
    assert r.stdout == (
        "assessor\tquery_id\tdoc_id\tgrade\tnote\tduration_ms\nalice\tq-1\td1\t3\t\t\nbob\tq-1\td1\t1\t\t\n"
        "alice\t202\td4\tunrateable\t\t\nbob\t202\td5\t2\t\t\n"
    )
    r = cli("judgments", "export", "judging/c.sqlite", "--log", "--format", "jsonl")
    assert [json.loads(line)["action"] for line in r.stdout.splitlines()] == [
        "judge",
        "judge",
        "unrateable",
        "judge",
    ]

    # mean of 3 and 1 = 2; d5 = 2; d4 unrateable only → unjudged → -1
    r = cli("export", "judging/c.sqlite", "--policy", "mean", "--unjudged", "-1", "-o", "qrels/h.qrels")
    assert (r.exit_code, r.stderr) == (0, "Wrote qrels/h.qrels\n"), r.output
    assert Path("qrels/h.qrels").read_text() == (
        "q-1 0 d1 2\nq-1 0 d2 -1\nq-1 0 d3 -1\nq-1 0 d6 -1\n202 0 d4 -1\n202 0 d5 2\n202 0 d7 -1\n"
    )
    manifest = json.loads(Path("qrels/h.qrels.json").read_text())
    assert manifest["kind"] == "qrels" and manifest["policy"] == "mean"
    assert manifest["counts"]["graded"] == 2 and manifest["counts"]["unjudged"] == 5
    assert manifest["agreement"]["pairs"][0]["n"] == 1

    r = cli("export", "judging/c.sqlite", "--policy", "assessor=alice")
    assert (r.exit_code, r.stdout) == (0, "q-1 0 d1 3\n")


def test_second_round_reports_judged_docs(ws: Path) -> None:
    cli("pool", "a.run", "--topics", "topics.tsv", "--depth", "1", "--docs", "docs.jsonl", "-o", "c.sqlite")
    Path("j.tsv").write_text("alice\tq-1\td1\t3\n")
    assert cli("judgments", "import", "c.sqlite", "j.tsv").exit_code == 0
    r = cli(
        "pool",
        "a.run",
        "b.run",
        "--topics",
        "topics.tsv",
        "--depth",
        "1",
        "--docs",
        "docs.jsonl",
        "-o",
        "c.sqlite",
    )
    # depth 1: q-1 d1 (judged, unchanged) d3 (new); 202 d4 (queued in round 1) d5 (new)
    assert r.stdout == (
        "Round 2: 2 topics, 4 pooled, 2 queued (0 stale), 1 already judged, 1 already queued, "
        "0 fetch failures -> c.sqlite\n"
    )
    with CampaignStore.open("c.sqlite") as store:
        assert [x.number for x in store.rounds()] == [1, 2]


def pool_cli(*runs: str, depth: str = "1") -> object:
    return cli(
        "pool", *runs, "--topics", "topics.tsv", "--depth", depth, "--docs", "docs.jsonl", "-o", "c.sqlite"
    )


def test_a_round_on_an_assigned_campaign_assigns_its_new_items_by_the_recorded_policy(ws: Path) -> None:
    pool_cli("a.run")  # q-1: d1; 202: d4
    r = cli("assign", "c.sqlite", "--assessors", "alice, bob", "--overlap", "0", "--seed", "5")
    # both topics have one item: q-1 → alice (first of equals), 202 → bob (least loaded)
    assert r.stdout == (
        "alice: 1 new items in 1 topics (1 owned)\nbob: 1 new items in 1 topics (1 owned)\n"
        "Assigned 2 items (0 overlap, 0 gold per assessor), seed 5\n"
    )
    r = pool_cli("a.run", "b.run")  # new: q-1 d3 (b's first), 202 d5 (b's first)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[1:] == ["Assigned 2 items by the campaign's policy: alice 1, bob 1"]
    assert r.stderr == ""
    with CampaignStore.open("c.sqlite") as store:
        assert {(i.query_id, i.doc_id) for i in store.queue("alice")} == {("q-1", "d1"), ("q-1", "d3")}
        assert {(i.query_id, i.doc_id) for i in store.queue("bob")} == {("202", "d4"), ("202", "d5")}
    # the same assign again changes nothing
    r = cli("assign", "c.sqlite", "--assessors", "alice,bob", "--overlap", "0", "--seed", "5")
    assert r.stdout == (
        "alice: 0 new items in 0 topics (1 owned)\nbob: 0 new items in 0 topics (1 owned)\n"
        "Nothing new to assign: every pool item already has its assessors\n"
    )


def test_a_round_without_a_recorded_policy_says_the_assign_command(ws: Path) -> None:
    from toolkit.judging.records import Item

    pool_cli("a.run")
    with CampaignStore.open("c.sqlite") as store:  # assigned by hand, as a campaign from before policies
        store.add_assignments([Item("carol", "q-1", "d1", 0), Item("dave", "202", "d4", 0)])
    r = pool_cli("a.run", "b.run")
    assert r.stderr == (
        "Next: 2 items are not assigned to anyone; share them out with\n"
        "  trec-toolkit assign c.sqlite --assessors carol,dave --overlap 0.2\n"
    )


def test_assessor_names_are_trimmed_and_near_duplicates_warned(ws: Path) -> None:
    pool_cli("a.run", "b.run", depth="2")
    assert cli("assign", "c.sqlite", "--assessors", "alice,bob").exit_code == 0
    pool_cli("a.run", "b.run", depth="3")
    r = cli("assign", "c.sqlite", "--assessors", " alice , Bob ")
    assert r.exit_code == 0, r.output
    assert r.stderr.startswith(
        "Warning: assessor 'Bob' looks like 'bob' (names are matched exactly, so 'Bob' is another person"
    )
    assert "Bob: " in r.stdout and "alice: " in r.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["pool", "a.run", "--docs", "docs.jsonl", "-o", "c.sqlite"],
            2,
            "Error: no topic set: pass --topics PATH or set [workspace] topics in toolkit.toml\n",
        ),
        (
            ["pool", "a.run", "--topics", "topics.tsv", "-o", "c.sqlite"],
            2,
            'Error: no doc source: pass --docs FILE.jsonl|FILE.tsv|DIR, or set [docs] command = [..., "{doc_id}"] '
            "in toolkit.toml\n",
        ),
        (
            [
                "pool",
                "a.run",
                "--topics",
                "topics.tsv",
                "--docs",
                "docs.jsonl",
                "--strategy",
                "mtf",
                "-o",
                "c.sqlite",
            ],
            2,
            "Error: --strategy mtf needs --budget N (new documents per topic)\n",
        ),
        (
            [
                "pool",
                "a.run",
                "--topics",
                "topics.tsv",
                "--docs",
                "docs.jsonl",
                "--budget",
                "3",
                "-o",
                "c.sqlite",
            ],
            2,
            "Error: --budget applies to --strategy mtf, maxmean or sample only\n",
        ),
        (
            ["pool", "a.run", "a.run", "--topics", "topics.tsv", "--docs", "docs.jsonl", "-o", "c.sqlite"],
            2,
            "Error: two runs are named 'a'; rename one file so provenance can tell them apart\n",
        ),
        (
            ["pool", "a.run", "--topics", "nope.tsv", "--docs", "docs.jsonl", "-o", "c.sqlite"],
            1,
            "Error: nope.tsv: file not found; check the path\n",
        ),
        (
            ["assign", "none.sqlite", "--assessors", "a"],
            1,
            "Error: none.sqlite: no such campaign; create one with `trec-toolkit pool RUN… -o none.sqlite`\n",
        ),
        (
            ["export", "none.sqlite", "--policy", "max"],
            1,
            "Error: none.sqlite: no such campaign; create one with `trec-toolkit pool RUN… -o none.sqlite`\n",
        ),
        (
            ["judgments", "export", "none.sqlite"],
            1,
            "Error: none.sqlite: no such campaign; create one with `trec-toolkit pool RUN… -o none.sqlite`\n",
        ),
    ],
)
def test_usage_errors(ws: Path, args: list[str], code: int, message: str) -> None:
    r = cli(*args)
    assert (r.exit_code, r.stderr) == (code, message)
    assert not Path("c.sqlite").exists()


def test_campaign_level_errors(ws: Path) -> None:
    cli("pool", "a.run", "--topics", "topics.tsv", "--depth", "1", "--docs", "docs.jsonl", "-o", "c.sqlite")
    r = cli("assign", "c.sqlite", "--assessors", "alice", "--overlap", "0.3")
    assert (r.exit_code, r.stderr) == (
        2,
        "Error: --overlap needs at least two assessors to give an item to a second one\n",
    )
    r = cli("assign", "c.sqlite", "--assessors", "alice,bob", "--overlap", "2")
    assert (r.exit_code, r.stderr) == (
        2,
        "Error: --overlap 2: expected a fraction between 0 and 1, or 'all'\n",
    )
    r = cli("export", "c.sqlite", "--policy", "median")
    assert (r.exit_code, r.stderr) == (
        2,
        "Error: --policy median: use one of adjudicated, majority, mean, max, min, assessor=NAME\n",
    )
    r = cli("export", "c.sqlite", "--policy", "max")
    assert (r.exit_code, r.stderr) == (
        1,
        "Error: c.sqlite: no graded judgments under policy max; nothing to export\n",
    )
    Path("bad.tsv").write_text("alice\tq-1\td1\t2\nalice\tq-1\td1\t3\n")
    r = cli("judgments", "import", "c.sqlite", "bad.tsv")
    assert (r.exit_code, r.stderr) == (
        1,
        "Error: bad.tsv:2: duplicate judgment by alice of (q-1, d1); first on line 1 "
        "(keep one line per assessor and item)\n",
    )
    Path("bad.tsv").write_text("alice\tq-1\td1\t2\nalice\t202\td4\t9\n")
    r = cli("judgments", "import", "c.sqlite", "bad.tsv")
    assert (r.exit_code, r.stderr) == (
        1,
        "Error: bad.tsv:2: grade 9 is not on the campaign's scale (0, 1, 2, 3)\n",
    )
    with CampaignStore.open("c.sqlite") as store:
        assert store.log() == []  # never half-imported


def test_mtf_pool_and_gold_through_the_cli(ws: Path) -> None:
    r = cli(
        "pool", "a.run", "b.run", "--topics", "topics.tsv", "--strategy", "mtf", "--budget", "2",
        "--docs", "docs.jsonl", "-o", "c.sqlite",
    )  # fmt: skip
    # q-1: a → d1, b → d3 (round-robin by rank); 202: a → d4, b → d5
    assert r.stdout.startswith("Round 1: 2 topics, 4 pooled, 4 queued (0 stale)"), r.output
    with CampaignStore.open("c.sqlite") as store:
        assert [(p.query_id, p.doc_id) for p in store.pool_items()] == [
            ("q-1", "d1"), ("q-1", "d3"), ("202", "d4"), ("202", "d5")
        ]  # fmt: skip
        assert store.rounds()[0].budget == 2
    Path("gold.tsv").write_text("q-1\td6\t0\n")  # d6 is not pooled: fetched from --docs
    r = cli("assign", "c.sqlite", "--assessors", "alice,bob", "--gold", "gold.tsv", "--docs", "docs.jsonl")
    assert r.exit_code == 0, r.output
    assert r.stdout.endswith("Assigned 6 items (0 overlap, 1 gold per assessor), seed 0\n")
    with CampaignStore.open("c.sqlite") as store:
        assert store.document("d6").text == "text of d6"
        for name in ("alice", "bob"):
            assert [(i.doc_id, i.gold) for i in store.queue(name) if i.gold] == [("d6", True)]
    Path("gold.tsv").write_text("q-1\tnowhere\t1\n")
    r = cli("assign", "c.sqlite", "--assessors", "alice,bob", "--gold", "gold.tsv", "--docs", "docs.jsonl")
    assert (r.exit_code, r.stderr) == (
        2, "Error: gold document(s) without a snapshot: nowhere (not in docs.jsonl); pool them first or pass --docs\n"
    )  # fmt: skip


def test_score_with_a_campaign_for_qrels_says_to_export_first(ws: Path) -> None:
    pool_cli("a.run")
    r = cli("score", "a.run", "--qrels", "c.sqlite")
    assert (r.exit_code, r.stderr) == (
        1,
        "Error: c.sqlite: this is a campaign; export qrels first: trec-toolkit export c.sqlite -o qrels/c-human.qrels\n",
    )
