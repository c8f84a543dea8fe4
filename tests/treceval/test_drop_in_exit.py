"""The installed console script exits as trec_eval does, every time (docs/trec_eval.md).

``trec-toolkit trec_eval`` used to print the right numbers and then die at interpreter exit with SIGABRT (exit
134, "terminate called without an active exception") about one run in a hundred, when the qrels had a comment
line, a blank line or a duplicate judgment. The cause: Arrow's threaded CSV reader returns before its worker
threads let go of their input; the input was a Python buffer, so the last worker to let go had to take the
GIL, and when the interpreter was finalising by then Python ended that thread inside Arrow's ``noexcept``
destructor: ``std::terminate``. Those inputs make the drop-in leave the column reader for its line reader and
exit right after reading, inside that window (``toolkit.formats.tables.owned`` is the fix).

A crash at interpreter exit is invisible to in-process tests (``CliRunner``): this one runs the installed
console script as a subprocess over those inputs (several at once), and requires trec_eval's exit code and
stdout — from the committed corpus — every time; ``score`` shares the reader and is run too. The quick test
runs each input twice; the stress tier (tests/conftest.py) ``RUNS`` times, since the crash came one run in a
hundred. ``TOOLKIT_EXIT_RUNS`` raises that count (the check the fix was made against is 500 runs of each).
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from trec_corpus import read_corpus, trec_lines

#: Subprocess runs in all in the stress tier (each input in turn): about 20 s on two idle cores.
RUNS = int(os.environ.get("TOOLKIT_EXIT_RUNS", "200"))
SCRIPT = Path(sys.executable).with_name("trec-toolkit")


def test_each_input_exits_as_trec_eval_does(tmp_path: Path) -> None:
    exit_as_trec_eval_does(tmp_path, runs=0)


@pytest.mark.slow
def test_every_run_exits_as_trec_eval_does(tmp_path: Path) -> None:
    exit_as_trec_eval_does(tmp_path, runs=RUNS)


def exit_as_trec_eval_does(tmp_path: Path, *, runs: int) -> None:
    """Run the drop-in (and ``score``) ``runs`` times over the exit-race inputs; 0: each job twice."""
    assert SCRIPT.is_file(), f"{SCRIPT}: the console script is not installed (pip install -e '.[test]')"
    cases = [case for case in read_corpus() if case.family == "exit-race"]
    # a comment line (exit 0), a blank line (exit 2), a judgment twice (exit 4)
    assert len(cases) == 3 and {case.exit for case in cases} == {0, 2, 4}
    jobs = []
    for k, case in enumerate(cases):
        folder = tmp_path / str(k)
        folder.mkdir()
        case.write(folder, packed=False)
        jobs.append((folder, ["trec_eval", *case.args], case.exit, case.stdout))
        if case.score:  # score on the same files: trec_eval's values under -q -c
            qrels, run = case.args[-2:]
            argv = ["score", run, "--qrels", qrels, "--measures", " ".join(case.score), "--format", "trec"]
            want = {(p, "all"): trec_lines(case.stdout)[(t, "all")] for p, t in case.score.values()}
            jobs.append((folder, [*argv, "--per-query"], 0, want))

    def run(k: int) -> str | None:
        folder, argv, code, want = jobs[k % len(jobs)]
        done = subprocess.run([str(SCRIPT), *argv], cwd=folder, capture_output=True, timeout=300)
        got = (
            done.stdout
            if isinstance(want, bytes)
            else {key: v for key, v in trec_lines(done.stdout).items() if key in want}
        )
        if (done.returncode, got) != (code, want):
            return f"run {k}: {' '.join(argv)} exited {done.returncode} (want {code}); stderr {done.stderr[-400:]!r}"
        return None

    runs = runs or 2 * len(jobs)
    with ThreadPoolExecutor(max(2, 2 * (os.cpu_count() or 1))) as pool:
        failures = [f for f in pool.map(run, range(runs)) if f]
    assert not failures, f"{len(failures)} of {runs} runs: " + "\n".join(failures[:5])
