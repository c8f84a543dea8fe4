"""The refusal outcome in reports: refusal correctness and the empty-result rate (``toolkit.scoring.refusal``).

``score`` and ``compare``/``audit`` show one section, "Refusal and empty results", when the topic set declares
topics ``expect = "empty"``: a table per run (and per class in ``score --by-class``) and, in a comparison,
exact McNemar per candidate on the per-topic outcome with the topics whose outcome changed. Their JSON always
carries the outcome (``refusal``), null with its reason when nothing is declared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.reports.document import Block, bullets, esc, heading, paragraph, table
from toolkit.reports.numbers import num, pval
from toolkit.stats.counts import reach_note

if TYPE_CHECKING:
    from toolkit.model import TopicSet
    from toolkit.scoring.refusal import RefusalScores
    from toolkit.stats.refusal import OutcomeChange, RefusalComparison
    from toolkit.stats.result import ComparisonResult

HEADING = "Refusal and empty results"
COLUMNS = ["run", "topic", "expect empty", "refused", "refusal", "other", "empty", "empty rate"]


def declared(refusals: Sequence[RefusalScores]) -> bool:
    """Whether the report shows the section: the topic set declares topics that should find nothing."""
    return any(r.expect_empty for r in refusals)


def definition(refusal: RefusalScores, *, with_n: bool = False) -> str:
    """What the two numbers are; ``with_n``: also that the relevance measures' ``n`` leaves the expected-empty
    topics out (a comparison says it here; ``score`` says it under its table, ``n_note``)."""
    m, k = len(refusal.expect_empty), len(refusal.others)
    text = (
        f'Refusal = the share of the {m} topic{"" if m == 1 else "s"} declared expect = "empty" for which a run '
        f"returned nothing; empty rate = the share of the other {k} topic{'' if k == 1 else 's'} for which it "
        "returned nothing. A call the run's manifest records as failed or timed out is neither."
    )
    if with_n:
        text += f" The relevance measures' n counts only those {k} topics that can have relevant documents."
    return text


def n_note(refusal: RefusalScores) -> str:
    """The sentence under a scores table: what ``n`` counts when some topics are expected empty."""
    m = len(refusal.expect_empty)
    return (
        f"n counts only the topics that can have relevant documents: the {m} topic{'' if m == 1 else 's'} declared "
        f'expect = "empty" ({esc(" ".join(refusal.expect_empty))}) are left out of it and scored by their refusal '
        "outcome alone (below)."
    )


def _row(run: str, scope: str, r: RefusalScores) -> list[str]:
    return [
        run,
        scope,
        str(len(r.expect_empty)),
        str(len(r.refused)),
        num(r.refusal),
        str(len(r.others)),
        str(len(r.empty)),
        num(r.empty_rate),
    ]


def _listed(r: RefusalScores) -> list[str]:
    """The topics behind the numbers: expected-empty topics answered, other topics left empty, failed ones."""
    items = []
    for label, ids in (
        ("answered (not refused)", r.answered),
        ("left empty", r.empty),
        ("failed (neither refused nor empty)", r.failed),
    ):
        if ids:
            items.append(f"{esc(r.run)} {label} ({len(ids)}): {esc(' '.join(ids))}")
    if not r.recorded and r.expect_empty:
        items.append(
            f"{esc(r.run)} has no manifest: a failed call cannot be told from a refusal, so every empty result "
            "counts as refused"
        )
    return items


def _nulls(rows: Sequence[tuple[str, RefusalScores]]) -> list[str]:
    """One line per reason a rate is null (``–``)."""
    reasons: dict[str, None] = {}
    for _, r in rows:
        for reason in (r.refusal_reason, r.empty_rate_reason):
            if reason:
                reasons.setdefault(f"– (undefined): {esc(reason)}", None)
    return list(reasons)


def score_blocks(
    refusals: Sequence[RefusalScores], topics: TopicSet | None, *, by_class: bool = False
) -> list[Block]:
    """``score``'s section: one row per run (and per class with ``by_class``), the listed topics, the nulls."""
    if not declared(refusals):
        return []
    rows: list[list[str]] = []
    scoped: list[tuple[str, RefusalScores]] = []
    for r in refusals:
        rows.append(_row(r.run, "all", r))
        scoped.append(("all", r))
        if by_class and topics is not None:
            for cls, part in r.by_class(topics).items():
                rows.append(_row(r.run, f"class:{cls}", part))
                scoped.append((cls, part))
    items = [item for r in refusals for item in _listed(r)] + _nulls(scoped)
    return [
        heading(HEADING),
        paragraph(definition(refusals[0])),
        table(COLUMNS, rows, left=(0, 1)),
        *([bullets(items)] if items else []),
    ]


def _change_row(candidate: str, outcome: str, c: OutcomeChange | None) -> list[str]:
    if c is None:
        return [candidate, outcome, "0", "0", "0", "–"]
    return [
        candidate,
        outcome,
        str(c.topics),
        str(len(c.became_empty)),
        str(len(c.became_answered)),
        pval(c.mcnemar.pvalue),
    ]


def comparison_blocks(result: ComparisonResult) -> list[Block]:
    """``compare``/``audit``'s section: each run's rates, then per candidate exact McNemar on the per-topic
    outcome (refusal on the expected-empty topics, empty result on the others) and the changed topics."""
    if not declared(result.refusal):
        return []
    base = result.baseline
    rows = [_row(r.run, "all", r) for r in result.refusal]
    tests = []
    changed: list[str] = []
    notes: list[str] = []
    for t in result.refusal_tests:
        tests.append(_change_row(t.candidate, "refusal", t.refusal))
        tests.append(_change_row(t.candidate, "empty result", t.empty))
        changed += changes(t)
        for label, c in (("refusal", t.refusal), ("empty result", t.empty)):
            note = reach_note(c.discordant, result.alpha) if c is not None else None
            if note:
                notes.append(f"{esc(t.candidate)}, {label}: {note}")
    listed = [item for r in result.refusal for item in _listed(r)] + _nulls(
        [("all", r) for r in result.refusal]
    )
    return [
        heading(HEADING),
        paragraph(definition(result.refusal[0], with_n=True)),
        table(COLUMNS, rows, left=(0, 1)),
        *([bullets(listed)] if listed else []),
        paragraph(
            f"Paired by topic, the outcome is whether a run returned nothing; exact McNemar on the topics whose "
            f"outcome changed against {esc(base)}: on the expected-empty topics a new refusal is better, on the "
            "others a new empty result is worse."
        ),
        table(
            ["candidate", "outcome", "topics", "now nothing", "no longer nothing", "exact McNemar p"],
            tests,
            left=(0, 1),
        ),
        *([bullets(changed + notes)] if changed or notes else []),
    ]


def changed_topics(t: RefusalComparison) -> list[tuple[str, tuple[str, ...]]]:
    """Each kind of change in the outcome against the baseline ("now refused", "no longer refused", "now
    empty", "no longer empty") with its topics, in that order; kinds without topics are left out."""
    out = []
    for c, now, before in (
        (t.refusal, "now refused", "no longer refused"),
        (t.empty, "now empty", "no longer empty"),
    ):
        if c is None:
            continue
        for label, ids in ((now, c.became_empty), (before, c.became_answered)):
            if ids:
                out.append((label, tuple(ids)))
    return out


def changes(t: RefusalComparison) -> list[str]:
    """One list item per kind of change against the baseline, with its topics (the verdict section lists them:
    a refusal gained or lost is the most visible change a user sees, whatever its size or p)."""
    return [
        f"{esc(t.candidate)} {label} (vs {esc(t.baseline)}, {len(ids)}): {esc(' '.join(ids))}"
        for label, ids in changed_topics(t)
    ]


def verdict_sentence(result: ComparisonResult, candidate: str) -> str | None:
    """The verdict paragraph's sentence on the refusal outcome (only when topics are declared expected empty)."""
    t = next((x for x in result.refusal_tests if x.candidate == candidate), None)
    runs = {r.run: r for r in result.refusal}
    if t is None or not declared(result.refusal) or t.refusal is None:
        return None
    b, c = runs[result.baseline], runs[candidate]
    empty = (
        f" Empty results {num(b.empty_rate)} → {num(c.empty_rate)} of {len(c.others)} other topics (exact "
        f"McNemar p = {pval(t.empty.mcnemar.pvalue)})."
        if t.empty is not None
        else ""
    )
    return (
        f"Refusal {num(b.refusal)} → {num(c.refusal)} on {len(c.expect_empty)} topics declared expect = "
        f'"empty" (exact McNemar p = {pval(t.refusal.mcnemar.pvalue)}).{empty}'
    )


def refusal_data(scores: RefusalScores, topics: TopicSet | None = None) -> dict[str, Any]:
    """One run's refusal outcome as JSON (``score``, ``compare``, ``audit``); per class with ``topics``; every
    null has its reason beside it."""
    data = {"run": scores.run, **_counts(scores)}
    data.update(
        {
            "expect_empty_topics": list(scores.expect_empty),
            "refused_topics": list(scores.refused),
            "answered_topics": list(scores.answered),
            "empty_topics": list(scores.empty),
            "failed_topics": list(scores.failed),
            "manifest": scores.recorded,
        }
    )
    if topics is not None:
        data["by_class"] = {cls: _counts(part) for cls, part in scores.by_class(topics).items()}
    return data


def _counts(scores: RefusalScores) -> dict[str, Any]:
    return {
        "expect_empty": len(scores.expect_empty),
        "refused": len(scores.refused),
        "refusal": scores.refusal,
        "refusal_reason": scores.refusal_reason,
        "others": len(scores.others),
        "empty": len(scores.empty),
        "empty_rate": scores.empty_rate,
        "empty_rate_reason": scores.empty_rate_reason,
    }


def change_data(t: RefusalComparison) -> dict[str, Any]:
    """One candidate's exact McNemar tests on the refusal outcome, as JSON."""
    return {
        "baseline": t.baseline,
        "candidate": t.candidate,
        "refusal": _change_data(t.refusal, 'no topic is declared expect = "empty"'),
        "empty": _change_data(t.empty, "no topic that can have relevant documents"),
    }


def _change_data(c: OutcomeChange | None, reason: str) -> dict[str, Any]:
    if c is None:
        return {"topics": 0, "became_empty": [], "became_answered": [], "mcnemar": None, "reason": reason}
    return {
        "topics": c.topics,
        "became_empty": list(c.became_empty),
        "became_answered": list(c.became_answered),
        "mcnemar": {
            "became_empty": len(c.became_empty),
            "became_answered": len(c.became_answered),
            "pvalue": c.mcnemar.pvalue,
        },
        "reason": None,
    }
