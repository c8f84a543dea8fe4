"""The document of a comparison (``compare`` and ``audit``), in the reading order of docs/design.md §7.

1. **Verdict** — the first screen answers the question: one paragraph per candidate with the confirmatory
   result in words (delta, CI, p and adjusted p; "no significant difference" with the post hoc MDE beside the
   observed Δ, since it is not a claim of equivalence), the rank-1 Fixed/Degraded counts, the refusal outcome
   with the topics whose refusal or empty result changed, failed topics and Judged@k warnings;
2. **Aggregate** — the mean of every measure per run, and the CI forest plot beside it;
3. **Detail** — the confirmatory and secondary tests, non-inferiority, rank-1 buckets with topic ids,
   preferences, refusal and empty results (when topics are declared ``expect = "empty"``), the exploratory
   per-class tables and all pairs, Judged@k, failed topics, worst regressions with their plots;
4. **Appendix** — the other tests (t, Wilcoxon, randomization method), effect sizes, the bootstrap CI, the
   post hoc MDE, then setup, versions and hashes.

Tables stay narrow enough for a terminal (``--format table`` lays out this same document): topic ids are
listed under their table instead of in a column. The JSON contract of the same result is
``comparison_data`` (``toolkit.reports.comparison_json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.model import TopicSet
from toolkit.reports.comparison_detail import (
    TEST_COLUMNS,
    all_pairs_blocks,
    appendix_blocks,
    by_class_blocks,
    failures_blocks,
    judged_blocks,
    preferences_blocks,
    rank1_blocks,
    worst_blocks,
)
from toolkit.reports.comparison_json import comparison_data
from toolkit.reports.document import Block, Document, bullets, esc, heading, paragraph, table
from toolkit.reports.numbers import ci_text, num, pval, signed
from toolkit.reports.refusal import changes as refusal_changes
from toolkit.reports.refusal import comparison_blocks as refusal_blocks
from toolkit.reports.refusal import verdict_sentence as refusal_sentence
from toolkit.stats.families import CONFIRMATORY, NOT_SIGNIFICANT
from toolkit.stats.multiple import FIXED_SEQUENCE
from toolkit.stats.result import CandidateVerdict, ComparisonResult

if TYPE_CHECKING:
    from toolkit.reports.plots import Plot
    from toolkit.stats.paired import PairedResult

#: How the declared tests are named in sentences.
TEST_NAMES = {
    "randomization": "paired randomization test",
    "t": "paired t test",
    "wilcoxon": "Wilcoxon signed-rank test",
}


def comparison_document(
    result: ComparisonResult,
    *,
    topics: TopicSet | None = None,
    title: str | None = None,
    plots: Sequence[Plot] = (),
    preflight: Mapping[str, Mapping[str, Any]] | None = None,
) -> Document:
    """The report of ``result``; ``plots`` (from ``reports.plots``) are placed where they belong; ``preflight``
    (run name → its manifest's ``preflight`` record) is shown in the setup."""
    deltas: dict[str, list[Block]] = {}
    for p in plots:
        if p.kind == "delta":
            deltas.setdefault(p.candidate, []).append(_image(p))
    b: list[Block] = [heading(esc(title or f"Audit: {', '.join(result.candidates)} vs {result.baseline}"), 1)]
    b += _verdicts(result)
    b += _aggregate(result)
    b += [_image(p) for p in plots if p.kind == "forest"]
    b += _tests(result)
    b += rank1_blocks(result)
    b += [_image(p) for p in plots if p.kind == "ranks"]
    b += preferences_blocks(result)
    b += refusal_blocks(result)
    b += by_class_blocks(result)
    b += all_pairs_blocks(result)
    b += judged_blocks(result)
    b += failures_blocks(result)
    b += worst_blocks(result, topics, deltas)
    b += appendix_blocks(result, preflight or {})
    data = comparison_data(result)
    if preflight:
        data["setup"]["preflight"] = {name: dict(record) for name, record in preflight.items()}
    return Document(tuple(b), data, {p.name: p.png for p in plots})


def _image(plot: Plot) -> Block:
    return Block("image", text=plot.caption, rows=((plot.name,),))


def design_sentence(result: ComparisonResult) -> str:
    """The confirmatory design in one sentence (the verdict section opens with it)."""
    conf = result.confirmatory
    if conf.adjustment == FIXED_SEQUENCE:
        how = (
            f"fixed sequence in the declared order {esc(', '.join(conf.order))}, each at α = {result.alpha:g}"
        )
    elif conf.m > 1:
        how = f"Holm across {conf.m} candidates, α = {result.alpha:g}"
    else:
        how = f"α = {result.alpha:g}"
    declared = "declared" if result.primary_declared else "the default; declare one with --primary"
    return (
        f"Confirmatory test: **{esc(result.primary)}** ({declared}) by the {TEST_NAMES[result.test]}, {how}. "
        f"Secondary measures form their own family ({result.correction}); per-class rows and all pairs are "
        "exploratory. Every CI is the studentized bootstrap 95% interval (withheld below 30 topics, where no "
        "interval holds under skewed differences), unadjusted for multiplicity."
    )


def _verdicts(result: ComparisonResult) -> list[Block]:
    b = [heading("Verdict"), paragraph(design_sentence(result))]
    for v in result.verdicts():
        b.append(paragraph(verdict_paragraph(result, v)))
        items = [f"Warning: {esc(w)}" for w in v.warnings]
        items += [
            change
            for t in result.refusal_tests
            if t.candidate == v.candidate
            for change in refusal_changes(t)
        ]
        if items:
            b.append(bullets(items))
    return b


def verdict_paragraph(result: ComparisonResult, v: CandidateVerdict) -> str:
    """``**cand vs base: better.** RR@10 0.40 → 0.42, Δ +0.0156, 95% CI … p … Rank 1: … Failures …``"""
    parts = [f"**{esc(f'{v.candidate} vs {result.baseline}: {v.verdict}.')}**"]
    c = v.result
    if c is not None:
        ci = ci_text(c.ci95) if c.ci95.pair() else f"– ({esc(c.ci95.reason)})"
        adjusted = (
            f"adjusted p = {pval(c.p_adjusted)} ({c.adjustment})"
            if c.adjustment != "holm" or result.confirmatory.m > 1
            else "one candidate: no adjustment"
        )
        parts.append(
            f"{esc(c.measure)} {num(c.mean_baseline)} → {num(c.mean_candidate)}, Δ {signed(c.delta)}, 95% CI {ci} "
            f"({c.ci95.method}, unadjusted), p = {pval(c.pvalue)} ({_test_label(c)}), {adjusted}."
        )
        if v.verdict == NOT_SIGNIFICANT:
            parts.append(not_equivalence(c))
        ni = c.noninferiority
        if ni is not None:
            parts.append(_ni_sentence(ni.margin, ni.holds, ni.ci_lower, ni.pvalue, esc(ni.reason)))
    r = next((x for x in result.rank1 if x.candidate == v.candidate), None)
    if r is not None:
        parts.append(
            f"Rank 1 (top {r.cutoff}): Fixed {r.mcnemar.fixed}, Degraded {r.mcnemar.degraded} "
            f"(exact McNemar p = {pval(r.mcnemar.pvalue)})."
        )
    refusal = refusal_sentence(result, v.candidate)
    if refusal is not None:
        parts.append(refusal)
    for run, count in v.failed.items():
        ids = esc(" ".join(result.failures.failed.get(run, ())))
        note = "allowed with --allow-failed" if v.comparable else "pass --allow-failed to compare anyway"
        parts.append(f"{count} topic{'' if count == 1 else 's'} failed in {esc(run)} ({note}): {ids}.")
    return " ".join(parts)


def not_equivalence(c: PairedResult) -> str:
    """What "no significant difference" does not say, with the post hoc MDE beside the observed Δ."""
    if c.mde80.value is None:
        return f"This is not a claim of equivalence (no minimum detectable effect: {esc(c.mde80.reason)})."
    return (
        f"This is not a claim of equivalence: the smallest Δ this comparison could detect with 80% power is "
        f"{num(c.mde80.value)} (post hoc MDE) against the observed {signed(c.delta)}: an effect of that size could "
        "not have been detected reliably; declare --margin for a non-inferiority test."
    )


def _ni_sentence(
    margin: float, holds: bool | None, lower: float | None, p: float | None, reason: str | None
) -> str:
    if holds is None:
        return f"Non-inferiority (margin {margin:g}): undefined — {reason}."
    claim = (
        f"no regression larger than {margin:g}"
        if holds
        else f"a regression larger than {margin:g} is not ruled out"
    )
    return (
        f"Non-inferiority (margin {margin:g}): {claim} (one-sided 95% lower bound {signed(lower)}, studentized "
        f"bootstrap, p = {pval(p)})."
    )


def _test_label(c: PairedResult) -> str:
    if c.test == "randomization":
        r = c.randomization
        return "randomization, exact" if r.exact else f"randomization, Monte Carlo {r.resamples:,}"
    if c.test == "wilcoxon":
        return f"Wilcoxon, {c.wilcoxon.method}"
    return "t test"


def _aggregate(result: ComparisonResult) -> list[Block]:
    rows = [
        [f"{m} (primary)" if m == result.primary else str(m), *(num(result.means[r][m]) for r in result.runs)]
        for m in result.measures
    ]
    return [heading("Aggregate"), table(["measure", *result.runs], rows)]


def _tests(result: ComparisonResult) -> list[Block]:
    conf = result.confirmatory
    primary = [c for c in result.comparisons if c.family == CONFIRMATORY]
    primary.sort(key=lambda c: conf.order.index(c.candidate))
    secondary = [c for c in result.comparisons if c.family != CONFIRMATORY]
    base = result.baseline
    b: list[Block] = [
        heading(f"Confirmatory test ({esc(result.primary)})"),
        paragraph(
            f"Δ = candidate − {esc(base)} per topic, averaged; 95% CI = studentized bootstrap (unadjusted); p = "
            f"{TEST_NAMES[result.test]} (two-sided); p adj. = {conf.adjustment} across the candidates."
        ),
        table(
            ["candidate", "n", f"mean {base}", *TEST_COLUMNS],
            [_row(c, with_measure=False) for c in primary],
            left=(0, -1),
        ),
    ]
    if secondary:
        b += [
            heading("Secondary measures"),
            paragraph(
                f"One family of {len(secondary)} test{'' if len(secondary) == 1 else 's'} (every other measure × candidate), adjusted by "
                f"{result.correction}; same columns."
            ),
            table(
                ["candidate", "measure", "n", f"mean {base}", *TEST_COLUMNS],
                [_row(c, with_measure=True) for c in secondary],
                left=(0, 1, -1),
            ),
        ]
    nis = [c for c in result.comparisons if c.noninferiority is not None]
    if nis:
        b += [
            heading("Non-inferiority"),
            paragraph(
                'H0: mean Δ ≤ −margin, one-sided studentized bootstrap test; "no regression larger than the '
                'margin" only when H0 is rejected (the one-sided 95% lower bound is above −margin); withheld '
                "below 30 topics, where no such test holds under skewed differences."
            ),
            table(
                ["candidate", "measure", "margin", "Δ", "95% lower bound", "p (one-sided)", "conclusion"],
                [_ni_row(c) for c in nis],
                left=(0, 1, -1),
            ),
        ]
        withheld = [
            f"{esc(c.candidate)}, {esc(c.measure)}: non-inferiority undefined: {esc(c.noninferiority.reason)}"
            for c in nis
            if c.noninferiority is not None and c.noninferiority.holds is None
        ]
        if withheld:
            b.append(bullets(withheld))
    notes = [f"{esc(c.candidate)}, {esc(c.measure)}: {esc(n)}" for c in result.comparisons for n in c.notes]
    notes += [
        f"{esc(c.candidate)}, {esc(c.measure)}: no interval: {esc(c.ci95.reason)}"
        for c in result.comparisons
        if c.ci95.reason
    ]
    if notes:
        b.append(bullets(notes))
    return b


def _row(c: PairedResult, *, with_measure: bool) -> list[str]:
    measure = [str(c.measure)] if with_measure else []
    return [
        c.candidate,
        *measure,
        str(c.n),
        num(c.mean_baseline),
        num(c.mean_candidate),
        signed(c.delta),
        ci_text(c.ci95),
        pval(c.pvalue),
        pval(c.p_adjusted),
        c.verdict,
    ]


def _ni_row(c: PairedResult) -> list[str]:
    ni = c.noninferiority
    if ni is None:
        raise ValueError(f"{c.measure}: no non-inferiority test to report")
    if ni.holds is None:
        claim = "undefined (below)"
    else:
        claim = f"no regression larger than {ni.margin:g}" if ni.holds else "regression not ruled out"
    return [
        c.candidate,
        str(c.measure),
        f"{ni.margin:g}",
        signed(c.delta),
        signed(ni.ci_lower),
        pval(ni.pvalue),
        claim,
    ]
