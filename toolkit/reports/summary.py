"""The short summary ``audit`` prints: per candidate, the confirmatory verdict (with the post hoc MDE when it
is "no significant difference": not a claim of equivalence), buckets, the refusal outcome with the topics
that changed, failures and files."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from toolkit.reports.document import pilot_line
from toolkit.reports.numbers import interval, num, pval, signed
from toolkit.reports.refusal import changed_topics
from toolkit.stats.families import NOT_SIGNIFICANT


def audit_summary(audit: Any) -> str:
    r = audit.comparison
    pilot = tuple(getattr(audit, "pilot", ()))
    lines = [
        *([pilot_line(pilot)] if pilot else []),
        f"Audit of {', '.join(r.candidates)} against {r.baseline} on {audit.topics.name} "
        f"({r.setup['n_topics']} topics, primary {r.primary}, {r.test} test, seed {r.seed})",
    ]
    for v in r.verdicts():
        cand = v.candidate
        c = v.result
        if c is not None:
            ci = interval(c.ci95.pair()) if c.ci95.pair() else "–"
            lines.append(
                f"  {cand}: {v.verdict} — {r.primary} {num(c.mean_baseline)} → {num(c.mean_candidate)} "
                f"(Δ {signed(c.delta)}, 95% CI {ci} {c.ci95.method} unadjusted, p {pval(c.pvalue)}, "
                f"{c.adjustment} {pval(c.p_adjusted)})"
            )
            if v.verdict == NOT_SIGNIFICANT:
                mde = (
                    f"post hoc MDE {num(c.mde80.value)} vs observed Δ {signed(c.delta)}"
                    if c.mde80.value is not None
                    else f"no MDE: {c.mde80.reason}"
                )
                lines.append(f"  {cand}: not a claim of equivalence — {mde}")
        else:
            lines.append(f"  {cand}: {v.verdict}")
        for ci_ in r.comparisons:
            ni = ci_.noninferiority
            if ci_.candidate == cand and ni is not None:
                if ni.holds is None:
                    claim = f"undefined ({ni.reason})"
                elif ni.holds:
                    claim = f"no regression larger than {ni.margin:g}"
                else:
                    claim = f"a regression larger than {ni.margin:g} is not ruled out"
                bound = (
                    f" (95% lower bound {signed(ni.ci_lower)}, p {pval(ni.pvalue)})"
                    if ni.holds is not None
                    else ""
                )
                lines.append(f"  {cand}: {ci_.measure} non-inferiority: {claim}{bound}")
        rank1 = next(x for x in r.rank1 if x.candidate == cand)
        lines.append(
            f"  {cand}: rank 1 fixed {rank1.count('fixed')}, degraded {rank1.count('degraded')}, unchanged "
            f"{rank1.count('unchanged')}, both-suboptimal {rank1.count('both_suboptimal')} (McNemar p "
            f"{pval(rank1.mcnemar.pvalue)})"
        )
        lines += _refusal(r, cand)
        for pref in r.preferences:
            if pref.run == cand:
                t = pref.test
                lines.append(
                    f"  {cand}: preferences won {t.wins}, lost {t.losses}, tied {t.ties} "
                    f"(win rate {num(t.win_rate)}, sign test p {pval(t.pvalue)})"
                )
        for run, count in v.failed.items():
            allowed = " (allowed with --allow-failed)" if v.comparable else ""
            lines.append(f"  {cand}: {count} topic{'' if count == 1 else 's'} failed in {run}{allowed}")
        lines += [f"  {cand}: warning: {w}" for w in v.warnings]
    md = next((p for p in audit.written if p.suffix == ".md"), None)
    if md is not None:
        with contextlib.suppress(ValueError):
            md = md.resolve().relative_to(Path.cwd().resolve())
        lines.append(
            f"Wrote {md} (+ .json, .html, {sum(1 for p in audit.written if p.suffix == '.png')} plots)"
        )
    return "\n".join(lines) + "\n"


def _refusal(r: Any, cand: str) -> list[str]:
    """The refusal outcome against the baseline, when the topic set declares topics expect = "empty"."""
    t = next((x for x in r.refusal_tests if x.candidate == cand), None)
    if t is None or t.refusal is None:
        return []
    runs = {x.run: x for x in r.refusal}
    b, c = runs[r.baseline], runs[cand]
    line = (
        f"  {cand}: refusal {num(b.refusal)} → {num(c.refusal)} on {len(c.expect_empty)} expect-empty topics "
        f"(McNemar p {pval(t.refusal.mcnemar.pvalue)})"
    )
    if t.empty is not None:
        line += (
            f"; empty results {num(b.empty_rate)} → {num(c.empty_rate)} of {len(c.others)} "
            f"(McNemar p {pval(t.empty.mcnemar.pvalue)})"
        )
    listed = [
        f"  {cand}: {label} (vs {r.baseline}, {len(ids)}): {' '.join(ids)}"
        for label, ids in changed_topics(t)
    ]
    return [line, *listed]
