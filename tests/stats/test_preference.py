"""Preference outcomes of deprecation pairs (modern above legacy)."""

import re
from pathlib import Path

import pytest

from toolkit.formats import read_run, read_topics
from toolkit.stats.preference import evaluate_preferences, preference_outcome

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"
NEW, OLD = re.compile("^new$"), re.compile("^old$")


@pytest.mark.parametrize(
    "ranking, outcome",
    [
        (["x", "new", "old"], "win"),
        (["old", "x", "new"], "loss"),
        (["new", "x"], "win"),  # legacy absent
        (["old"], "loss"),  # modern absent
        (["x", "y"], "tie"),  # neither
        ([], "tie"),
    ],
)
def test_outcome(ranking, outcome):
    assert preference_outcome(ranking, NEW, OLD) == outcome


def test_s3_counts_from_the_fixture_run():
    topics = read_topics(DATA / "s3.toml")
    result = evaluate_preferences(read_run(DATA / "s3-b.run"), topics)
    assert (result.test.wins, result.test.losses, result.test.ties) == (13, 3, 4)
    assert result.test.pvalue == pytest.approx(697 / 32768, abs=1e-12)
    assert result.test.ci95 == pytest.approx((0.543543, 0.959526), abs=1e-6)
