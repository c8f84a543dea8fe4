"""Regex truth searches only where a pattern can match, and finds exactly what one search per pair finds.

``build_qrels`` searches a pattern anchored by a literal (``^pydoc://json\\.``) only in the slice of the
sorted covered ids that start with that literal. The reference here is the rule itself, one
``TruthPattern.matches`` per (pattern, doc id) pair: random patterns (anchors, escapes, alternations inside and
outside groups, classes, quantifiers, lookarounds, comments, inline flags) on random doc ids must give the
same qrels, the same unmatched patterns and topics, and the same suspicious counts.
"""

from __future__ import annotations

import re
import warnings

import pytest
from helpers.sizes import scaled_settings
from hypothesis import example, given
from hypothesis import strategies as st

from toolkit.model import Topic, TopicSet, TruthPattern
from toolkit.truth import _anchored_prefix, build_qrels

TOKENS = [
    "a", "b", "c", "-", "/", ":", "é", " ", "#",
    r"\.", r"\-", r"\|", r"\(", r"\)", r"\[", r"\]", r"\\", r"\d", r"\w", r"\n", r"\b", r"\A", r"\Z",
    ".", "^", "$", "|", "(", ")", "(?:", "(?P<g>", "[", "]", "[^", "[]", "*", "+", "?", "*?", "{2}", "{1,3}",
    "{", "}", "(?=", "(?!", "(?<=a)", "(?<!b)", "(?#", "(?i)", "(?i:", "(?m)", "(?s)", "(?x)", "\n",
]  # fmt: skip
PREFIXES = ["", "^", "^a", "^ab", "^pydoc://", r"^pydoc://a\.", "(?i)^a", "^a|"]
DOC_CHARS = "abcAB-/:.é \n"


def _pattern() -> st.SearchStrategy[str]:
    return st.builds(
        lambda head, body: head + "".join(body),
        st.sampled_from(PREFIXES),
        st.lists(st.sampled_from(TOKENS), max_size=8),
    )


def _compiles(pattern: str, flags: int = 0) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "possible nested set" and the like: the pattern still compiles
        try:
            re.compile(pattern, flags)
        except (re.error, OverflowError, RecursionError):
            return False
    return True


def _reference(topics: TopicSet, doc_ids: list[str], max_matches: int) -> tuple[object, ...]:
    """One ``matches`` call per (pattern, doc) pair: the rule as first written."""
    universe = sorted(set(doc_ids))
    judgments: dict[str, dict[str, int]] = {}
    unmatched_topics, unmatched_patterns, suspicious = [], [], []
    for topic in topics:
        grades: dict[str, int] = {}
        for pattern in topic.truth:
            matched = [d for d in universe if pattern.matches(d)]
            if not matched:
                unmatched_patterns.append((topic.query_id, pattern.pattern))
            if len(matched) > max_matches:
                suspicious.append((topic.query_id, pattern.pattern, len(matched)))
            for d in matched:
                grades[d] = max(grades.get(d, pattern.grade), pattern.grade)
        if not grades:
            unmatched_topics.append(topic.query_id)
        else:
            judgments[topic.query_id] = dict(sorted(grades.items()))
        for d in universe:  # the topic's own rule agrees too
            assert topic.grade(d) == grades.get(d)
    return judgments, tuple(unmatched_topics), tuple(unmatched_patterns), tuple(suspicious)


def _ours(topics: TopicSet, doc_ids: list[str], max_matches: int) -> tuple[object, ...]:
    result = build_qrels(topics, doc_ids, max_matches=max_matches)
    return (
        result.qrels.judgments,
        result.unmatched_topics,
        result.unmatched_patterns,
        tuple((s.query_id, s.pattern, s.matches) for s in result.suspicious),
    )


def _case(pattern: str, docs: list[str], flags: int = 0) -> dict[str, object]:
    return {"patterns": [(pattern, 1)], "prefixes": [""], "tails": docs, "flags": flags, "split": 1}


@scaled_settings(max_examples=600, deadline=None)
@example(**_case(r"^ab?c", ["ac", "abc", "b"]))  # an optional character is not part of the prefix
@example(**_case(r"^a*b", ["b", "ab", "c"]))
@example(**_case(r"^a[(]b|c", ["xc", "a(b", "b"]))  # the "(" in a class opens no group: "|" is top level
@example(**_case(r"^a[]|]b|c", ["xc", "a|b", "b"]))
@example(**_case(r"^a[(]b|c[)]", ["xc)", "a(b"]))
@example(**_case(r"^a[](]b|c[])]", ["xc]", "a]b"]))  # "]" first in a class is a member
@example(**_case(r"^a\(b|c\)", ["xc)", "a(b"]))  # escaped parentheses open no group
@example(**_case(r"^abc", ["ABC", "abc", "xabc"], re.IGNORECASE))
@example(**_case(r"^abc", ["x\nabc", "abc"], re.MULTILINE))
@example(**_case(r"^pydoc://a\.b$", ["pydoc://a.b", "pydoc://a.b\n", "pydoc://a.bc", "pydoc://aXb"]))
@given(
    patterns=st.lists(st.tuples(_pattern(), st.integers(1, 3)), min_size=1, max_size=6),
    prefixes=st.lists(st.sampled_from(["", "a", "ab", "pydoc://", "pydoc://a.", "A", "\n"]), min_size=1),
    tails=st.lists(st.text(DOC_CHARS, max_size=6), min_size=1, max_size=40),
    flags=st.sampled_from([0, re.IGNORECASE, re.MULTILINE, re.DOTALL, re.VERBOSE]),
    split=st.integers(1, 5),
)
def test_the_same_qrels_as_one_search_per_pair(
    patterns: list[tuple[str, int]], prefixes: list[str], tails: list[str], flags: int, split: int
) -> None:
    usable = [(p, g) for p, g in patterns if _compiles(p) and _compiles(p, flags)]
    if not usable:
        return
    doc_ids = [prefixes[i % len(prefixes)] + tail for i, tail in enumerate(tails)]
    truth = [TruthPattern(p, g, re.compile(p, flags) if flags else None) for p, g in usable]
    topics = TopicSet(
        topics=tuple(
            Topic(f"t{i}", "q", truth=tuple(truth[i::split])) for i in range(split) if truth[i::split]
        ),
        name="random",
    )
    assert _ours(topics, doc_ids, 3) == _reference(topics, doc_ids, 3)


@pytest.mark.parametrize(
    ("pattern", "flags", "prefix"),
    [
        (r"^pydoc://collections\.OrderedDict$", 0, "pydoc://collections.OrderedDict"),
        (r"^pydoc://re\.(compile|search)$", 0, "pydoc://re."),
        (r"^d01-new$", 0, "d01-new"),
        (r"^pydoc://(\w+\.)+[A-Z]\w*Decoder$", 0, "pydoc://"),
        (r"^ab?c", 0, "a"),  # b is optional: only "a" is certain
        (r"^ab*", 0, "a"),
        (r"^ab+", 0, "a"),
        (r"^ab{2}", 0, "a"),
        (r"^a\d", 0, "a"),  # \d is a class, not a literal
        (r"^a\.b", 0, "a.b"),
        (r"^a|b", 0, ""),  # the alternation is top level: "b" anywhere matches
        (r"^a(b|c)|d", 0, ""),
        (r"^a[|]b", 0, "a"),  # a | inside a class is a character
        (r"^a[]|]b", 0, "a"),
        (r"^a\|b", 0, "a|b"),
        (r"^a(?#x|)b", 0, ""),  # a comment: refused rather than parsed
        (r"^abc", re.IGNORECASE, ""),  # case folded: a literal is not a prefix
        (r"^abc", re.MULTILINE, ""),  # ^ after any newline
        (r"(?i)^abc", 0, ""),
        (r"abc", 0, ""),  # not anchored
        (r"\Aabc", 0, ""),  # anchored, but not with ^: searched everywhere (still exact)
    ],
)
def test_the_certain_prefix_of_an_anchored_pattern(pattern: str, flags: int, prefix: str) -> None:
    assert _anchored_prefix(re.compile(pattern, flags)) == prefix
