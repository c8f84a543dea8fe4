"""The runner against a fake command system: failures recorded, hostile text verbatim, retries, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ENGINE, engine_argv, make_topics

from toolkit.errors import SystemCallError, UsageError
from toolkit.formats.manifest import read_manifest
from toolkit.formats.run import read_run
from toolkit.model import Topic, TopicSet
from toolkit.systems import CommandSystem, Parser, journal_path, run_system

ROOT = Path(__file__).resolve().parents[2]


def fake(name: str = "fake") -> CommandSystem:
    return CommandSystem(name, tuple(engine_argv()), parser=Parser("lines"))


def test_failures_are_recorded_and_the_run_goes_on(fake_env: Path) -> None:
    topics = make_topics("ok1", "crash1", "hang1", "garbage1", "ok2")
    out = fake_env / "runs" / "fake.run"
    result = run_system(fake(), topics, output=out, depth=3, workers=3, timeout=1.0)

    run = read_run(out)
    assert run.ranking("ok1") == ["doc:ok1:1", "doc:ok1:2", "doc:ok1:3"]
    assert run.ranking("ok2") == ["doc:ok2:1", "doc:ok2:2", "doc:ok2:3"]
    assert set(run.results) == {"ok1", "ok2"}
    failures = {f.query_id: f for f in result.failures}
    assert set(failures) == {"crash1", "hang1", "garbage1"}
    assert failures["crash1"].reason == "exit code 3"
    assert failures["crash1"].exit_code == 3
    assert failures["crash1"].stderr_tail.endswith("RuntimeError: index corrupt\n")
    assert failures["hang1"].reason.startswith("timed out after 1.")
    assert failures["hang1"].exit_code is None
    assert 1000 <= failures["hang1"].duration_ms < 30_000  # stopped at its timeout, not after its 30 s sleep
    assert failures["garbage1"].reason.startswith('invalid doc id "<html>500 Internal Server Error</html>"')

    manifest = read_manifest(out)
    assert manifest is not None
    assert [f["query_id"] for f in manifest["failures"]] == ["crash1", "hang1", "garbage1"]  # topic-set order
    assert manifest["failures"][0]["exit_code"] == 3
    assert manifest["empty_topics"] == ["crash1", "hang1", "garbage1"]
    assert manifest["per_topic"]["ok1"]["hits"] == 3
    assert manifest["latency_ms"]["n"] == 2
    assert (
        manifest["latency_ms"]["p50"] is not None
        and manifest["latency_ms"]["p95"] >= manifest["latency_ms"]["p50"]
    )
    assert manifest["topic_set"]["sha256"] == "x" * 64
    assert manifest["system"]["command"] == engine_argv()
    assert not journal_path(out).exists()


def test_hostile_query_arrives_verbatim_and_no_shell_runs(
    fake_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    echo = fake_env / "argv.json"
    marker = fake_env / "pwned"
    monkeypatch.setenv("FAKE_ECHO", str(echo))
    hostile = f'it\'s "quoted"; touch {marker} $(touch {marker}) `touch {marker}` | cat && \n line2 ünï€ 🦆 * ~ {{depth}}'
    topics = TopicSet(topics=(Topic(query_id="echo1", query=hostile),), name="t", sha256="y" * 64)
    run_system(fake(), topics, output=fake_env / "echo.run", depth=2, workers=1)
    argv = json.loads(echo.read_text(encoding="utf-8"))
    assert argv == ["echo1", hostile, "2"]
    assert not marker.exists()


def test_retries_then_success(fake_env: Path) -> None:
    result = run_system(fake(), make_topics("flaky1"), output=fake_env / "f.run", depth=1, retries=1)
    assert result.failures == ()
    manifest = read_manifest(fake_env / "f.run")
    assert manifest is not None and manifest["per_topic"]["flaky1"]["attempts"] == 2
    without = run_system(fake(), make_topics("flaky2"), output=fake_env / "g.run", depth=1, retries=0)
    assert [f.exit_code for f in without.failures] == [75]


def test_depth_truncates_what_the_system_returns(fake_env: Path) -> None:
    system = CommandSystem(
        "f", (sys.executable, "-c", "print('\\n'.join('d%d' % i for i in range(20)))", "{query}")
    )
    run_system(system, make_topics("a"), output=fake_env / "d.run", depth=4)
    assert read_run(fake_env / "d.run").ranking("a") == ["d0", "d1", "d2", "d3"]


def test_missing_program_is_an_error_before_the_run(fake_env: Path) -> None:
    system = CommandSystem("nope", ("no-such-search-program-xyz", "{query}"))
    with pytest.raises(SystemCallError, match="program 'no-such-search-program-xyz' not found"):
        run_system(system, make_topics("a"), output=fake_env / "n.run")
    assert not (fake_env / "n.run").exists()


def test_resume_reads_a_torn_journal_without_duplicates(fake_env: Path) -> None:
    topics = make_topics("ok1", "ok2", "ok3")
    out = fake_env / "r.run"
    run_system(fake(), make_topics("ok1"), output=fake_env / "seed.run")  # learn the header shape
    header = {
        "journal": 1,
        "system": {"name": "fake", "kind": "command", "command": engine_argv(), "parser": "lines"},
        "topics_sha256": topics.sha256,
        "depth": 2,
    }
    done = {
        "query_id": "ok1",
        "hits": [["doc:ok1:1", None], ["doc:ok1:2", None]],
        "latency_ms": 5.0,
        "attempts": 1,
        "failure": None,
    }
    journal_path(out).write_text(
        json.dumps(header) + "\n" + json.dumps(done) + "\n" + '{"query_id": "ok2", "hi'
    )
    (fake_env / "calls.log").unlink()
    result = run_system(fake(), topics, output=out, depth=2, resume=True)
    assert (result.resumed, result.asked) == (1, 2)
    assert sorted((fake_env / "calls.log").read_text().split()) == ["ok2", "ok3"]
    lines = out.read_text().splitlines()
    assert len(lines) == len(set(lines)) == 6
    assert [line.split()[0] for line in lines] == ["ok1", "ok1", "ok2", "ok2", "ok3", "ok3"]


def test_resume_refuses_a_journal_of_another_run(fake_env: Path) -> None:
    out = fake_env / "x.run"
    journal_path(out).write_text(
        '{"journal": 1, "system": {"name": "other"}, "topics_sha256": "z", "depth": 10}\n'
    )
    with pytest.raises(
        UsageError, match=r"x\.run\.partial was written for another system, topic set or depth"
    ):
        run_system(fake(), make_topics("ok1"), output=out, resume=True)


def test_bad_runner_options() -> None:
    with pytest.raises(UsageError, match="--depth must be at least 1, not 0"):
        run_system(fake(), make_topics("a"), output="x.run", depth=0)
    with pytest.raises(UsageError, match="--workers must be at least 1, not 0"):
        run_system(fake(), make_topics("a"), output="x.run", workers=0)


def test_resume_after_sigkill(tmp_path: Path) -> None:
    """kill -9 the CLI mid-run; --resume finishes it: no duplicate lines, finished topics not asked again."""
    topics = tmp_path / "t.tsv"
    topics.write_text("".join(f"slow{i}\tquery {i}\n" for i in range(1, 17)), encoding="utf-8")
    command = f"{sys.executable} {ENGINE} {{query_id}} {{query}} {{depth}}"
    out = tmp_path / "slow.run"
    env = {**os.environ, "FAKE_LOG": str(tmp_path / "calls.log"), "FAKE_DELAY": "0.2"}
    argv = [
        sys.executable,
        "-m",
        "toolkit",
        "run",
        "slow",
        "--command",
        command,
        "--topics",
        str(topics),
        "-o",
        str(out),
        "--depth",
        "3",
        "--workers",
        "2",
    ]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = journal_path(out)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count("\n") >= 4:  # header + at least 3 topics
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    finished = [
        json.loads(line)["query_id"] for line in journal.read_text().splitlines()[1:] if line.endswith("}")
    ]
    assert 3 <= len(finished) < 16

    before = (tmp_path / "calls.log").read_text().split()
    done = subprocess.run(
        [*argv, "--resume"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert f"(16 topics, {len(finished)} resumed, 0 failed;" in done.stderr
    asked_again = (tmp_path / "calls.log").read_text().split()[len(before) :]
    assert not set(asked_again) & set(finished)
    lines = out.read_text().splitlines()
    assert len(lines) == len(set(lines)) == 48
    keys = [(line.split()[0], line.split()[2]) for line in lines]
    assert len(keys) == len(set(keys))
    assert not journal.exists()


def test_ctrl_c_keeps_the_journal_and_says_how_to_resume(tmp_path: Path) -> None:
    topics = tmp_path / "t.tsv"
    # Enough slow topics that the run cannot finish between the second journal line and the signal, even on a
    # loaded machine where this process is scheduled late (8 topics of 0.15 s once finished first, exit 0).
    topics.write_text("".join(f"slow{i}\tquery {i}\n" for i in range(1, 61)), encoding="utf-8")
    command = f"{sys.executable} {ENGINE} {{query_id}} {{query}} {{depth}}"
    out = tmp_path / "int.run"
    env = {**os.environ, "FAKE_DELAY": "0.3"}
    argv = [
        sys.executable,
        "-m",
        "toolkit",
        "run",
        "int",
        "--command",
        command,
        "--topics",
        str(topics),
        "-o",
        str(out),
    ]
    # A terminal's Ctrl-C reaches a process whose SIGINT is neither ignored nor blocked. A child inherits both,
    # and something in a long test session can leave this worker's SIGINT so (the run then ran to the end and
    # exited 0): the child starts as a shell's would.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        proc = subprocess.Popen(
            argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, inherited)
    journal = journal_path(out)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (journal.exists() and journal.read_text().count("\n") >= 2):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines() == [
        f"Finished topics are kept in {journal}; add --resume to continue.",
        "Interrupted.",
    ]
    assert journal.exists() and not out.exists()


def test_progress_is_reported_from_the_start_and_after_every_topic(fake_env: Path) -> None:
    seen: list[tuple[int, int]] = []
    run_system(
        fake(),
        make_topics("ok1", "crash1", "ok2"),
        output=fake_env / "p.run",
        workers=1,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_resumed_progress_starts_at_the_finished_topics(fake_env: Path) -> None:
    out = fake_env / "q.run"
    topics = make_topics("ok1", "ok2", "ok3")
    run_system(fake(), topics, output=out)
    # a journal holding one finished topic, as a killed run leaves it
    journal = journal_path(out)
    header = {
        "journal": 1,
        "system": {"name": "fake", "kind": "command", "command": engine_argv(), "parser": "lines"},
        "topics_sha256": topics.sha256,
        "depth": 10,
    }
    done = {
        "query_id": "ok1",
        "hits": [["doc:ok1:1", None]],
        "latency_ms": 1.0,
        "attempts": 1,
        "failure": None,
    }
    journal.write_text(json.dumps(header) + "\n" + json.dumps(done) + "\n")
    seen: list[tuple[int, int]] = []
    run_system(fake(), topics, output=out, resume=True, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
