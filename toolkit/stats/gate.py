"""Gate rules: declared thresholds a candidate run must meet against a baseline (the CI regression guard).

A rule is one line (on the command line with ``--rule`` or in ``toolkit.toml`` under ``[gate] rules``)::

    MEASURE [QUANTITY] OP NUMBER [class=CLASS]

* ``MEASURE``: any measure the scorer knows (``nDCG@10``, ``P@1``, ``R-Prec``), or ``win_rate`` — the
  candidate's preference win rate on the deprecation pairs of the topic set —, or ``refusal`` (refusal
  correctness: the share of the topics declared ``expect = "empty"`` it returned nothing for) or
  ``empty_rate`` (the share of the other topics it returned nothing for; ``toolkit.scoring.refusal``);
* ``QUANTITY``: ``value`` (the default: the candidate's mean), ``drop`` (baseline mean − candidate mean, so a
  regression is positive) or ``delta`` (candidate − baseline);
* ``OP``: ``<=``, ``<``, ``>=``, ``>``;
* ``class=CLASS``: average over that class's topics only (needs a topic set).

Examples: ``nDCG@10 drop <= 0.05``, ``P@1 >= 1.0 class=canonical``, ``RR@10 delta > -0.02``,
``win_rate >= 0.75``, ``refusal >= 0.9``, ``empty_rate <= 0.05``. Values are compared on the 1e-9 grid, so a drop of exactly 0.05 passes ``<= 0.05``
despite float round-off.

A gate checks thresholds on means, not hypotheses: it says so (``CRITERION``) in every output, because a
passing ``drop`` rule is easily read as "no regression", which only a non-inferiority test can show
(``compare --margin … --fail-on regression``). Failed topics follow the run-failure policy: a candidate
compared with a run that has failed topics is not comparable, and the gate fails, unless allowed.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkit.errors import UsageError
from toolkit.stats.result import Failures

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

    from toolkit.scoring.refusal import RefusalScores

#: The pseudo-measure of a rule on the preference win rate (not an ir_measures measure).
WIN_RATE = "win_rate"
#: The pseudo-measures of rules on the refusal outcome: refusal correctness and the empty-result rate.
REFUSAL = "refusal"
EMPTY_RATE = "empty_rate"
#: Rule names that are not ir_measures measures.
PSEUDO = (WIN_RATE, REFUSAL, EMPTY_RATE)
#: What a gate checks, in words (shown in every output of ``gate``).
CRITERION = (
    "thresholds on mean values over the topics — no significance or non-inferiority test. A passing drop rule "
    "is not evidence of no regression: for that claim use compare --margin MEASURE=M --fail-on regression."
)

OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
}
#: What a rule compares: the candidate's mean (``value``, the default), or its change from the baseline.
QUANTITIES = ("value", "drop", "delta")
GRAMMAR = f"MEASURE [{'|'.join(QUANTITIES)}] {'|'.join(OPERATORS)} NUMBER [class=CLASS], e.g. 'nDCG@10 drop <= 0.05'"

_RULE = re.compile(
    rf"^\s*(?P<measure>\S+?)\s*(?:\s(?P<quantity>{'|'.join(QUANTITIES)})\s*)?"
    rf"(?P<op>{'|'.join(sorted(OPERATORS, key=len, reverse=True))})\s*"
    r"(?P<number>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(?:\s(?P<filters>.*))?$"
)


@dataclass(frozen=True)
class GateRule:
    """One parsed rule; ``measure`` is an ir_measures object, or one of ``PSEUDO`` (``win_rate``, ``refusal``,
    ``empty_rate``)."""

    text: str
    measure: Measure | str
    quantity: str
    op: str
    threshold: float
    query_class: str | None = None


@dataclass(frozen=True)
class GateCheck:
    """One rule's outcome: the measured ``value`` (None if it could not be measured) and whether it held."""

    rule: GateRule
    value: float | None
    passed: bool
    n: int
    detail: str = ""


@dataclass(frozen=True)
class GateResult:
    """Every rule's check; ``failures`` (the run-failure policy's verdict) can fail the gate on its own."""

    baseline: str
    candidate: str
    checks: tuple[GateCheck, ...]
    failures: Failures = field(default_factory=Failures)
    criterion: str = CRITERION

    @property
    def comparable(self) -> bool:
        return self.candidate not in self.failures.not_comparable

    @property
    def passed(self) -> bool:
        return self.comparable and all(c.passed for c in self.checks)

    @property
    def failed(self) -> tuple[GateCheck, ...]:
        return tuple(c for c in self.checks if not c.passed)


def parse_rule(text: str) -> GateRule:
    """Parse one rule, its measure into an ir_measures object (UsageError for an unknown measure)."""
    from toolkit.scoring.measures import check_per_topic, parse_measure

    match = _RULE.match(text)
    if not match:
        raise UsageError(f"cannot read gate rule {text!r}; expected {GRAMMAR}")
    query_class = None
    for item in (match.group("filters") or "").split():
        key, _, value = item.partition("=")
        if key != "class" or not value:
            raise UsageError(f"gate rule {text!r}: unknown filter {item!r}; the only filter is class=CLASS")
        query_class = value
    name = match.group("measure")
    measure = name if name in PSEUDO else parse_measure(name)
    if not isinstance(measure, str):
        check_per_topic(measure, use="a gate rule")
    quantity = match.group("quantity") or "value"
    if measure == WIN_RATE and query_class is not None:
        raise UsageError(f"gate rule {text!r}: win_rate covers the deprecation pairs; drop class=")
    return GateRule(
        text.strip(), measure, quantity, match.group("op"), float(match.group("number")), query_class
    )


def check_rules(
    rules: Sequence[GateRule],
    baseline: Mapping[str, Mapping[str, float]],
    candidate: Mapping[str, Mapping[str, float]],
    *,
    classes: Mapping[str, Sequence[str]] | None = None,
    win_rates: Mapping[str, float | None] | None = None,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    refusal: tuple[RefusalScores, RefusalScores] | None = None,
) -> GateResult:
    """Evaluate rules on per-topic values (``values[query_id][measure name]``, every topic of the denominator);
    ``refusal`` rules on the two runs' refusal outcomes (baseline, candidate)."""
    checks = []
    for rule in rules:
        if rule.measure in (REFUSAL, EMPTY_RATE):
            checks.append(_check_refusal(rule, refusal, classes or {}))
        else:
            checks.append(_check(rule, baseline, candidate, classes or {}, win_rates or {}))
    return GateResult(baseline_name, candidate_name, tuple(checks))


def _check(
    rule: GateRule,
    baseline: Mapping[str, Mapping[str, float]],
    candidate: Mapping[str, Mapping[str, float]],
    classes: Mapping[str, Sequence[str]],
    win_rates: Mapping[str, Any],
) -> GateCheck:
    if rule.measure == WIN_RATE:
        base, cand = win_rates.get("baseline"), win_rates.get("candidate")
        n = int(win_rates.get("n", 0) or 0)
        if cand is None:
            return GateCheck(
                rule, None, False, n, "no decided preference pair (no deprecation topics, or all ties)"
            )
        return _decide(rule, base, cand, n)
    ids = list(candidate)
    if rule.query_class is not None:
        if rule.query_class not in classes:
            known = ", ".join(classes) or "none (pass --topics with classes)"
            return GateCheck(
                rule, None, False, 0, f"no topics of class {rule.query_class!r}; classes: {known}"
            )
        ids = [q for q in classes[rule.query_class] if q in candidate]
    if not ids:
        return GateCheck(rule, None, False, 0, "no topics to measure")
    name = str(rule.measure)
    try:
        cand = sum(float(candidate[q][name]) for q in ids) / len(ids)
        base = sum(float(baseline[q][name]) for q in ids if q in baseline) / len(ids)
    except KeyError:
        return GateCheck(rule, None, False, len(ids), f"{rule.measure} was not computed")
    return _decide(rule, base, cand, len(ids))


def _check_refusal(
    rule: GateRule,
    refusal: tuple[RefusalScores, RefusalScores] | None,
    classes: Mapping[str, Sequence[str]],
) -> GateCheck:
    """A ``refusal`` or ``empty_rate`` rule: the rate over the run's topics (or one class's); a rate that does
    not exist (no topic declared expect = "empty") fails the rule with the reason."""
    if refusal is None:
        return GateCheck(rule, None, False, 0, "the refusal outcome was not computed")
    base, cand = refusal
    if rule.query_class is not None:
        if rule.query_class not in classes:
            known = ", ".join(classes) or "none (pass --topics with classes)"
            return GateCheck(
                rule, None, False, 0, f"no topics of class {rule.query_class!r}; classes: {known}"
            )
        from toolkit.scoring.refusal import NO_EXPECT_EMPTY_IN_CLASS

        ids = classes[rule.query_class]
        base = base.subset(ids, reason=NO_EXPECT_EMPTY_IN_CLASS)
        cand = cand.subset(ids, reason=NO_EXPECT_EMPTY_IN_CLASS)
    if rule.measure == REFUSAL:
        value, n, reason = cand.refusal, len(cand.expect_empty), cand.refusal_reason
        before = base.refusal
    else:
        value, n, reason = cand.empty_rate, len(cand.others), cand.empty_rate_reason
        before = base.empty_rate
    if value is None:
        return GateCheck(rule, None, False, n, reason or "no topics to measure")
    return _decide(rule, before, value, n)


def _decide(rule: GateRule, base: float | None, cand: float, n: int) -> GateCheck:
    if rule.quantity == "value":
        value = cand
    elif base is None:
        return GateCheck(rule, None, False, n, "the baseline has no value to compare with")
    else:
        value = base - cand if rule.quantity == "drop" else cand - base
    passed = OPERATORS[rule.op](round(value, 9), round(rule.threshold, 9))
    return GateCheck(rule, value, passed, n)


def run_gate(
    rule_texts: Sequence[str],
    baseline: Any,
    candidate: Any,
    qrels: Any,
    *,
    topics: Any = None,
    failures: Failures | None = None,
) -> GateResult:
    """Parse ``rule_texts``, score both runs (``toolkit.scoring``) and check every rule.

    Two runs of one name (the same file name in two folders) are told apart as ``NAME (baseline)``.
    ``failures`` is the run-failure policy's verdict (``toolkit.pipeline.failures.comparison_failures``).
    """
    import dataclasses

    from toolkit.scoring import evaluate
    from toolkit.stats.preference import evaluate_preferences

    original = (baseline.name, candidate.name)
    if baseline.name == candidate.name:
        baseline = dataclasses.replace(baseline, name=f"{baseline.name} (baseline)")

    rules = [parse_rule(t) for t in rule_texts]
    measures = list(dict.fromkeys(r.measure for r in rules if r.measure not in PSEUDO))
    per_topic = []
    for run in (baseline, candidate):
        if measures:
            scores = evaluate(run, qrels, topics=topics, measures=measures)
            per_topic.append({q: dict(scores.per_query[q]) for q in scores.query_ids})
        else:
            per_topic.append({})
    classes: dict[str, list[str]] = {}
    if topics is not None:
        for t in topics:
            if t.query_class:
                classes.setdefault(t.query_class, []).append(t.query_id)
    refusal = None
    if any(r.measure in (REFUSAL, EMPTY_RATE) for r in rules):
        from toolkit.scoring.refusal import refusal_scores

        refusal = (
            refusal_scores(
                baseline, topics, qrels, failed=_recorded(failures, baseline, baseline.name, original[0])
            ),
            refusal_scores(
                candidate, topics, qrels, failed=_recorded(failures, candidate, candidate.name, original[1])
            ),
        )
    win_rates: dict[str, Any] = {}
    if topics is not None and any(r.measure == WIN_RATE for r in rules):
        base_pref = evaluate_preferences(baseline, topics)
        cand_pref = evaluate_preferences(candidate, topics)
        if cand_pref is not None and base_pref is not None:
            win_rates = {
                "baseline": base_pref.test.win_rate,
                "candidate": cand_pref.test.win_rate,
                "n": cand_pref.test.wins + cand_pref.test.losses,
            }
    result = check_rules(
        rules,
        per_topic[0],
        per_topic[1],
        classes=classes,
        win_rates=win_rates,
        baseline_name=baseline.name,
        candidate_name=candidate.name,
        refusal=refusal,
    )
    return dataclasses.replace(result, failures=failures or Failures())


def _recorded(policy: Failures | None, run: Any, *names: str) -> tuple[str, ...] | None:
    """A run's failed topics under the policy (by any of its ``names``); without a policy (a library call),
    from the manifest beside the run's file; None when they are unknown (no manifest)."""
    if policy is None:
        from toolkit.formats.manifest import recorded_failed_topics

        return recorded_failed_topics(run.path) if getattr(run, "path", None) else None
    if any(n in policy.unrecorded for n in names):
        return None
    return next((tuple(policy.failed[n]) for n in names if n in policy.failed), ())
