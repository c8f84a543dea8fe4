"""``trec-toolkit score`` end to end: exact outputs, trec_eval's numbers, warnings, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.imports import console_script_imports

from toolkit.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
RUN = str(DATA / "results.test")
QRELS = str(DATA / "qrels.test")


def trec_eval_values(name: str) -> dict[tuple[str, str], str]:
    """``(measure, query_id) → printed value`` from trec_eval's own output file."""
    out = {}
    for line in (DATA / name).read_text().splitlines():
        measure, query_id, value = (p.strip() for p in line.split("\t"))
        out[(measure, query_id)] = value
    return out


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["score", *args])
    return result.exit_code, result.stdout, result.stderr


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkit", "score", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def test_trec_format_reproduces_trec_eval_q() -> None:
    code, out, err = invoke(
        RUN, "--qrels", QRELS, "--measures", "P.5 map recip_rank num_rel", "--format", "trec", "--per-query"
    )
    assert code == 0, err
    lines = (DATA / "out.test.aq").read_text().splitlines()
    names = ("P_5 ", "map ", "recip_rank ", "num_rel ")  # trec_eval's names and layout, topic by topic
    expected = [line for line in lines if line.startswith(names) and "\tall\t" not in line]
    expected += ["runid                 \tall\tresults.test"]
    expected += [line for line in lines if line.startswith(names) and "\tall\t" in line]
    assert out.splitlines() == expected


def test_table_default_measures_and_n() -> None:
    code, out, _ = invoke(RUN, "--qrels", QRELS, "--measures", "P@5, AP")
    want = trec_eval_values("out.test.aq")
    assert code == 0
    assert out.splitlines() == [
        "run           topic  n  empty     P@5      AP",
        f"results.test  all    3      0  {want[('P_5', 'all')]}  {want[('map', 'all')]}",
    ]


def test_json_schema_unrounded_with_versions() -> None:
    code, out, _ = invoke(RUN, "--qrels", QRELS, "--measures", "map ndcg_cut.10", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"schema_version", "measures", "providers", "runs", "versions"}
    assert doc["schema_version"] == 3 and doc["measures"] == ["AP", "nDCG@10"]
    assert {"python", "pytrec-eval-terrier", "ir-measures"} <= set(doc["versions"])
    (run,) = doc["runs"]
    assert set(run) == {
        "run",
        "path",
        "n",
        "empty",
        "ignored",
        "aggregate",
        "per_query",
        "by_class",
        "refusal",
    }
    assert run["refusal"]["refusal"] is None  # no topic set: nothing declared expect = "empty"
    assert run["refusal"]["refusal_reason"].startswith("no topic set")
    assert run["n"] == 3 and run["empty"] == [] and list(run["per_query"]) == ["301", "302", "303"]
    want = trec_eval_values("out.test.aq")
    assert f"{run['aggregate']['AP']:.4f}" == want[("map", "all")]
    assert f"{run['per_query']['302']['nDCG@10']:.4f}" == want[("ndcg_cut_10", "302")]
    assert len(repr(run["aggregate"]["AP"])) > 8  # not rounded to 4 decimals


def test_csv_and_output_file(tmp_path: Path) -> None:
    target = tmp_path / "scores.csv"
    code, out, err = invoke(
        RUN, "--qrels", QRELS, "--measures", "P@5", "--format", "csv", "--per-query", "-o", str(target)
    )
    assert code == 0 and out == "" and err == f"Wrote {target}\n"
    rows = target.read_text().splitlines()
    # P@5 per topic from out.test.aq: 0.0000, 0.8000, 0.0000 → 0, 4/5, 0 relevant in the top 5
    assert rows == [
        "run,scope,id,n,P@5",
        f"results.test,all,all,3,{4 / 5 / 3!r}",
        "results.test,query,301,1,0.0",
        "results.test,query,302,1,0.8",
        "results.test,query,303,1,0.0",
    ]


def test_topics_by_class_empty_and_ignored(tmp_path: Path) -> None:
    run = tmp_path / "sys.run"
    run.write_text("a Q0 d1 1 2 s\na Q0 d2 2 1 s\nb Q0 d9 1 1 s\nzz Q0 d1 1 1 s\n")
    qrels = tmp_path / "t.qrels"
    qrels.write_text("a 0 d2 1\nb 0 d9 1\nc 0 d1 1\n")
    topics = tmp_path / "t.toml"
    topics.write_text(
        '[[topic]]\nid = "a"\nquery = "x"\nclass = "canonical"\n'
        '[[topic]]\nid = "b"\nquery = "y"\nclass = "canonical"\n'
        '[[topic]]\nid = "c"\nquery = "z"\nclass = "attribute"\n'
    )
    proc = cli(str(run), "--qrels", str(qrels), "--topics", str(topics), "--by-class", "--per-query")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "Warning: run sys: 1 topic(s) not in the topic set ignored (zz)\n"
    # canonical: RR@10 P@1 — a: d2 at rank 2 → RR 0.5, P@1 0; b: d9 at rank 1 → 1, 1
    # attribute: P@5 P@10 — c has no results: 0 (empty)
    assert proc.stdout.splitlines() == [
        "run  topic            n  empty   RR@10     P@1     P@5    P@10",
        "sys  all              3      1  0.5000  0.3333  0.1333  0.0667",
        "sys  class:canonical  2         0.7500  0.5000       -       -",
        "sys  class:attribute  1              -       -  0.0000  0.0000",
        "sys  a                1         0.5000  0.0000  0.2000  0.1000",
        "sys  b                1         1.0000  1.0000  0.2000  0.1000",
        "sys  c                1      1  0.0000  0.0000  0.0000  0.0000",
    ]


def test_judged_warning_with_human_qrels(tmp_path: Path) -> None:
    run = tmp_path / "new.run"
    run.write_text("q Q0 judged 1 3 s\nq Q0 unseen 2 2 s\n")
    qrels = tmp_path / "h.qrels"
    qrels.write_text("q 0 judged 1\nq 0 other 0\n")  # a judged non-relevant doc: pooled human qrels
    proc = cli(str(run), "--qrels", str(qrels), "--measures", "P@5", "--format", "trec")
    assert proc.returncode == 0
    assert proc.stderr == (
        "Warning: run new: Judged@5 = 0.5000; 1 of 1 topics have unjudged docs in the top 5, "
        "scored as non-relevant (judge deeper: trec-toolkit pool)\n"
    )
    assert proc.stdout == "runid                 \tall\tnew\nP_5                   \tall\t0.2000\n"


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (
            "q Q0 a 1 1.0 s\nq Q0 b 2\n",
            "2: expected 6 columns (query_id Q0 doc_id rank score run_tag), found 4",
        ),
        ("q Q0 a 1 x s\n", "1: expected a numeric score in column 5, found 'x'"),
        (
            "q Q0 a 1 1 s\nq Q0 a 2 0 s\n",
            "2: duplicate doc 'a' for query 'q'; each doc may appear once per query",
        ),
    ],
)
def test_bad_run_is_one_line_error(tmp_path: Path, body: str, line: str) -> None:
    run = tmp_path / "bad.run"
    run.write_text(body)
    proc = cli(str(run), "--qrels", QRELS)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr == f"Error: {run}:{line}\n"


def test_bad_qrels_and_missing_files(tmp_path: Path) -> None:
    qrels = tmp_path / "bad.qrels"
    qrels.write_text("q 0 a 1\nq 0 b high\n")
    proc = cli(RUN, "--qrels", str(qrels))
    assert (proc.returncode, proc.stderr) == (
        1,
        f"Error: {qrels}:2: expected an integer relevance in column 4, found 'high'\n",
    )
    proc = cli(str(tmp_path / "none.run"), "--qrels", QRELS)
    assert (proc.returncode, proc.stderr) == (
        1,
        f"Error: {tmp_path / 'none.run'}: file not found; check the path\n",
    )
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tx\nq1\ty\n")
    proc = cli(RUN, "--qrels", QRELS, "--topics", str(topics))
    assert (proc.returncode, proc.stderr) == (
        1,
        f"Error: {topics}:2: duplicate topic id 'q1'; topic ids must be unique\n",
    )


def test_usage_errors_exit_2() -> None:
    code, _, err = invoke(RUN, "--qrels", QRELS, "--measures", "P@5 mapp")
    assert code == 2
    assert err.startswith("Error: unknown measure 'mapp'; did you mean 'map'? use ir_measures syntax")
    code, _, err = invoke(RUN, "--qrels", QRELS, "--by-class")
    assert (code, err) == (
        2,
        "Error: --by-class needs a topic set (it names each topic's class): pass --topics or set [workspace] topics\n",
    )
    code, _, err = invoke(RUN, "--qrels", QRELS, "--topics", str(DATA / "missing.toml"), "--format", "trec")
    assert (code, err) == (1, f"Error: {DATA / 'missing.toml'}: file not found; check the path\n")


def test_tsv_and_trec_by_class_refused(tmp_path: Path) -> None:
    topics = tmp_path / "t.tsv"
    topics.write_text("301\ta\n302\tb\n303\tc\n")
    code, _, err = invoke(RUN, "--qrels", QRELS, "--topics", str(topics), "--by-class", "--format", "trec")
    assert (code, err) == (
        2,
        "Error: --by-class is not available with --format trec; use table, md, html, json, csv or tsv\n",
    )
    code, out, _ = invoke(
        RUN, "--qrels", QRELS, "--topics", str(topics), "--by-class", "--format", "tsv", "--measures", "P@5"
    )
    # the TSV topic set has no classes: every topic is 'unclassified'; P@5 from out.test.aq is 0, 0.8, 0
    assert out.splitlines() == [
        "run\tscope\tid\tn\tP@5",
        f"results.test\tall\tall\t3\t{0.8 / 3!r}",
        f"results.test\tclass\tunclassified\t3\t{0.8 / 3!r}",
    ]


def test_help_has_examples() -> None:
    code, out, _ = invoke("--help")
    assert code == 0
    assert "trec-toolkit score runs/bm25.run --qrels qrels/stdlib.qrels" in out
    assert "--per-query" in out and "--by-class" in out


#: What ``score`` on small files has no need of: the statistics package, the system runners (HTTP, SSL), pooling,
#: judging, agreement and the TUI, the scientific libraries around them, and the TOML parser and package metadata
#: (only TOML topics and ``--format json`` need those); pyarrow, since files this small are read line by line
#: (``toolkit.formats.limits.SMALL_FILE``), and numpy, since so few results are scored by the measure table's
#: reference ports on plain lists (``toolkit.scoring.kernels.ListBatch``), not by its numpy kernels.
UNNEEDED_BY_SCORE = (
    "pyarrow",
    "numpy",
    "toolkit.stats",
    "toolkit.systems",
    "toolkit.pooling",
    "toolkit.judging",
    "toolkit.agreement",
    "toolkit.tui",
    "scipy",
    "pandas",
    "statsmodels",
    "sklearn",
    "krippendorff",
    "textual",
    "rich",
    "matplotlib",
    "psycopg",
    "sqlite3",
    "ssl",
    "http",
    "email",
    "importlib.metadata",
    "tomllib",
)


def _imported_by_console_script(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The installed ``trec-toolkit`` under ``-X importtime`` in ``cwd`` (outside a workspace: a
    ``toolkit.toml`` needs the TOML parser): its result, and every module loaded."""
    proc, modules = console_script_imports(*args, cwd=cwd)
    assert "toolkit.scoring.evaluate" in modules  # the probe saw the command at work
    return proc, modules


def _small_files(tmp_path: Path) -> tuple[Path, Path]:
    """A 50-topic × 10-doc run and its qrels: one relevant doc a topic, at rank 10 - q % 10."""
    run = tmp_path / "s.run"
    run.write_text("".join(f"q{q} Q0 d{d} {d} {10 - d} s\n" for q in range(50) for d in range(10)))
    qrels = tmp_path / "s.qrels"
    qrels.write_text("".join(f"q{q} 0 d{q % 10} 1\n" for q in range(50)))
    return run, qrels


def _unneeded(modules: set[str], unneeded: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in unneeded))


@pytest.mark.parametrize(
    ("with_topics", "fmt"),
    [(False, "table"), (True, "table"), (False, "trec"), (False, "csv"), (False, "md"), (False, "html")],
)
def test_score_on_small_files_imports_only_what_it_needs(tmp_path: Path, with_topics: bool, fmt: str) -> None:
    """People call ``score`` in loops; a 50-topic × 10-doc run must not pay for numpy, pyarrow, the
    statistics package, the system runners or any other library its work does not use."""
    run, qrels = _small_files(tmp_path)
    args = ["score", str(run), "--qrels", str(qrels), "--per-query", "--format", fmt]
    if with_topics:
        (tmp_path / "t.tsv").write_text("".join(f"q{q}\tquery {q}\n" for q in range(50)))
        args += ["--topics", str(tmp_path / "t.tsv")]
    proc, modules = _imported_by_console_script(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    if fmt == "table":
        assert proc.stdout.splitlines()[1].split()[:4] == ["s", "all", "50", "0"]
    if fmt == "trec":  # AP of q7: its one relevant doc d7 is ranked 8th (scores 10 - d, no ties), 1/8
        assert "map                   \tq7\t0.1250" in proc.stdout
    assert _unneeded(modules, UNNEEDED_BY_SCORE) == []


def test_trec_eval_drop_in_on_small_files_imports_only_what_it_needs(tmp_path: Path) -> None:
    """The drop-in on small files: the reference loop reads and scores them, without numpy or pyarrow."""
    run, qrels = _small_files(tmp_path)
    script = Path(sys.executable).with_name("trec-toolkit")
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            str(script),
            "trec_eval",
            "-q",
            "-m",
            "all_trec",
            str(qrels),
            str(run),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "imported package" not in line
    }
    assert "toolkit.treceval.evaluate" in modules  # the probe saw the command at work
    # q7's relevant doc d7 is ranked 8th (scores 10 - d, no ties): 1/8
    assert "recip_rank            \tq7\t0.1250" in proc.stdout
    assert _unneeded(modules, UNNEEDED_BY_SCORE) == []


def test_score_json_records_versions(tmp_path: Path) -> None:
    """The one format that records library versions reads them from the installed distributions' folder names,
    the versions ``importlib.metadata`` gives, without importing it (nor numpy, pyarrow …)."""
    run = tmp_path / "s.run"
    run.write_text("q1 Q0 d1 1 1 s\n")
    qrels = tmp_path / "s.qrels"
    qrels.write_text("q1 0 d1 1\n")
    proc, modules = _imported_by_console_script(
        "score", str(run), "--qrels", str(qrels), "--format", "json", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    from importlib import metadata

    from toolkit.formats.manifest import _VERSIONED

    versions = json.loads(proc.stdout)["versions"]
    assert {d: versions.get(d) for d in _VERSIONED} == {d: metadata.version(d) for d in _VERSIONED}
    assert _unneeded(modules, UNNEEDED_BY_SCORE) == []


def test_versions_not_found_by_folder_name_come_from_importlib_metadata(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from importlib import metadata

    from toolkit.formats import manifest

    monkeypatch.setattr(manifest, "_dist_info_versions", lambda names: {})
    got = manifest.versions(extra=("click", "no-such-distribution-here"))
    assert got["click"] == metadata.version("click")
    assert got["ir-measures"] == metadata.version("ir-measures")
    assert "no-such-distribution-here" not in got
