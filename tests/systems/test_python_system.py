"""Python systems: ``module:function`` loading, return shapes, exceptions and timeouts become failures."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from toolkit.errors import ConfigError
from toolkit.model import Topic, TopicSet
from toolkit.systems import CallFailed, Hit, PythonSystem, run_system


def test_loads_module_function() -> None:
    system = PythonSystem("p", "os.path:split")  # split("a/b", 3) fails: a recorded failure, not a crash
    system.check()
    with pytest.raises(CallFailed, match="TypeError"):
        system.search("a/b", query_id="q", depth=3, timeout=5)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nocolon", "callable 'nocolon' must look like 'package.module:function'"),
        ("no_such_module_xyz:f", "cannot import 'no_such_module_xyz'"),
        ("os.path:nothing_here", "'os.path' has no attribute 'nothing_here'"),
        ("os:sep", "'os:sep' is not callable"),
    ],
)
def test_bad_callables(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        PythonSystem("p", spec).check()


def test_return_shapes() -> None:
    system = PythonSystem("p", "x:y", function=lambda q, d: ["a", ("b", 2), ["c", None], "a"])
    assert system.search("q", query_id="q", depth=5, timeout=1) == [Hit("a"), Hit("b", 2.0), Hit("c")]
    bad = PythonSystem("p", "x:y", function=lambda q, d: [42])
    with pytest.raises(CallFailed, match="expected a doc id or a \\(doc_id, score\\) pair, got 42"):
        bad.search("q", query_id="q", depth=5, timeout=1)


def test_timeout_is_a_failure(tmp_path: Path) -> None:
    def slow(query: str, depth: int) -> list[str]:
        if query == "slow":
            time.sleep(1.0)
        return ["d1"]

    topics = TopicSet(topics=(Topic("a", "fast"), Topic("b", "slow")), name="t", sha256="2" * 64)
    result = run_system(
        PythonSystem("p", "x:y", function=slow), topics, output=tmp_path / "p.run", timeout=0.2
    )
    assert [(f.query_id, f.reason) for f in result.failures] == [
        ("b", "timed out after 0.2s (the call keeps running in its thread)")
    ]
    assert result.empty_topics == ("b",)
    assert result.run.ranking("a") == ["d1"]
