"""The document of an ``AgreementResult`` (``agree``): the JSON contract and the tables people read.

The JSON keeps its first keys (``schema_version``, ``labels``, ``pairs`` with ``a``/``b``/``n``/
``percent_agreement``/``kappa``/``binarised``, ``fleiss``, ``krippendorff``) in that order and adds more after
them; every undefined number is ``null`` next to its reason (``reason`` in the same object, or
``<key>_reason``), never NaN. In the tables an undefined cell reads ``n/a [k]``, and the reasons are listed
once at the end as numbered notes. Numbers never print as ``-0.0000``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from toolkit.agreement.result import AgreementResult, Interval, Kappa, PairAgreement, TopicAgreement, Value
from toolkit.minimum import MIN_UNITS
from toolkit.reports.document import Block, Document, bullets, esc, heading, paragraph, table

WEIGHTINGS = ("unweighted", "linear", "quadratic")


def agreement_document(result: AgreementResult) -> Document:
    notes = _Notes()
    blocks: list[Block] = [heading("Assessor agreement", 1), paragraph(esc(_headline(result)))]
    for title, header, rows, note in _sections(result, notes):  # titles name assessors: literal text
        blocks.append(heading(esc(title)))
        if rows:
            blocks.append(table(header, rows, left=_left(header)))
        if note or not rows:
            blocks.append(paragraph(esc(note or "(none)")))
    blocks += [heading("Across all assessors"), bullets([esc(line) for line in _overall(result, notes)])]
    if notes.reasons:
        blocks += [heading("Undefined"), bullets([esc(r) for r in notes.reasons], kind="notes")]
    return Document(tuple(blocks), agreement_data(result))


def kappa_dict(k: Kappa) -> dict[str, Any]:
    """Every ``null`` has its reason beside it (``reason`` for the value, ``<key>_reason`` for the others)."""
    return {
        "value": k.estimate.value,
        "ci95": k.ci95.pair(),
        "reason": k.estimate.reason,
        "se": k.se.value,
        "se_reason": k.se.reason,
        "ci95_reason": k.ci95.reason,
        "ci95_bootstrap": k.ci95_bootstrap.pair(),
        "ci95_bootstrap_reason": k.ci95_bootstrap.reason,
        "bootstrap_dropped": k.bootstrap_dropped,
    }


def pair_dict(p: PairAgreement, labels: Sequence[int]) -> dict[str, Any]:
    return {
        "a": p.a,
        "b": p.b,
        "n": p.n,
        "percent_agreement": p.percent_agreement.value,
        "kappa": {w: kappa_dict(p.kappa(w)) for w in WEIGHTINGS},
        "binarised": {
            str(b.threshold): {
                "kappa": b.kappa.estimate.value,
                "overlap": b.overlap.value,
                "kappa_ci95": b.kappa.ci95.pair(),
                "kappa_reason": b.kappa.estimate.reason,
                "kappa_ci95_reason": b.kappa.ci95.reason,
                "overlap_reason": b.overlap.reason,
                "both_relevant": b.both_relevant,
                "either_relevant": b.either_relevant,
            }
            for b in p.binarised
        },
        "reason": p.percent_agreement.reason,
        "n_topics": p.n_topics,
        "confusion": {
            "rows": p.a,
            "columns": p.b,
            "labels": list(labels),
            "counts": [list(row) for row in p.confusion],
        },
        "per_topic": [
            {
                "query_id": t.query_id,
                "n": t.n,
                "percent_agreement": t.percent_agreement.value,
                "kappa": {
                    **{w: getattr(t, w).value for w in WEIGHTINGS},
                    "reason": next((getattr(t, w).reason for w in WEIGHTINGS if getattr(t, w).reason), None),
                },
                "reason": t.percent_agreement.reason,
            }
            for t in p.per_topic
        ],
    }


def agreement_data(result: AgreementResult) -> dict[str, Any]:
    """The JSON contract of ``agree`` (keys after ``schema_version``, in their first order, then additions)."""
    alpha = result.krippendorff
    levels = ("nominal", "ordinal", "interval")
    return {
        "labels": list(result.labels),
        "pairs": [pair_dict(p, result.labels) for p in result.pairs],
        "fleiss": {
            "value": result.fleiss.estimate.value,
            "n_items": result.fleiss.n_items,
            "raters_per_item": result.fleiss.raters_per_item,
            "items_excluded": result.fleiss.items_excluded,
            "reason": result.fleiss.estimate.reason,
        },
        "krippendorff": {
            **{level: getattr(alpha, level).value for level in levels},
            "reason": next((getattr(alpha, lv).reason for lv in levels if getattr(alpha, lv).reason), None),
            "n_items": alpha.n_items,
            "n_pairable": alpha.n_pairable,
        },
        "assessors": list(result.assessors),
        "n_judgments": result.n_judgments,
        "n_items": result.n_items,
        "distributions": {
            d.assessor: {
                "n": d.n,
                "counts": {str(g): c for g, c in zip(result.labels, d.counts, strict=True)},
            }
            for d in result.distributions
        },
        "seed": result.seed,
        "bootstrap": result.bootstrap,
        "versions": dict(result.versions),
    }


class _Notes:
    """Collects reasons for undefined cells and numbers them, so each is printed once under the table."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def ref(self, reason: str) -> str:
        if reason not in self.reasons:
            self.reasons.append(reason)
        return f"n/a [{self.reasons.index(reason) + 1}]"

    def num(self, value: Value, fmt: str = "{:.4f}") -> str:
        return (
            _no_negative_zero(fmt.format(value.value))
            if value.value is not None
            else self.ref(str(value.reason))
        )

    def ci(self, interval: Interval) -> str:
        if interval.low is None or interval.high is None:
            return self.ref(str(interval.reason))
        return f"[{_no_negative_zero(f'{interval.low:.4f}')}, {_no_negative_zero(f'{interval.high:.4f}')}]"


def _no_negative_zero(text: str) -> str:
    """``-0.0000`` (a value that rounds to zero from below) prints as ``0.0000``."""
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


#: The columns of names, thresholds and intervals, aligned left (as is every table's first column); the
#: counts and coefficients are aligned right. Said once per column name, not per table beside its header.
_TEXT_COLUMNS = frozenset({"a", "b", "t", "topic", "assessor", "weights", "95% CI", "bootstrap 95% CI"})


def _left(header: Sequence[str]) -> list[int]:
    return [i for i, name in enumerate(header) if i == 0 or name in _TEXT_COLUMNS]


class Section(NamedTuple):
    """One table of the report: its title, header and rows, and a note printed under it."""

    title: str
    header: list[str]
    rows: list[list[str]]
    note: str | None = None


def _sections(result: AgreementResult, notes: _Notes) -> list[Section]:
    """Every table, in reading order."""
    out: list[Section] = []
    rows = []
    for p in result.pairs:
        for i, w in enumerate(WEIGHTINGS):
            k = p.kappa(w)
            first = i == 0
            rows.append(
                [
                    p.a if first else "",
                    p.b if first else "",
                    str(p.n) if first else "",
                    notes.num(p.percent_agreement, "{:.1f}") if first else "",
                    w,
                    notes.num(k.estimate),
                    notes.ci(k.ci95),
                    notes.ci(k.ci95_bootstrap),
                ]
            )
    out.append(
        Section(
            "Cohen's kappa per pair (shared items; 95% CI analytic and bootstrap over topics)",
            ["a", "b", "n", "agree%", "weights", "kappa", "95% CI", "bootstrap 95% CI"],
            rows,
        )
    )
    rows = []
    for p in result.pairs:
        for b in p.binarised:
            rows.append(
                [
                    p.a,
                    p.b,
                    f">= {b.threshold}",
                    notes.num(b.kappa.estimate),
                    notes.num(b.overlap),
                    str(b.both_relevant),
                    str(b.either_relevant),
                ]
            )
    out.append(
        Section(
            "Binarised (relevant = grade >= t): kappa and Voorhees overlap |both| / |either|",
            ["a", "b", "t", "kappa", "overlap", "both", "either"],
            rows,
        )
    )
    for p in result.pairs:
        header = [f"{p.a} \\ {p.b}", *(str(g) for g in result.labels)]
        rows = [[str(g), *(str(c) for c in row)] for g, row in zip(result.labels, p.confusion, strict=True)]
        out.append(Section(f"Confusion: {p.a} (rows) x {p.b} (columns)", header, rows))
    listed, few = _topics_with_a_value(result)
    rows = [
        [
            p.a,
            p.b,
            t.query_id,
            str(t.n),
            notes.num(t.percent_agreement, "{:.1f}"),
            notes.num(t.unweighted),
            notes.num(t.linear),
            notes.num(t.quadratic),
        ]
        for p, t in listed
    ]
    note = None
    if few:
        note = (
            f"{len(few)} of {len(few) + len(listed)} topic rows are not listed: kappa per topic needs at least "
            f"{MIN_UNITS} items both assessors graded, and they have {max(t.n for t in few)} or fewer (each one's "
            "n and agree% are in --format json)."
        )
    out.append(Section("Per topic", ["a", "b", "topic", "n", "agree%", *WEIGHTINGS], rows, note))
    rows = [[d.assessor, str(d.n), *(str(c) for c in d.counts)] for d in result.distributions]
    out.append(Section("Grade distributions", ["assessor", "n", *(str(g) for g in result.labels)], rows))
    return out


def _topics_with_a_value(
    result: AgreementResult,
) -> tuple[list[tuple[PairAgreement, TopicAgreement]], list[TopicAgreement]]:
    """The per-topic rows worth a line, and the ones left out: a topic with too few shared items for a kappa
    (the minimum-data rule) would be a row of "n/a" — at the usual overlap, nearly every topic."""
    listed: list[tuple[PairAgreement, TopicAgreement]] = []
    few: list[TopicAgreement] = []
    for p in result.pairs:
        for t in p.per_topic:
            if t.n < MIN_UNITS and all(v.value is None for v in (t.unweighted, t.linear, t.quadratic)):
                few.append(t)
            else:
                listed.append((p, t))
    return listed, few


def _overall(result: AgreementResult, notes: _Notes) -> list[str]:
    f = result.fleiss
    if f.raters_per_item is None:
        fleiss_line = f"Fleiss' kappa: {notes.num(f.estimate)}"
    else:
        fleiss_line = (
            f"Fleiss' kappa: {notes.num(f.estimate)} over {f.n_items} items judged by {f.raters_per_item} "
            f"assessors each ({f.items_excluded} other item{'' if f.items_excluded == 1 else 's'} left out)"
        )
    a = result.krippendorff
    alpha_line = (
        f"Krippendorff's alpha ({a.n_pairable} of {a.n_items} items judged by 2 or more): nominal "
        f"{notes.num(a.nominal)}, ordinal {notes.num(a.ordinal)}, interval {notes.num(a.interval)}"
    )
    return [fleiss_line, alpha_line]


def _headline(result: AgreementResult) -> str:
    boot = f"{result.bootstrap} topic resamples" if result.bootstrap > 0 else "no bootstrap"
    return (
        f"Agreement on labels {','.join(map(str, result.labels))}: {len(result.assessors)} assessors, "
        f"{result.n_items} items, {result.n_judgments} judgments (seed {result.seed}, {boot})"
    )
