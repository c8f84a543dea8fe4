"""The drop-in and ``score`` against trec_eval 10's committed answers, on every machine (docs/trec_eval.md).

``tests/data/trec_eval/corpus.jsonl.xz`` holds several hundred cases with what trec_eval 10 printed for them
(``tests/trec_corpus.py``; made by ``tests/data/trec_eval/generate.py``, which builds trec_eval from its source).
The drop-in must print trec_eval's stdout byte for byte and exit with its code — or, where it refuses on purpose
(docs/trec_eval.md), exit with the recorded code and one ``Error:`` line. ``score`` must print trec_eval's
values. Where trec_eval can be built here, the last test runs it on every case again and requires the
committed answers: the corpus is trec_eval's, not something to edit by hand.
"""

from __future__ import annotations

import gzip
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner
from trec_corpus import STDIN, Case, read_corpus, run_case, trec_lines

from toolkit.cli import main

CASES = read_corpus()
BY_NAME = {case.name: case for case in CASES}


def run_drop_in(case: Case, folder: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    case.write(folder, packed=True)
    monkeypatch.chdir(folder)
    return CliRunner().invoke(main, ["trec_eval", *case.args], input=case.toolkit_stdin())


@pytest.mark.parametrize("name", list(BY_NAME))
def test_drop_in_prints_what_trec_eval_printed(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = BY_NAME[name]
    got = run_drop_in(case, tmp_path, monkeypatch)
    if (
        case.drop_in_exit is not None
    ):  # refused on purpose: trec_eval crashes, reads garbage, or is not reproduced
        assert got.exit_code == case.drop_in_exit, got.stderr
        errors = [line for line in got.stderr.splitlines() if not line.startswith("Warning: ")]
        assert len(errors) == 1 and errors[0].startswith("Error: "), got.stderr
        return
    assert got.exit_code == case.exit, f"trec_eval said {case.stderr!r}; the drop-in {got.stderr!r}"
    assert got.stdout_bytes == case.stdout, f"trec_eval said {case.stderr!r}; the drop-in {got.stderr!r}"
    if case.exit > 0:
        assert got.stderr.splitlines()[-1].startswith("Error: "), got.stderr


SCORED = [case.name for case in CASES if case.score]


@pytest.mark.parametrize("name", SCORED)
def test_score_prints_trec_eval_values(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = BY_NAME[name]
    assert case.score is not None and case.exit == 0
    case.write(tmp_path, packed=True)
    monkeypatch.chdir(tmp_path)
    qrels, run = case.args[-2:]
    measures = " ".join(case.score)
    got = CliRunner().invoke(
        main, ["score", run, "--qrels", qrels, "--measures", measures, "--format", "trec", "--per-query"]
    )
    assert got.exit_code == 0, got.stderr
    ours, theirs = trec_lines(got.stdout_bytes), trec_lines(case.stdout)
    topics = {topic for _, topic in theirs}
    checked = 0
    for printed, trec_name in case.score.values():
        for topic in topics:
            if (trec_name, topic) in theirs:
                assert ours.get((printed, topic)) == theirs[(trec_name, topic)], (printed, topic)
                checked += 1
    assert checked >= len(case.score)


def test_the_corpus_covers_every_option_layout_and_measure() -> None:
    families = Counter(case.family for case in CASES)
    assert len(CASES) >= 500 and min(families.values()) >= 2, families
    letters = {a[1] for case in CASES for a in case.args if a.startswith("-") and len(a) > 1 and a[1] != "-"}
    assert set("qcnJlMNmDoZRTv") <= letters
    measures = {
        b.split(".")[0] for case in CASES for a, b in zip(case.args, case.args[1:], strict=False) if a == "-m"
    }
    assert len(measures) >= 57 + 6  # every measure of trec_eval 10's table, and its nicknames
    assert sum(1 for case in CASES if case.stdin is not None) >= 20
    assert sum(1 for case in CASES if case.gzip) >= 40
    assert any(b"\t" in data for case in CASES for data in case.files.values())
    assert any(b"\r\n" in data for case in CASES for data in case.files.values())
    assert any(data.startswith(b"\xef\xbb\xbf") for case in CASES for data in case.files.values())
    assert {case.exit for case in CASES} >= {0, 1, 2, 4}
    assert sum(1 for case in CASES if case.score) >= 50


def test_the_corpus_is_what_trec_eval_prints(trec_eval_bin: Path) -> None:
    """Run every case through the trec_eval binary built here: the committed answers must be its answers."""
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        answers = list(pool.map(lambda case: run_case(trec_eval_bin, case), CASES))
    changed = [
        case.name
        for case, again in zip(CASES, answers, strict=True)
        if (again.stdout, again.exit) != (case.stdout, case.exit)
    ]
    assert not changed, f"trec_eval now answers otherwise: {changed[:5]}"


def test_gzip_cases_really_are_gzipped(tmp_path: Path) -> None:
    case = next(case for case in CASES if STDIN in case.gzip)
    assert gzip.decompress(case.toolkit_stdin() or b"") == case.stdin
