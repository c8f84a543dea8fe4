"""Doc sources: command template (argv, no shell), JSONL/TSV corpora, folders; failures recorded."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from toolkit.errors import ConfigError, FormatError, UsageError
from toolkit.pooling.doccommand import CommandDocSource
from toolkit.pooling.docsource import (
    content_hash,
    doc_source_from_config,
    doc_source_from_option,
    fetch_documents,
)

SHOW = """
import json, sys
doc = sys.argv[1]
if doc == "missing":
    print("Error: unknown doc id", file=sys.stderr); sys.exit(1)
if doc.startswith("json"):
    print(json.dumps({"title": "T " + doc, "text": "body of " + doc}))
elif doc == "empty":
    pass
else:
    sys.stdout.write("# Title of " + doc + "\\n\\nPlain body; $(rm -rf /) stays text\\n")
"""


def test_content_hash_is_sha256_of_title_nul_text() -> None:
    assert content_hash("T", "x") == hashlib.sha256(b"T\x00x").hexdigest()


def test_command_source(tmp_path: Path) -> None:
    script = tmp_path / "show.py"
    script.write_text(SHOW)
    source = doc_source_from_config({"command": ["python", str(script), "{doc_id}"]}, tmp_path)
    assert isinstance(source, CommandDocSource)
    assert (
        source.argv("a b;c")[0] == sys.executable and source.argv("a b;c")[2] == "a b;c"
    )  # one argv element
    docs = fetch_documents(source, ["json1", "plain doc; $(x)", "missing", "empty", "json1"])
    assert list(docs) == ["json1", "plain doc; $(x)", "missing", "empty"]
    assert (docs["json1"].title, docs["json1"].text) == ("T json1", "body of json1")
    plain = docs["plain doc; $(x)"]
    assert plain.title == "Title of plain doc; $(x)"
    assert plain.text == "# Title of plain doc; $(x)\n\nPlain body; $(rm -rf /) stays text\n"
    assert plain.content_hash == content_hash(plain.title, plain.text)
    assert docs["missing"].fetch_error == "exit status 1: Error: unknown doc id"
    assert docs["missing"].content_hash is None and docs["missing"].text == ""
    assert docs["empty"].fetch_error == "the doc command printed nothing"


def test_command_not_found(tmp_path: Path) -> None:
    source = CommandDocSource(("no-such-program-xyz", "{doc_id}"))
    assert source.fetch("d").fetch_error == "command not found: no-such-program-xyz"


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"command": "show {doc_id}"}, "must be a non-empty argv list"),
        ({"command": []}, "must be a non-empty argv list"),
        ({"command": ["show", 3]}, "elements must all be strings"),
        ({"command": ["show", "{doc_id}"], "versions": ["v", "{doc_id}"]}, "remove {doc_id} from it"),
        ({"command": ["show", "{doc_id}"], "versions": "v"}, "versions must be a non-empty argv list"),
    ],
)
def test_bad_command_config(tmp_path: Path, section: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        doc_source_from_config(section, tmp_path)


def test_no_config_is_none(tmp_path: Path) -> None:
    assert doc_source_from_config({}, tmp_path) is None


def test_jsonl_and_tsv_corpora(tmp_path: Path) -> None:
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"docno": "d1", "title": "One", "text": "first"}\n{"id": 2, "body": "second"}\n')
    docs = fetch_documents(doc_source_from_option(jsonl), ["d1", "2", "d9"])
    assert (docs["d1"].title, docs["d1"].text) == ("One", "first")
    assert (docs["2"].title, docs["2"].text) == ("", "second")
    assert docs["d9"].fetch_error == f"not in {jsonl}"
    tsv = tmp_path / "c.tsv"
    tsv.write_text("d1\tline one\\nline two\nd2\tTitle\tbody\n")
    docs = fetch_documents(doc_source_from_option(tsv), ["d1", "d2"])
    assert docs["d1"].text == "line one\nline two"
    assert (docs["d2"].title, docs["d2"].text) == ("Title", "body")


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "c.jsonl",
            '{"doc_id": "a", "text": "x"}\n{"doc_id": "a", "text": "y"}\n',
            "2: duplicate document 'a'",
        ),
        ("c.jsonl", '{"doc_id": "a"}\n', "1: missing document text (one of text, body, contents)"),
        ("c.jsonl", '{"text": "x"}\n', "1: missing document id (one of doc_id, docno, id, _id)"),
        (
            "c.jsonl",
            "[1]\n",
            '1: expected one document object per line, like {"doc_id": "d1", "text": "…"}, found [1]',
        ),
        ("c.jsonl", "{oops\n", "1: invalid JSON"),
        ("c.tsv", "a\n", "1: expected doc_id<TAB>text or doc_id<TAB>title<TAB>text, found 1 columns"),
    ],
)
def test_corpus_errors_name_path_line(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(FormatError) as err:
        fetch_documents(doc_source_from_option(path), ["a"])  # a corpus is read (and checked) when fetched
    assert str(err.value).startswith(f"{path}:{message}")


def test_folder_source_with_percent_encoded_ids(tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("Plain title\nbody\n")
    (tmp_path / "pydoc%3A%2F%2Fos.path.md").write_text("# os.path\n\ntext\n")
    docs = fetch_documents(doc_source_from_option(tmp_path), ["plain", "pydoc://os.path", "../etc"])
    assert docs["plain"].title == "Plain title"
    assert docs["pydoc://os.path"].title == "os.path"
    assert docs["../etc"].fetch_error == f"no file for it in {tmp_path}"


def test_missing_docs_option(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--docs .*nope.jsonl: no such file or folder"):
        doc_source_from_option(tmp_path / "nope.jsonl")


def test_fetch_documents_reports_the_count_from_the_start_and_the_end() -> None:
    from toolkit.pooling.docsource import CorpusDocSource

    seen: list[tuple[int, int]] = []
    ticks = iter(range(100))
    docs = fetch_documents(
        CorpusDocSource({f"d{i}": ("", "x") for i in range(5)}),
        [f"d{i}" for i in (0, 1, 2, 2, 3, 4)],
        progress=lambda done, total: seen.append((done, total)),
        clock=lambda: next(ticks) * 0.03,  # a report at most every 0.05 s: every other document
    )
    assert list(docs) == ["d0", "d1", "d2", "d3", "d4"]
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert 2 < len(seen) < 7


def test_config_path_corpus(tmp_path: Path) -> None:
    (tmp_path / "c.tsv").write_text("d1\tT\tbody\n")
    source = doc_source_from_config({"path": "c.tsv"}, tmp_path)
    assert source is not None and fetch_documents(source, ["d1"])["d1"].title == "T"


SECRET = "TOP SECRET: outside the doc folder\n"


@pytest.fixture
def folder_with_links(tmp_path: Path) -> Path:
    """docs/ with a plain file, a link inside the folder, a link to a file outside, and a symlinked directory
    (docs/sub → outside/) reached by a link that stays inside the folder by name only."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "plain.txt").write_text("Plain title\nbody\n")
    (docs / "alias.txt").symlink_to("plain.txt")  # stays in the folder: allowed
    (docs / "leak.txt").symlink_to(outside / "secret.txt")  # a file outside
    (docs / "sub").symlink_to(outside, target_is_directory=True)  # a symlinked directory …
    (docs / "via.txt").symlink_to("sub/secret.txt")  # … and a link into it
    return docs


def test_folder_source_refuses_links_out_of_the_folder(folder_with_links: Path) -> None:
    docs = doc_source_from_option(folder_with_links).fetch_many(["plain", "alias", "leak", "via", "sub"])
    assert docs["plain"].title == docs["alias"].title == "Plain title"
    for doc_id in ("leak", "via"):
        assert docs[doc_id].text == "" and docs[doc_id].content_hash is None
        assert docs[doc_id].fetch_error == (
            f"{folder_with_links / doc_id}.txt is a symlink out of the doc folder {folder_with_links}; refused "
            "(copy the file into the folder if it belongs there)"
        )
    assert docs["sub"].fetch_error == f"no file for it in {folder_with_links}"


def test_folder_source_given_as_a_symlink_is_that_folder(folder_with_links: Path) -> None:
    link = folder_with_links.parent / "link-to-docs"
    link.symlink_to(folder_with_links, target_is_directory=True)
    docs = doc_source_from_option(link).fetch_many(["plain", "alias", "leak"])
    assert docs["plain"].title == docs["alias"].title == "Plain title"
    assert docs["leak"].fetch_error is not None and docs["leak"].text == ""


def test_pool_from_a_folder_never_snapshots_a_linked_secret(
    folder_with_links: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from toolkit.cli import main
    from toolkit.judging.store import CampaignStore

    monkeypatch.chdir(folder_with_links.parent)
    Path("topics.tsv").write_text("q1\tplain\n")
    Path("a.run").write_text("q1 Q0 plain 1 4 a\nq1 Q0 leak 2 3 a\nq1 Q0 via 3 2 a\nq1 Q0 alias 4 1 a\n")
    result = CliRunner().invoke(
        main, ["pool", "a.run", "--topics", "topics.tsv", "--docs", "docs", "-o", "c.sqlite"]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("Warning: could not fetch 2 document(s): leak, via\nNext: ")
    with CampaignStore.open("c.sqlite") as store:
        assert store.document("plain").text == store.document("alias").text == "Plain title\nbody\n"
        for doc_id in ("leak", "via"):
            assert store.document(doc_id).text == ""
            assert "symlink out of the doc folder" in (store.document(doc_id).fetch_error or "")
    assert not [f for f in Path().glob("c.sqlite*") if b"TOP SECRET" in f.read_bytes()]


def test_a_corpus_is_streamed_gzip_or_not_with_format_and_version(tmp_path: Path) -> None:
    import gzip
    import json

    lines = [
        {"doc_id": "d1", "title": "One", "text": "first\nline", "format": "text", "version": 7},
        {"doc_id": "d2", "text": "# Two", "format": "markdown"},
        {"doc_id": "d3", "text": "unused", "format": "rtf"},  # not asked for: only its id is checked
    ]
    body = "".join(json.dumps(line) + "\n" for line in lines).encode()
    plain, packed = tmp_path / "c.jsonl", tmp_path / "c.jsonl.gz"
    plain.write_bytes(body)
    packed.write_bytes(gzip.compress(body))
    for path in (plain, packed):
        docs = fetch_documents(doc_source_from_option(path), ["d2", "d1", "d9"])
        assert list(docs) == ["d2", "d1", "d9"]
        assert (docs["d1"].text, docs["d1"].format, docs["d1"].version) == ("first\nline", "text", "7")
        assert (docs["d2"].format, docs["d2"].version) == ("markdown", None)
        assert docs["d9"].fetch_error == f"not in {path}"
    with pytest.raises(FormatError, match=r"c.jsonl:3: format 'rtf' is not one of text, markdown, html"):
        fetch_documents(doc_source_from_option(plain), ["d3"])


def test_a_corpus_line_longer_than_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TREC_TOOLKIT_MAX_DOCUMENT", "64")
    path = tmp_path / "c.tsv"
    path.write_text("d1\tshort\nd2\t" + "x" * 100 + "\n")
    message = (
        r"c.tsv:2: document longer than 64 bytes, the limit for one document \(TREC_TOOLKIT_MAX_DOCUMENT\)"
    )
    with pytest.raises(FormatError, match=message):
        fetch_documents(doc_source_from_option(path), ["d1"])


def test_a_per_document_command_may_declare_format_and_version(tmp_path: Path) -> None:
    script = tmp_path / "show.py"
    script.write_text(
        "import json, sys\n"
        'print(json.dumps({"title": "T", "text": "a\\nb", "format": "text", "version": "r9"}))\n'
    )
    source = doc_source_from_config({"command": ["python", str(script), "{doc_id}"]}, tmp_path, workers=2)
    assert isinstance(source, CommandDocSource) and source.workers == 2
    doc = fetch_documents(source, ["x"])["x"]
    assert (doc.title, doc.text, doc.format, doc.version) == ("T", "a\nb", "text", "r9")


ENDLESS = """
import sys
doc = sys.argv[1]
if doc == "endless":
    chunk = b"x" * 65536
    while True:
        sys.stdout.buffer.write(chunk)
elif doc == "latin1":
    sys.stdout.buffer.write(b"# caf\\xe9\\n\\nna\\xefve bytes\\n")
else:
    print("# fine\\n\\nbody")
"""


def test_a_per_document_command_is_read_up_to_the_document_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that never stops printing is stopped at TREC_TOOLKIT_MAX_DOCUMENT (that document fails,
    the others are fetched: memory never holds more than the limit); bytes that are not UTF-8 are kept as
    replacement characters instead of a traceback."""
    monkeypatch.setenv("TREC_TOOLKIT_MAX_DOCUMENT", "1MiB")
    script = tmp_path / "show.py"
    script.write_text(ENDLESS)
    source = doc_source_from_config({"command": ["python", str(script), "{doc_id}"]}, tmp_path)
    docs = fetch_documents(source, ["endless", "latin1", "ok"])
    assert docs["endless"].fetch_error == (
        "printed more than 1 MiB, the limit for one document (TREC_TOOLKIT_MAX_DOCUMENT); "
        "check the doc command or raise the limit"
    )
    assert docs["latin1"].fetch_error is None and docs["latin1"].text == "# caf\ufffd\n\nna\ufffdve bytes\n"
    assert docs["ok"].title == "fine"
