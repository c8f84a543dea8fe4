"""Every output parser: json (JMESPath), regex, lines, tsv, trec — and their refusals."""

from __future__ import annotations

import pytest

from toolkit.errors import ConfigError
from toolkit.systems import CallFailed, Hit, Parser


def ids(hits: list[Hit]) -> list[str]:
    return [h.doc_id for h in hits]


def test_json_jmespath_ids_and_scores() -> None:
    parser = Parser("json", ids="results[*].uri", scores="results[*].score")
    text = '{"results": [{"uri": "a://1", "score": 2.5}, {"uri": "a://2", "score": "3"}, {"uri": "a://1", "score": 1}]}'
    assert parser.parse(text) == [Hit("a://1", 2.5), Hit("a://2", 3.0)]  # duplicate a://1 dropped, first kept


def test_json_nested_expression_and_missing_key() -> None:
    parser = Parser("json", ids="hits.hits[*]._id")
    assert ids(parser.parse('{"hits": {"hits": [{"_id": "x"}, {"_id": 7}]}}')) == ["x", "7"]
    assert parser.parse('{"error": "no index"}') == []


def test_json_garbage_and_bad_shapes_fail_the_call() -> None:
    parser = Parser("json", ids="results[*].uri", scores="results[*].score")
    with pytest.raises(CallFailed, match=r"output is not JSON \(Expecting value at line 1 column 1\)"):
        parser.parse("<html>oops</html>")
    with pytest.raises(CallFailed, match=r"gave 1 values for 2 ids"):
        parser.parse('{"results": [{"uri": "a", "score": 1}, {"uri": "b"}]}')
    with pytest.raises(CallFailed, match=r"gave a non-string id \{\"x\": 1\}"):
        Parser("json", ids="r").parse('{"r": [{"x": 1}]}')


def test_json_needs_a_valid_expression() -> None:
    with pytest.raises(ConfigError, match='parser "json" needs ids'):
        Parser("json")
    with pytest.raises(ConfigError, match="invalid JMESPath expression"):
        Parser("json", ids="results[*")


def test_regex_first_appearance_deduplicated_whole_match() -> None:
    parser = Parser("regex", pattern=r"(apple-docs|swift-evolution)://[^\s)]+")
    text = (
        "1. [Hashable](apple-docs://swift/hashable) score 9\n"
        "2. see swift-evolution://0143 and apple-docs://swift/hashable again\n"
        "3. apple-docs://swift/equatable\n"
    )
    assert ids(parser.parse(text)) == [
        "apple-docs://swift/hashable",
        "swift-evolution://0143",
        "apple-docs://swift/equatable",
    ]


def test_regex_named_group_id() -> None:
    parser = Parser("regex", pattern=r'"id":\s*"(?P<id>[^"]+)"')
    assert ids(parser.parse('[{"id": "b"}, {"id": "a"}, {"id": "b"}]')) == ["b", "a"]


def test_regex_invalid_pattern_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"invalid regex '\(unclosed'"):
        Parser("regex", pattern="(unclosed")


def test_lines_in_order_blank_lines_skipped_whitespace_refused() -> None:
    assert ids(Parser("lines").parse("b\n\n  a  \nb\n")) == ["b", "a"]
    with pytest.raises(CallFailed, match=r"invalid doc id \"two words\""):
        Parser("lines").parse("ok\ntwo words\n")


def test_tsv_ids_with_optional_scores() -> None:
    hits = Parser("tsv").parse("# doc\tscore\nd1\t0.5\nd2\t0.9\nd3\n")
    assert hits == [Hit("d1", 0.5), Hit("d2", 0.9), Hit("d3", None)]  # the system's order, not by score
    with pytest.raises(CallFailed, match=r"tsv output line 1: expected a numeric score, found 'high'"):
        Parser("tsv").parse("d1\thigh\n")
    with pytest.raises(CallFailed, match=r"tsv output line 1: expected doc_id<TAB>score, found 3 columns"):
        Parser("tsv").parse("d1\t1\textra\n")


def test_trec_lines_in_trec_eval_order() -> None:
    # trec_eval orders by score desc, then doc_id desc; the rank column is ignored.
    text = "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 3.0 t\nq1 Q0 c 3 1.0 t\nq1 Q0 d 4 2.0 t\n"
    assert ids(Parser("trec").parse(text)) == ["b", "d", "c", "a"]
    with pytest.raises(CallFailed, match=r"trec output line 1: expected 6 columns"):
        Parser("trec").parse("q1 Q0 a 1 1.0\n")
    with pytest.raises(CallFailed, match=r"trec output line 1: expected a numeric score, found 'x'"):
        Parser("trec").parse("q1 Q0 a 1 x t\n")


def test_unknown_parser() -> None:
    with pytest.raises(ConfigError, match="unknown parser 'xml'; use one of json, regex, lines, tsv, trec"):
        Parser("xml")
