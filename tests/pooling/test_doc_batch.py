"""The batch doc-source protocol: ids on stdin, JSONL answers, a few processes in parallel, versions."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from toolkit.errors import UsageError
from toolkit.pooling.doccommand import BatchCommandDocSource
from toolkit.pooling.docsource import content_hash, doc_source_from_config, fetch_documents

# A doc command speaking the batch protocol over a JSON "corpus" file; each process logs how many ids it got.
BATCH = r"""
import json, sys, time
corpus, log, mode = sys.argv[1], sys.argv[2], sys.argv[3]
docs = json.load(open(corpus))
ids = [line.rstrip("\n") for line in sys.stdin]
with open(log, "a") as f:
    f.write(f"{mode} {len(ids)}\n")
if mode == "broken":
    print("not json"); sys.stdout.flush(); time.sleep(120)
if mode == "slow":
    time.sleep(5)
for doc_id in reversed(ids):  # any order
    if doc_id == "silent":
        continue
    if doc_id not in docs:
        print(json.dumps({"doc_id": doc_id, "error": "no such page"}))
        continue
    title, text, version = docs[doc_id]
    if mode == "versions":
        print(json.dumps({"doc_id": doc_id, "version": version}))
    else:
        print(json.dumps({"doc_id": doc_id, "title": title, "text": text, "format": "text", "version": version}))
    sys.stdout.flush()
if mode == "fail":
    print("boom", file=sys.stderr); sys.exit(3)
"""


@pytest.fixture
def batch(tmp_path: Path):
    """Write the corpus and return (make_source, log lines)."""
    script = tmp_path / "docs.py"
    script.write_text(BATCH)
    corpus = tmp_path / "corpus.json"
    log = tmp_path / "log.txt"

    def make(docs: dict[str, tuple[str, str, str]], mode: str = "show", **options: object):
        corpus.write_text(json.dumps(docs))
        section = {
            "command": ["python", str(script), str(corpus), str(log), mode],
            "versions": ["python", str(script), str(corpus), str(log), "versions"],
        }
        source = doc_source_from_config(section, tmp_path, workers=int(options.pop("workers", 2)))  # type: ignore[call-overload]
        assert isinstance(source, BatchCommandDocSource)
        return BatchCommandDocSource(**{**source.__dict__, **options}) if options else source

    def calls() -> list[str]:
        return log.read_text().splitlines() if log.exists() else []

    return make, calls


DOCS = {f"d{i}": (f"Title {i}", f"line one of {i}\nline two", f"v{i}") for i in range(5)}


def test_a_command_without_doc_id_gets_ids_on_stdin_and_answers_jsonl(batch) -> None:
    make, calls = batch
    source = make(DOCS)
    docs = fetch_documents(source, ["d0", "d1", "d2", "d3", "d4", "gone", "silent", "d1"])
    assert list(docs) == ["d0", "d1", "d2", "d3", "d4", "gone", "silent"]
    d1 = docs["d1"]
    assert (d1.title, d1.text, d1.format, d1.version) == ("Title 1", "line one of 1\nline two", "text", "v1")
    assert d1.content_hash == content_hash("Title 1", "line one of 1\nline two")
    assert docs["gone"].fetch_error == "no such page"
    assert docs["silent"].fetch_error == "the doc command gave no answer for it"
    # 7 distinct ids over 2 workers: two processes, not one per document
    assert sorted(calls()) == ["show 3", "show 4"]


def test_batches_are_capped_and_run_a_few_at_a_time(batch) -> None:
    make, calls = batch
    docs = fetch_documents(make(DOCS, workers=2, batch_max=2), list(DOCS))
    assert all(d.fetch_error is None for d in docs.values())
    assert sorted(calls()) == ["show 1", "show 2", "show 2"]


def test_a_failing_batch_keeps_its_answers_and_names_the_exit_status(batch) -> None:
    make, _ = batch
    docs = fetch_documents(make({"d0": DOCS["d0"]}, "fail", workers=1), ["d0", "silent"])
    assert docs["d0"].fetch_error is None
    assert docs["silent"].fetch_error == "exit status 3: boom"


def test_a_line_that_is_not_a_document_object_stops_the_fetch_at_once(batch) -> None:
    make, _ = batch
    start = time.monotonic()
    with pytest.raises(
        UsageError, match=r"\[docs\] command answer line 1: expected one JSON object per line"
    ):
        fetch_documents(make(DOCS, "broken"), ["d0", "d1", "d2"])
    assert time.monotonic() - start < 90  # the broken command (sleeping 120 s) is killed, not waited for


def test_a_silent_command_times_out(batch) -> None:
    make, _ = batch
    docs = fetch_documents(make(DOCS, "slow", workers=1, timeout=0.5), ["d0"])
    assert docs["d0"].fetch_error == "timed out: no answer for 0.5 s"


def test_versions_command(batch) -> None:
    make, calls = batch
    source = make(DOCS)
    assert source.versions(["d0", "d3", "gone", "silent"]) == {"d0": "v0", "d3": "v3"}
    assert calls() == ["versions 4"]


def test_command_not_found_fails_every_document(tmp_path: Path) -> None:
    source = BatchCommandDocSource(("no-such-program-xyz", "show"))
    docs = fetch_documents(source, ["a", "b"])
    assert {d.fetch_error for d in docs.values()} == {"command not found: no-such-program-xyz"}
