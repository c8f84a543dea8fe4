"""Holm and Benjamini–Hochberg (S4), randomised Tukey HSD."""

from collections.abc import Iterator

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


@pytest.mark.parametrize("method", ["holm", "bh"])
def test_a_family_of_one_is_statsmodels_value_without_loading_statsmodels(method: str) -> None:
    """One hypothesis needs no correction: the adjusted p is statsmodels' own value for a family of one,
    and ``compare`` with one candidate need not pay for importing statsmodels (and pandas with it)."""
    import subprocess
    import sys

    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(7)
    values = [0.0, 1.0, 5e-324, 0.05, *rng.uniform(0, 1, size=20).tolist()]
    code = (
        "import json, sys\n"
        "from toolkit.stats.multiple import adjust\n"
        f"out = [adjust([p], {method!r})[0] for p in json.loads(sys.argv[1])]\n"
        "print(json.dumps({'out': out, 'loaded': sorted(m for m in sys.modules if m.startswith('statsmodels'))}))\n"
    )
    import json

    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(values)], capture_output=True, text=True, check=True
    )
    answer = json.loads(done.stdout)
    expected = [
        float(multipletests([p], method={"holm": "holm", "bh": "fdr_bh"}[method])[1][0]) for p in values
    ]
    assert answer["out"] == expected
    assert answer["loaded"] == []


@pytest.fixture
def thawed() -> Iterator[None]:
    """Nothing frozen during the test (tests/conftest.py freezes what collection left alive), as in a process
    that never froze; frozen again afterwards."""
    import gc

    gc.unfreeze()
    try:
        yield
    finally:
        gc.freeze()


@pytest.mark.usefixtures("thawed")
def test_holm_does_not_make_a_full_collection_of_the_callers_objects() -> None:
    """statsmodels' Holm ends with ``gc.collect()``: in a process holding a few hundred thousand objects (a
    test runner, a notebook, an audit with matplotlib loaded) that full collection costs a tenth of a second a
    call, more than the correction. The objects alive before the call are frozen out of it (``gc.freeze``)
    and thawed after, so the collection only walks what the call made; the values stay statsmodels'."""
    import gc

    from statsmodels.stats.multitest import multipletests

    frozen_at_collection: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            frozen_at_collection.append(gc.get_freeze_count())

    assert gc.get_freeze_count() == 0
    gc.callbacks.append(record)
    try:
        values = adjust(S4, "holm")
    finally:
        gc.callbacks.remove(record)
    assert values == [float(p) for p in multipletests(S4, method="holm")[1]]
    assert frozen_at_collection and all(n > 0 for n in frozen_at_collection)
    assert gc.get_freeze_count() == 0  # everything thawed again


@pytest.mark.usefixtures("thawed")
def test_objects_frozen_by_the_caller_stay_frozen() -> None:
    """A pre-fork server freezes its objects on purpose; ``adjust`` leaves that choice alone."""
    import gc

    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        assert adjust(S4, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.2])
        # still frozen (a frozen object that dies is freed as usual, so the count may drop, but not to 0)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
