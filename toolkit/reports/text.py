"""The terminal report of ``compare``: aligned plain-text tables, paste-friendly, no colour off a terminal.

Colour is added only when the caller says the output is a TTY; the text itself never depends on it, so the
same inputs and seed give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.reports.numbers import BUCKET_LABELS, interval, num, pval, rand_label, signed, verdict
from toolkit.stats.buckets import BUCKETS
from toolkit.stats.comparison import ComparisonResult
from toolkit.stats.counts import reach_note


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, indent: str = "", left: Sequence[int] = (0,)
) -> list[str]:
    """Columns padded to width; columns in ``left`` (default the first) left-aligned, the others right-aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            str(c).ljust(w) if i in left or i - len(widths) in left else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return (indent + "  ".join(parts)).rstrip()

    return [line(headers), indent + "  ".join("-" * w for w in widths), *(line(r) for r in rows)]


def render_text(result: ComparisonResult, *, color: bool = False) -> str:
    """The compare report as text (``color`` only bolds headings, for a terminal)."""
    out: list[str] = []

    def heading(text: str) -> None:
        out.append("")
        out.append(f"\x1b[1m{text}\x1b[0m" if color else text)

    s = result.setup
    out.append(
        f"compare: baseline {result.baseline} vs {', '.join(result.candidates)} · {s['n_topics']} topics · "
        f"seed {result.seed} · α {result.alpha:g} · correction {result.correction} · primary {result.primary}"
    )
    heading("Means")
    out += table(
        ["measure", *result.runs],
        [[m, *(num(result.means[r][m]) for r in result.runs)] for m in result.measures],
    )
    for cand in result.candidates:
        heading(f"{cand} vs {result.baseline} (delta = {cand} − {result.baseline}; p = paired randomization)")
        rows = []
        for c in result.comparisons:
            if c.candidate != cand:
                continue
            rows.append(
                [
                    c.measure + ("*" if c.primary else ""),
                    str(c.n),
                    signed(c.delta),
                    interval(c.ci95),
                    rand_label(c),
                    pval(c.p_adjusted),
                    pval(c.t.pvalue),
                    pval(c.wilcoxon.pvalue),
                    num(c.d_z, 2),
                    num(c.mde80),
                    verdict(c),
                ]
            )
        out += table(
            [
                "measure",
                "n",
                "delta",
                "95% CI (bootstrap)",
                "p",
                f"p {result.correction}",
                "t p",
                "Wilcoxon p",
                "d_z",
                "MDE80",
                "verdict",
            ],
            rows,
            left=(0, -1),
        )
        for c in result.comparisons:
            ni = c.noninferiority
            if c.candidate == cand and ni is not None:
                claim = (
                    f"no regression larger than {ni.margin:g}"
                    if ni.holds
                    else f"a regression larger than {ni.margin:g} is not ruled out"
                )
                out.append(
                    f"non-inferiority {c.measure} (margin {ni.margin:g}): one-sided p = {pval(ni.pvalue)}, "
                    f"95% lower bound {signed(ni.ci_lower)} → {claim}"
                )
    out.append("* primary measure")
    for r in result.rank1:
        heading(f"Rank-1 buckets {r.baseline} → {r.candidate} (first relevant doc within the top {r.cutoff})")
        out += table(
            ["bucket", "topics", "ids"],
            [[BUCKET_LABELS[b], str(r.count(b)), " ".join(r.topics[b])] for b in BUCKETS],
            left=(0, -1),
        )
        m = r.mcnemar
        note = _reach(m.fixed + m.degraded, result.alpha)
        out.append(f"McNemar exact (Fixed {m.fixed} vs Degraded {m.degraded}): p = {pval(m.pvalue)}{note}")
    if result.by_class:
        heading("Per class (each class's own measures)")
        rows = [
            [
                cls,
                c.measure,
                c.candidate,
                str(c.n),
                num(c.mean_baseline),
                num(c.mean_candidate),
                signed(c.delta),
                rand_label(c),
                verdict(c),
            ]
            for cls, br in result.by_class.items()
            for c in br.comparisons
        ]
        out += table(
            [
                "class",
                "measure",
                "candidate",
                "n",
                "mean baseline",
                "mean candidate",
                "delta",
                "p",
                "verdict",
            ],
            rows,
            left=(0, 1, 2, -1),
        )
    if result.preferences:
        heading("Preferences (deprecation: modern page above legacy)")
        rows = [
            [
                p.run,
                str(p.test.wins),
                str(p.test.losses),
                str(p.test.ties),
                num(p.test.win_rate),
                interval(p.test.ci95),
                pval(p.test.pvalue),
            ]
            for p in result.preferences
        ]
        out += table(
            ["run", "wins", "losses", "ties", "win rate", "95% CI (Clopper–Pearson)", "sign test p"], rows
        )
    for t in result.all_pairs:
        heading(f"All pairs, {t.measure}: randomised Tukey HSD ({t.resamples:,} permutations within topic)")
        out += table(
            ["pair", "delta", "p"], [[f"{p.b} − {p.a}", signed(p.delta), pval(p.pvalue)] for p in t.pairs]
        )
    notes = [f"{c.candidate} {c.measure}: {n}" for c in result.comparisons for n in c.notes]
    if notes:
        heading("Notes")
        out += [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"


def _reach(pairs: int, alpha: float) -> str:
    """ " — cannot reach α …" after a McNemar p when the discordant pairs are too few for any rejection."""
    note = reach_note(pairs, alpha)
    return f" — {note}" if note else ""
