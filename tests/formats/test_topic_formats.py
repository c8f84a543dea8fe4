"""Topic conventions of the IR community: TREC SGML with closing tags and TIPSTER fields, Web-track XML, TSV
with a header row, JSONL as ir_datasets exports it.

Expected values are the text written into each fixture; where ir_datasets has a parser or a writer for the
same convention, it is the oracle (its ``TrecQueries``/``TrecXmlQueries`` readers, its JSONL exporter).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import pytest

from toolkit.errors import FormatError, ToolkitWarning
from toolkit.formats import read_topics
from toolkit.model import Qrels, Run
from toolkit.scoring import evaluate

CLOSING = """\
<top>
<num>301</num>
<title>International Organized Crime</title>
<desc>Identify organizations that participate in international criminal activity.</desc>
<narr>A relevant document must name an organization.</narr>
</top>

<top>
<num> Number: 302 </num>
<title> Topic: Poliomyelitis and Post-Polio </title>
<desc> Description: Is the disease under control? </desc>
</top>
"""

TIPSTER = """\
<top>
<head> Tipster Topic Description
<num> Number:  051
<dom> Domain:  International Economics
<title> Topic:  Airbus Subsidies

<desc> Description:
Document will discuss government assistance to Airbus Industrie.

<narr> Narrative:
A relevant document will cite or discuss assistance to Airbus Industrie.

<con> Concept(s):
1.  Airbus Industrie
2.  European aircraft consortium

<fac> Factor(s):
<nat> Nationality:  U.S.
</fac>

<def> Definition(s):
</top>

<top>
<num> Number: 052
<dom> Domain: International Economics
<title> Topic: South African Sanctions
<desc> Description: Document discusses sanctions against South Africa.
<narr> Narrative: A relevant document will discuss any aspect of sanctions.
<smry> Summary: Sanctions and their effect.
</top>
"""

WEB_XML = """\
<webtrack2009>
<topic number="1" type="faceted">
  <query>obama family tree</query>
  <description>
  Find information on President Barack Obama's family
  history, including genealogy.
  </description>
  <subtopic number="1" type="nav">
  Find the TIME magazine photo essay "Barack Obama's Family Tree".
  </subtopic>
  <subtopic number="2" type="inf">
  Where did Barack Obama's parents and grandparents come from?
  </subtopic>
</topic>

<topic number="2" type="ambiguous">
  <query>french lick resort and casino</query>
  <description>Find information on the French Lick Resort &amp; Casino.</description>
  <subtopic number="1" type="nav">Find the homepage.</subtopic>
</topic>
</webtrack2009>
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(FormatError) as info:
        read_topics(path)
    return str(info.value)


# --------------------------------------------------------------------------- TREC SGML


def test_sgml_closing_tags_give_clean_ids_and_fields(tmp_path: Path) -> None:
    topics = read_topics(write(tmp_path, "robust.txt", CLOSING))
    assert topics.ids == ("301", "302")
    first, second = topics.topics
    assert first.query == "International Organized Crime"
    assert first.description == "Identify organizations that participate in international criminal activity."
    assert first.narrative == "A relevant document must name an organization."
    assert (second.query, second.description) == (
        "Poliomyelitis and Post-Polio",
        "Is the disease under control?",
    )


def test_closing_tag_topics_score_against_their_qrels(tmp_path: Path) -> None:
    """Regression: ids read as ``301</num>`` matched no qrels, so every topic scored 0 under --topics."""
    topics = read_topics(write(tmp_path, "robust.txt", CLOSING))
    qrels = Qrels({"301": {"d1": 1}, "302": {"d7": 1}})
    run = Run({"301": {"d1": 2.0, "d2": 1.0}, "302": {"d5": 3.0, "d7": 2.0}})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolkitWarning)  # no "topics have no qrels" warning either
        scores = evaluate(run, qrels, topics=topics, measures="RR@10")
    # by hand: 301 has its relevant doc at rank 1 (RR 1), 302 at rank 2 (RR 1/2)
    assert scores.per_query == {"301": {"RR@10": 1.0}, "302": {"RR@10": 0.5}}
    assert scores.aggregate["RR@10"] == 0.75


def test_tipster_fields_are_kept_as_metadata(tmp_path: Path) -> None:
    topics = read_topics(write(tmp_path, "topics.51-100", TIPSTER))
    first, second = topics.topics
    assert (first.query_id, first.query) == ("051", "Airbus Subsidies")
    assert first.description == "Document will discuss government assistance to Airbus Industrie."
    assert first.narrative == "A relevant document will cite or discuss assistance to Airbus Industrie."
    assert first.metadata == {
        "head": "Tipster Topic Description",
        "domain": "International Economics",
        "concepts": "1. Airbus Industrie 2. European aircraft consortium",
        "nationality": "U.S.",
    }  # the empty <fac> and <def> fields are left out
    assert second.metadata == {"domain": "International Economics", "summary": "Sanctions and their effect."}


ROBUST = """\
<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal
activity, the activity, and, if possible, collaborating organizations.

<narr> Narrative:
A relevant document must as a minimum identify the organization and the
type of illegal activity.
</top>

<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio

<desc> Description:
Is the disease of Poliomyelitis (polio) under control in the world?

<narr> Narrative:
Relevant documents should contain data or outbreaks of the polio disease.
</top>
"""


def test_classic_sgml_matches_ir_datasets_reader(tmp_path: Path) -> None:
    """ir_datasets' own TREC topic parser is the oracle for the classic (no closing tags) spelling."""
    from ir_datasets.formats import TrecQueries
    from ir_datasets.util import LocalDownload

    path = write(tmp_path, "robust04.txt", ROBUST)
    expected = [
        (q.query_id, q.title, q.description, q.narrative)
        for q in TrecQueries(LocalDownload(path)).queries_iter()
    ]
    ours = [(t.query_id, t.query, t.description, t.narrative) for t in read_topics(path)]
    assert ours == [tuple(" ".join(v.split()) for v in row) for row in expected]


def test_description_is_the_query_when_there_is_no_title(tmp_path: Path) -> None:
    text = (
        "<top>\n<num> Number: 201\n<desc> Description:\nWhat is the economic impact of recycling?\n</top>\n"
    )
    (topic,) = read_topics(write(tmp_path, "trec4.txt", text))
    assert (topic.query_id, topic.query) == ("201", "What is the economic impact of recycling?")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "<top>\n<num>1</num><title>a</title>\n</top>\n\n<top>\n<num>2</num>\n",
            ":5: <top> without its </top>",
        ),
        (
            "<top>\n<num>1</num><title>a</title>\n<top>\n<num>2</num>\n</top>\n",
            ":3: <top> inside another <top>;",
        ),
        ("<top>\n<title>no number</title>\n</top>\n", ":1: topic without <num>"),
        ("<top><num>1</num></top>\n", ":1: topic '1': missing query text"),
        ("q1\tsort a list\n", ": no <top> blocks, but tab-separated lines: name the file .tsv"),
    ],
)
def test_sgml_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "t.txt", text)
    assert error_of(path).startswith(f"{path}{message}")


# --------------------------------------------------------------------------- Web-track XML


def test_web_track_xml(tmp_path: Path) -> None:
    topics = read_topics(write(tmp_path, "wt09.topics.xml", WEB_XML))
    first, second = topics.topics
    assert (first.query_id, first.query) == ("1", "obama family tree")
    assert (
        first.description
        == "Find information on President Barack Obama's family history, including genealogy."
    )
    assert first.metadata == {
        "type": "faceted",
        "subtopics": [
            {
                "number": "1",
                "type": "nav",
                "text": 'Find the TIME magazine photo essay "Barack Obama\'s Family Tree".',
            },
            {
                "number": "2",
                "type": "inf",
                "text": "Where did Barack Obama's parents and grandparents come from?",
            },
        ],
    }
    assert second.description == "Find information on the French Lick Resort & Casino."
    # sniffed by content when the extension says nothing
    assert read_topics(write(tmp_path, "wt09.topics.txt", WEB_XML)).ids == ("1", "2")


def test_web_track_xml_matches_ir_datasets_reader(tmp_path: Path) -> None:
    from ir_datasets.datasets.clueweb09 import TrecWebTrackQuery
    from ir_datasets.formats import TrecXmlQueries
    from ir_datasets.util import LocalDownload

    path = write(tmp_path, "wt09.xml", WEB_XML)
    reference = TrecXmlQueries(LocalDownload(path), qtype=TrecWebTrackQuery).queries_iter()

    def squash(text: str) -> str:
        return " ".join(text.split())

    expected = [
        (
            q.query_id,
            q.query,
            squash(q.description),
            q.type,
            [(s.number, s.type, squash(s.text)) for s in q.subtopics],
        )
        for q in reference
    ]
    ours = [
        (
            t.query_id,
            t.query,
            t.description,
            t.metadata["type"],
            [(s["number"], s["type"], s["text"]) for s in t.metadata["subtopics"]],
        )
        for t in read_topics(path)
    ]
    assert ours == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('<topics>\n<topic number="1">\n<query>a</query>\n</topics>\n', ":4: invalid XML (mismatched tag)"),
        (
            '<topics>\n<topic number="1"><description>only</description></topic>\n</topics>\n',
            ":2: topic '1': no <query> or <title> element (found <description>)",
        ),
        ("<topics><topic><query>a</query></topic></topics>\n", ":1: topic without a number"),
        ("<topics></topics>\n", ": no <topic> elements found"),
        ('<!DOCTYPE t [<!ENTITY a "aaaa">]>\n<topics/>\n', ":1: XML entity declarations are not accepted"),
    ],
)
def test_xml_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "t.xml", text)
    assert error_of(path).startswith(f"{path}{message}")


# --------------------------------------------------------------------------- TSV with a header


def test_tsv_header_as_pandas_writes_it(tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame({"qid": ["301", "302"], "query": ["crime", "polio"], "source": ["robust", ""]})
    plain, indexed = tmp_path / "plain.tsv", tmp_path / "indexed.tsv"
    frame.to_csv(plain, sep="\t", index=False)
    frame.to_csv(indexed, sep="\t")  # pandas' default adds an unnamed index column
    for path in (plain, indexed):
        topics = read_topics(path)
        assert [(t.query_id, t.query) for t in topics] == [("301", "crime"), ("302", "polio")], path
        assert [t.metadata for t in topics] == [{"source": "robust"}, {}]


def test_tsv_without_header_is_unchanged(tmp_path: Path) -> None:
    topics = read_topics(write(tmp_path, "t.tsv", "301\tcrime\n302\tpolio\n"))
    assert [(t.query_id, t.query) for t in topics] == [("301", "crime"), ("302", "polio")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "topic\tquery\n301\tcrime\n",
            ":1: this looks like a header row (topic query) but it needs an id column",
        ),
        ("qid\tnumber\n301\t7\n", ":1: this looks like a header row (qid number)"),
        (
            "qid\tquery\n301\tcrime\textra\n",
            ":2: expected 2 tab-separated columns under the header (qid query), found 3",
        ),
    ],
)
def test_tsv_header_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "t.tsv", text)
    assert error_of(path).startswith(f"{path}{message}")


# --------------------------------------------------------------------------- JSONL as ir_datasets exports it


def _irds_jsonl(records: list[tuple]) -> str:
    from ir_datasets.commands.export import JsonlExporter

    out = io.StringIO()
    exporter = JsonlExporter(type(records[0]), out)
    for record in records:
        exporter.next(record)
    exporter.flush()
    return out.getvalue()


def test_jsonl_from_ir_datasets_export(tmp_path: Path) -> None:
    from ir_datasets.datasets.clueweb09 import TrecWebTrackQuery
    from ir_datasets.formats import GenericQuery, TrecQuery, TrecSubtopic

    generic = _irds_jsonl([GenericQuery("1", "what is a lobster roll"), GenericQuery("2", "cost of solar")])
    topics = read_topics(write(tmp_path, "generic.jsonl", generic))
    assert [(t.query_id, t.query, t.metadata) for t in topics] == [
        ("1", "what is a lobster roll", {}),
        ("2", "cost of solar", {}),
    ]

    trec = _irds_jsonl(
        [TrecQuery("301", "Organized Crime", "Identify organizations.", "A relevant document …")]
    )
    (topic,) = read_topics(write(tmp_path, "trec.jsonl", trec))
    assert (topic.query_id, topic.query, topic.description, topic.narrative) == (
        "301",
        "Organized Crime",
        "Identify organizations.",
        "A relevant document …",
    )

    web = _irds_jsonl(
        [
            TrecWebTrackQuery(
                "1",
                "obama family tree",
                "Find information.",
                "faceted",
                (TrecSubtopic("1", "Photo essay.", "nav"),),
            )
        ]
    )
    (topic,) = read_topics(write(tmp_path, "web.jsonl", web))
    assert (topic.query_id, topic.query, topic.description) == ("1", "obama family tree", "Find information.")
    assert topic.metadata == {"type": "faceted", "subtopics": [["1", "Photo essay.", "nav"]]}


def test_jsonl_id_and_text_precedence(tmp_path: Path) -> None:
    line = '{"query_id": "7", "title": "short", "text": "the long form", "lang": "en"}\n'
    (topic,) = read_topics(write(tmp_path, "t.jsonl", line))
    # text wins over title (query > text > title); the title is kept, nothing is dropped
    assert (topic.query_id, topic.query, topic.metadata) == (
        "7",
        "the long form",
        {"title": "short", "lang": "en"},
    )
    path = write(tmp_path, "bad.jsonl", '{"query_id": "7", "question": "no text key"}\n')
    assert error_of(path) == f"{path}:1: topic '7': missing query text (query, text, title)"
