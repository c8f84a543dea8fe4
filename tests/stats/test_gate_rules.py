"""The gate rule grammar and its evaluation on per-topic values."""

import pytest

from toolkit.errors import UsageError
from toolkit.stats.gate import check_rules, parse_rule


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("nDCG@10 drop <= 0.05", ("nDCG@10", "drop", "<=", 0.05, None)),
        ("P@1 >= 1.0 class=canonical", ("P@1", "value", ">=", 1.0, "canonical")),
        ("RR@10 delta > -0.02", ("RR@10", "delta", ">", -0.02, None)),
        ("win_rate>=.75", ("win_rate", "value", ">=", 0.75, None)),
        ("P(rel=2)@5 value < 1e-1", ("P(rel=2)@5", "value", "<", 0.1, None)),
    ],
)
def test_parse(text, parsed):
    r = parse_rule(text)
    assert (str(r.measure), r.quantity, r.op, r.threshold, r.query_class) == parsed


def test_parse_errors():
    with pytest.raises(UsageError, match="cannot read gate rule"):
        parse_rule("nDCG@10 fell a lot")
    with pytest.raises(UsageError, match="win_rate covers the deprecation pairs"):
        parse_rule("win_rate >= 0.5 class=deprecation")


def test_check_rules_by_hand():
    base = {"a": {"P@1": 1.0}, "b": {"P@1": 1.0}, "c": {"P@1": 0.0}}
    cand = {"a": {"P@1": 1.0}, "b": {"P@1": 0.0}, "c": {"P@1": 0.0}}
    rules = [parse_rule("P@1 drop <= 0.3"), parse_rule("P@1 >= 1 class=x"), parse_rule("P@1 delta >= -0.5")]
    result = check_rules(rules, base, cand, classes={"x": ["a"]})
    assert [c.passed for c in result.checks] == [False, True, True]
    assert result.checks[0].value == pytest.approx(1 / 3)  # (2/3) − (1/3)
    assert result.checks[1].value == 1.0 and result.checks[1].n == 1
    assert not result.passed and len(result.failed) == 1
