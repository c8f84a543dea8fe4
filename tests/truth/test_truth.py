"""Regex truth → qrels on hand-made topics and doc ids; the ``truth`` command's output and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.formats.qrels import read_qrels
from toolkit.formats.topics import read_topics
from toolkit.truth import build_qrels, covered_digest

TOPICS = """
[[topic]]
id = "t1"
query = "OrderedDict"
class = "canonical"
truth = [
  { pattern = '^d://collections\\.OrderedDict$', grade = 3 },
  { pattern = '^d://collections\\.', grade = 1 },
]

[[topic]]
id = "t2"
query = "typo"
truth = ['^d://colections\\.deque$']

[[topic]]
id = "t3"
query = "too broad"
truth = ['d://']

[[topic]]
id = "t4"
query = "no truth"

[[topic]]
id = "t5"
query = "half typo"
class = "deprecation"
truth = ['^d://json$', '^d://jsno$']
prefer = [{ modern = '^d://json$', legacy = '^d://simplejson$' }]
"""

IDS = ["d://collections.OrderedDict", "d://collections.deque", "d://json", "d://os", "d://collections"]


@pytest.fixture
def topics_file(tmp_path: Path) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(TOPICS, encoding="utf-8")
    return path


def test_highest_grade_wins_and_the_checks(topics_file: Path) -> None:
    result = build_qrels(read_topics(topics_file), IDS, max_matches=4)
    assert result.qrels.judgments == {
        # OrderedDict matches both patterns (3 and 1): the highest grade, 3. "d://collections" has no dot after.
        "t1": {"d://collections.OrderedDict": 3, "d://collections.deque": 1},
        "t3": {d: 1 for d in sorted(IDS)},
        "t5": {"d://json": 1},
    }
    assert result.unmatched_topics == ("t2",)
    assert result.unmatched_patterns == (("t2", r"^d://colections\.deque$"), ("t5", "^d://jsno$"))
    assert [(s.query_id, s.pattern, s.matches) for s in result.suspicious] == [("t3", "d://", 5)]
    assert result.no_truth == ("t4",)
    assert result.covered == frozenset(IDS)
    assert result.judged_topics == 3


def test_zeros_judge_every_covered_doc(topics_file: Path) -> None:
    result = build_qrels(read_topics(topics_file), IDS, zeros=True)
    assert result.qrels.judgments["t2"] == {d: 0 for d in sorted(IDS)}
    assert result.qrels.judgments["t1"]["d://os"] == 0
    assert "t4" not in result.qrels.judgments


def test_covered_digest_is_the_sha256_of_sorted_ids() -> None:
    import hashlib

    expected = hashlib.sha256(b"a\nb\n").hexdigest()  # sorted, one per line, trailing newline
    assert covered_digest(["b", "a", "b"]) == expected


def write_run(path: Path, lines: list[str]) -> None:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def test_cli_over_runs_and_doc_ids(
    topics_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_run(tmp_path / "a.run", ["t1 Q0 d://collections.OrderedDict 1 2 a", "t1 Q0 d://os 2 1 a"])
    write_run(tmp_path / "b.run", ["t5 Q0 d://json 1 1 b"])
    (tmp_path / "ids.txt").write_text(
        "# corpus\nd://collections.deque\n\nd://collections\n", encoding="utf-8"
    )
    result = CliRunner().invoke(
        main,
        [
            "truth",
            "--topics",
            str(topics_file),
            "--runs",
            "a.run",
            "b.run",
            "--doc-ids",
            "ids.txt",
            "-o",
            "qrels/x.qrels",
            "--max-matches",
            "4",
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        "Warning: 1 pattern(s) of topics that did match found no covered doc: t5 '^d://jsno$'",
        "Warning: 1 topic(s) matched no covered doc (a typo in the regex, or the doc is not in the runs/ids): t2",
        "Warning: topic t3: pattern 'd://' matched 5 docs (more than 4); is it missing an anchor (^…$) or an escaped dot (\\.)?",
        "Warning: 1 topic(s) have no truth: t4",
        "Wrote qrels/x.qrels: 8 judgments, 3 of 5 topics with a relevant doc, 5 docs covered",
    ]
    qrels = read_qrels(tmp_path / "qrels" / "x.qrels")
    assert qrels.judgments["t1"] == {"d://collections.OrderedDict": 3, "d://collections.deque": 1}
    manifest = json.loads((tmp_path / "qrels" / "x.qrels.json").read_text())
    assert manifest["kind"] == "qrels"
    assert manifest["covered_docs"] == 5
    assert manifest["covered_sha256"] == covered_digest(IDS)
    assert set(manifest["inputs"]) == {"topics", "run1", "run2", "doc_ids"}
    assert manifest["unmatched_topics"] == ["t2"]
    assert manifest["suspicious_patterns"] == [{"query_id": "t3", "pattern": "d://", "matches": 5}]
    assert manifest["preference_topics"] == ["t5"]


def test_cli_strict_and_stdout(topics_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_run(tmp_path / "a.run", ["t1 Q0 d://collections.OrderedDict 1 2 a"])
    result = CliRunner().invoke(main, ["truth", "--topics", str(topics_file), "a.run", "--strict"])
    assert result.exit_code == 3
    assert result.stdout == "t1 0 d://collections.OrderedDict 3\nt3 0 d://collections.OrderedDict 1\n"
    assert result.stderr.splitlines()[-1] == "Error: truth check failed (--strict): see the warnings above"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["truth", "--topics", "t.toml"],
            2,
            "Error: nothing to judge: give --runs RUN… and/or --doc-ids FILE (or declare [docs] ids)",
        ),
        (
            ["truth", "--doc-ids", "ids.txt"],
            2,
            "Error: no topic set: pass --topics PATH or set [workspace] topics in toolkit.toml",
        ),
        (
            ["truth", "--topics", "t.toml", "--doc-ids", "bad.txt"],
            1,
            "Error: bad.txt:2: expected one doc id per line, found 'two words' (doc ids have no spaces)",
        ),
        (
            ["truth", "--topics", "t.toml", "--doc-ids", "ids.txt", "--max-matches", "0"],
            2,
            "Error: --max-matches must be at least 1, not 0",
        ),
        (
            ["truth", "--topics", "t.toml", "missing.run"],
            1,
            "Error: missing.run: file not found; check the path",
        ),
    ],
)
def test_cli_errors(
    topics_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    code: int,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ids.txt").write_text("d://json\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_text("d://json\ntwo words\n", encoding="utf-8")
    result = CliRunner().invoke(main, args)
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (code, message)


@pytest.mark.parametrize(
    "ids_spec",
    ['"corpus-ids.txt"', """["{python}", "-c", "print('d://json'); print('d://collections.deque')"]"""],
)
def test_docs_ids_of_the_workspace_cover_the_corpus(
    topics_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ids_spec: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus-ids.txt").write_text("d://json\nd://collections.deque\n", encoding="utf-8")
    (tmp_path / "toolkit.toml").write_text(f"[docs]\nids = {ids_spec}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["truth", "--topics", str(topics_file), "-o", "q.qrels"])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "q.qrels").read_text() == (
        "t1 0 d://collections.deque 1\nt3 0 d://collections.deque 1\nt3 0 d://json 1\nt5 0 d://json 1\n"
    )
    assert json.loads((tmp_path / "q.qrels.json").read_text())["doc_ids_from"].startswith("[docs] ids: ")
    only = CliRunner().invoke(main, ["truth", "--topics", str(topics_file), "--runs-only"])
    assert only.exit_code == 2


def test_docs_ids_command_failure(topics_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "toolkit.toml").write_text(
        '[docs]\nids = ["{python}", "-c", "import sys; sys.exit(\'no corpus\')"]\n', encoding="utf-8"
    )
    result = CliRunner().invoke(main, ["truth", "--topics", str(topics_file)])
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: {tmp_path / 'toolkit.toml'}: [docs] ids command exited with 1: no corpus\n",
    )
