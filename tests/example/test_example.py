"""The example workspace: the stdlib corpus, its search CLI, toolkit.toml and topics/stdlib.toml."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from toolkit.example.identifiers import identifier_text, split_identifier
from toolkit.example.search import match_expression

ROOT = Path(__file__).resolve().parents[2]
CLASSES = {"canonical", "root", "synonym", "fragment", "deprecation", "cross-source", "prose", "attribute"}


def example(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkit.example", *args], env=env, capture_output=True, text=True, check=False
    )


def test_identifier_components() -> None:
    assert split_identifier("JSONDecoder") == ["JSON", "Decoder"]
    assert split_identifier("move_to_end") == ["move", "to", "end"]
    assert split_identifier("getLogger") == ["get", "Logger"]
    assert split_identifier("HTTPServer2") == ["HTTP", "Server", "2"]
    assert identifier_text("json.decoder.JSONDecoder") == "json decoder"


def test_match_expression_neutralises_fts5_syntax() -> None:
    assert (
        match_expression('a AND "b" NEAR(c*)', split_identifiers=False)
        == '"a" OR "and" OR "b" OR "near" OR "c"'
    )
    assert match_expression("JSONDecoder", split_identifiers=True) == '"jsondecoder" OR "json" OR "decoder"'
    assert match_expression("¿?!", split_identifiers=True) == ""


def test_cache_path_names_python_and_builder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.example.corpus_version import CORPUS_VERSION
    from toolkit.example.search import corpus_path

    monkeypatch.setenv("TREC_TOOLKIT_CACHE", str(tmp_path))
    version = sys.version.split()[0]
    assert corpus_path() == tmp_path / f"stdlib-{sys.implementation.name}{version}-v{CORPUS_VERSION}.sqlite"
    monkeypatch.delenv("TREC_TOOLKIT_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert corpus_path().parent == tmp_path / "xdg" / "trec-toolkit"


def test_search_prints_json(cache: dict[str, str]) -> None:
    done = example(cache, "search", "OrderedDict", "--limit", "3")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["query"], data["engine"], len(data["results"])) == ("OrderedDict", "bm25", 3)
    assert set(data["results"][0]) == {"doc_id", "title", "kind", "score"}
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)
    assert json.loads(example(cache, "search", "!!!").stdout)["results"] == []


def test_bm25f_finds_a_compound_name_from_one_component(cache: dict[str, str]) -> None:
    data = json.loads(example(cache, "search", "Decoder", "--engine", "bm25f").stdout)
    assert any(r["doc_id"].endswith(".JSONDecoder") for r in data["results"])


def test_show_prints_a_readable_document(cache: dict[str, str]) -> None:
    done = example(cache, "show", "pydoc://json.loads")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == "# json.loads"
    assert lines[2] == "`pydoc://json.loads` · function"
    assert "Deserialize" in done.stdout
    missing = example(cache, "show", "pydoc://nope")
    assert (missing.returncode, missing.stderr) == (
        1,
        "Error: unknown doc id 'pydoc://nope'; list them with `python -m toolkit.example ids`\n",
    )


def test_corpus_size_and_ids(cache: dict[str, str]) -> None:
    ids = example(cache, "ids").stdout.splitlines()
    assert 4000 <= len(ids) <= 9000
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("pydoc://") and " " not in i for i in ids)
    assert {
        "pydoc://json",
        "pydoc://json.loads",
        "pydoc://collections.OrderedDict",
        "pydoc://os.path.join",
    } <= set(ids)
    assert not any(
        i.startswith(("pydoc://antigravity", "pydoc://this", "pydoc://tkinter", "pydoc://test.")) for i in ids
    )
    assert not any("._" in i for i in ids)


def test_info_names_the_corpus_and_the_engine(cache: dict[str, str]) -> None:
    """The workspace's pre-flight check: the corpus's Python, builder and size (the size as `ids` counts it)."""
    from toolkit.example.corpus_version import CORPUS_VERSION

    count = len(example(cache, "ids").stdout.splitlines())
    python = sys.version.split()[0]
    for engine in ("bm25", "bm25f"):
        done = example(cache, "info", "--engine", engine)
        assert done.returncode == 0, done.stderr
        corpus, line = done.stdout.splitlines()
        assert (
            corpus
            == f"corpus: Python {python} standard library docstrings, builder v{CORPUS_VERSION}, {count} docs"
        )
        assert line.startswith(f"engine: {engine} (FTS5 unicode61, ")
    assert "weighted 4, 2, 1, 2" in example(cache, "info", "--engine", "bm25f").stdout


def test_topic_set_truth_exists_in_this_corpus(cache: dict[str, str]) -> None:
    """Every pattern and preference regex of topics/stdlib.toml matches a doc of the corpus on this Python,
    and none is suspiciously broad; the topics that should find nothing (expect = "empty") have no truth."""
    from toolkit.formats.topics import read_topics
    from toolkit.truth import DEFAULT_MAX_MATCHES, build_qrels

    topic_set = read_topics(ROOT / "topics" / "stdlib.toml")
    ids = example(cache, "ids").stdout.splitlines()
    topics = [t for t in topic_set if not t.expects_empty]
    out_of_scope = [t for t in topic_set if t.expects_empty]
    assert len(topics) >= 50 and len(out_of_scope) >= 5
    counts = Counter(t.query_class for t in topics)
    assert set(counts) == CLASSES and min(counts.values()) >= 5
    assert all(t.description and t.truth for t in topics)
    assert all(t.description and not t.truth and not t.preferences for t in out_of_scope)
    result = build_qrels(topic_set, ids)
    assert result.unmatched_patterns == ()
    assert result.suspicious == ()
    assert result.expect_empty == tuple(t.query_id for t in out_of_scope) and result.no_truth == ()
    assert all(len(result.qrels.judgments[t.query_id]) <= DEFAULT_MAX_MATCHES for t in topics)
    for topic in topics:
        assert bool(topic.preferences) == (topic.query_class == "deprecation"), topic.query_id
        for pref in topic.preferences:
            assert any(pref.modern_regex.search(d) for d in ids), (topic.query_id, pref.modern)
            assert any(pref.legacy_regex.search(d) for d in ids), (topic.query_id, pref.legacy)


def test_workspace_systems_run(cache: dict[str, str], tmp_path: Path) -> None:
    """toolkit.toml's two engines, run by the real CLI on a few topics of the shipped topic set."""
    subset = tmp_path / "few.tsv"
    subset.write_text(
        "can-01\tOrderedDict\nfrag-01\tDecoder\nprose-01\thow to read a csv file\n", encoding="utf-8"
    )
    for engine in ("bm25", "bm25f"):
        out = tmp_path / f"{engine}.run"
        done = subprocess.run(
            [sys.executable, "-m", "toolkit", "run", engine, "--topics", str(subset), "-o", str(out)],
            cwd=ROOT,
            env=cache,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        lines = out.read_text().splitlines()
        assert len(lines) == 30
        assert lines[0].split()[3:] == ["1", "10.0", engine]
        # the pre-flight check ran first and its output is in the manifest
        info = example(cache, "info", "--engine", engine).stdout
        assert done.stderr.splitlines()[0] == f"Pre-flight {engine}: {info.splitlines()[0]} (+1 line)"
        assert json.loads(Path(f"{out}.json").read_text())["preflight"]["output"] == info


def test_docs_source_command_shows_a_pooled_doc(cache: dict[str, str]) -> None:
    import tomllib

    from toolkit.systems import fill_argv

    config = tomllib.loads((ROOT / "toolkit.toml").read_text(encoding="utf-8"))
    argv = fill_argv(config["docs"]["command"])
    assert not any("{doc_id}" in a for a in argv)  # the batch protocol: ids on stdin
    done = subprocess.run(
        argv,
        input="pydoc://collections.OrderedDict\n",
        env=cache,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert json.loads(done.stdout)["title"] == "collections.OrderedDict"
    single = example(cache, "show", "pydoc://collections.OrderedDict")
    assert single.stdout.startswith("# collections.OrderedDict\n")  # with an id: Markdown for people


def test_the_example_speaks_the_batch_protocol(cache: dict[str, str]) -> None:
    """``python -m toolkit.example show`` with no id reads ids on stdin (what toolkit.toml configures)."""
    done = subprocess.run(
        [sys.executable, "-m", "toolkit.example", "show"],
        input="pydoc://json.loads\npydoc://nope\n",
        capture_output=True,
        text=True,
        check=True,
        env=cache,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["doc_id"] for a in answers] == ["pydoc://json.loads", "pydoc://nope"]
    loads, nope = answers
    assert loads["title"] == "json.loads" and loads["format"] == "text" and loads["version"]
    assert "Deserialize" in loads["text"] and "# json.loads" not in loads["text"]
    assert nope == {"doc_id": "pydoc://nope", "error": "unknown doc id"}
    versions = subprocess.run(
        [sys.executable, "-m", "toolkit.example", "versions"],
        input="pydoc://json.loads\npydoc://nope\n",
        capture_output=True,
        text=True,
        check=True,
        env=cache,
    )
    assert [json.loads(line) for line in versions.stdout.splitlines()] == [
        {"doc_id": "pydoc://json.loads", "version": loads["version"]}
    ]
