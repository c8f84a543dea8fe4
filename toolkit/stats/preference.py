"""Preference outcomes for deprecation topics: does the modern page rank above its legacy twin?

Per (topic, preference) pair and per run: **win** when the best-ranked doc matching ``modern`` ranks above the
best-ranked doc matching ``legacy`` (a legacy doc that is absent ranks below everything), **loss** when the
legacy one ranks above (or the modern one is absent and the legacy one present), **tie** when neither
appears (nothing to prefer). The pairs are then summarised by an exact sign test (ties dropped and reported)
and the win rate wins/(wins + losses) with its Clopper–Pearson 95% interval.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.model import Run, TopicSet
from toolkit.stats.counts import SignTestResult, sign_test

OUTCOMES: tuple[str, ...] = ("win", "loss", "tie")


@dataclass(frozen=True)
class PreferenceResult:
    """One run's preference outcomes; ``topics[outcome]`` lists pair ids (``qid``, or ``qid#k`` for the k-th pair)."""

    run: str
    topics: dict[str, tuple[str, ...]]
    test: SignTestResult


def preference_outcome(ranking: Sequence[str], modern: re.Pattern[str], legacy: re.Pattern[str]) -> str:
    """win / loss / tie for one ranked list and one ``Preference`` (regexes searched on doc ids)."""
    modern_rank = _first(ranking, modern)
    legacy_rank = _first(ranking, legacy)
    if modern_rank is None and legacy_rank is None:
        return "tie"
    if legacy_rank is None or (modern_rank is not None and modern_rank < legacy_rank):
        return "win"
    return "loss"


def _first(ranking: Sequence[str], regex: re.Pattern[str]) -> int | None:
    for i, doc in enumerate(ranking, start=1):
        if regex.search(doc):
            return i
    return None


def preference_pairs(topics: TopicSet) -> list[tuple[str, str, re.Pattern[str], re.Pattern[str]]]:
    """(pair id, query id, modern regex, legacy regex) for every preference of every topic."""
    pairs: list[tuple[str, str, re.Pattern[str], re.Pattern[str]]] = []
    for topic in topics:
        prefs = topic.preferences
        for k, pref in enumerate(prefs, start=1):
            pid = topic.query_id if len(prefs) == 1 else f"{topic.query_id}#{k}"
            pairs.append((pid, topic.query_id, pref.modern_regex, pref.legacy_regex))
    return pairs


def evaluate_preferences(run: Run, topics: TopicSet, *, name: str | None = None) -> PreferenceResult | None:
    """The run's outcome on every preference pair of the topic set (None when the set declares none)."""
    pairs = preference_pairs(topics)
    if not pairs:
        return None
    out: dict[str, list[str]] = {o: [] for o in OUTCOMES}
    for pid, qid, modern, legacy in pairs:
        out[preference_outcome(run.ranking(qid), modern, legacy)].append(pid)
    test = sign_test(len(out["win"]), len(out["loss"]), len(out["tie"]))
    return PreferenceResult(name or run.name, {k: tuple(v) for k, v in out.items()}, test)
