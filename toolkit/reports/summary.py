"""The short summary ``audit`` prints: per candidate, the primary measure's verdict, buckets and files."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from toolkit.reports.document import pilot_line
from toolkit.reports.numbers import interval, num, pval, signed, verdict


def audit_summary(audit: Any) -> str:
    r = audit.comparison
    pilot = tuple(getattr(audit, "pilot", ()))
    lines = [
        *([pilot_line(pilot)] if pilot else []),
        f"Audit of {', '.join(r.candidates)} against {r.baseline} on {audit.topics.name} "
        f"({r.setup['n_topics']} topics, primary {r.primary}, seed {r.seed})",
    ]
    for cand in r.candidates:
        c = r.comparison(cand, r.primary)
        if c is None:
            continue
        lines.append(
            f"  {cand}: {r.primary} {num(c.mean_baseline)} → {num(c.mean_candidate)} (delta {signed(c.delta)}, "
            f"95% CI {interval(c.ci95)}, p {pval(c.pvalue)}, {r.correction} {pval(c.p_adjusted)}): {verdict(c)}"
        )
        for ci in r.comparisons:
            ni = ci.noninferiority
            if ci.candidate == cand and ni is not None:
                claim = (
                    f"no regression larger than {ni.margin:g}"
                    if ni.holds
                    else f"a regression larger than {ni.margin:g} is not ruled out"
                )
                lines.append(
                    f"  {cand}: {ci.measure} non-inferiority: {claim} (95% lower bound {signed(ni.ci_lower)}, "
                    f"p {pval(ni.pvalue)})"
                )
        rank1 = next(x for x in r.rank1 if x.candidate == cand)
        lines.append(
            f"  {cand}: rank 1 fixed {rank1.count('fixed')}, degraded {rank1.count('degraded')}, unchanged "
            f"{rank1.count('unchanged')}, both-suboptimal {rank1.count('both_suboptimal')} (McNemar p "
            f"{pval(rank1.mcnemar.pvalue)})"
        )
        for pref in r.preferences:
            if pref.run == cand:
                t = pref.test
                lines.append(
                    f"  {cand}: preferences won {t.wins}, lost {t.losses}, tied {t.ties} "
                    f"(win rate {num(t.win_rate)}, sign test p {pval(t.pvalue)})"
                )
    md = next((p for p in audit.written if p.suffix == ".md"), None)
    if md is not None:
        with contextlib.suppress(ValueError):
            md = md.resolve().relative_to(Path.cwd().resolve())
        lines.append(
            f"Wrote {md} (+ .json, .html, {sum(1 for p in audit.written if p.suffix == '.png')} plots)"
        )
    return "\n".join(lines) + "\n"
