"""Holm and Benjamini–Hochberg (S4), randomised Tukey HSD."""

import numpy as np
import pytest

from toolkit.errors import ToolkitError
from toolkit.stats.multiple import adjust, randomized_tukey

S4 = [0.01, 0.04, 0.03, 0.005, 0.2]


def test_s4_holm():
    assert adjust(S4, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.2])


def test_s4_benjamini_hochberg():
    assert adjust(S4, "bh") == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.2])


def test_none_and_unknown():
    assert adjust(S4, "none") == S4
    with pytest.raises(ToolkitError, match="unknown correction 'bonferroni'"):
        adjust(S4, "bonferroni")


def test_tukey_respects_pairing_and_is_seeded():
    rng = np.random.default_rng(0)
    topic_effect = rng.normal(0, 1, size=(30, 1))  # large between-topic variation
    x = topic_effect + np.array([[0.0, 0.0, 0.3]]) + rng.normal(0, 0.05, size=(30, 3))
    a = randomized_tukey(x, ["a", "b", "c"], measure="m", seed=5, resamples=2000)
    assert a == randomized_tukey(x, ["a", "b", "c"], measure="m", seed=5, resamples=2000)
    p = {(t.a, t.b): t.pvalue for t in a.pairs}
    # pairing removes the topic effect: c differs clearly, a vs b does not
    assert p[("a", "c")] == 1 / 2001 and p[("b", "c")] == 1 / 2001
    assert p[("a", "b")] > 0.05


def test_tukey_needs_matrix():
    with pytest.raises(ToolkitError, match="topics × runs"):
        randomized_tukey(np.zeros((3, 1)), ["a"], measure="m")


def test_fixed_sequence_is_the_running_maximum_and_none_stays_out():
    # hierarchical testing (Maurer et al. 1995): H_i is rejected iff p_1..p_i are all ≤ α
    assert adjust([0.01, 0.04, 0.03, 0.2, 0.001], "fixed-sequence") == [0.01, 0.04, 0.04, 0.2, 0.2]
    assert adjust([0.01, None, 0.04], "holm") == pytest.approx([0.02, None, 0.04])
