"""The audit document as a list of blocks (headings, paragraphs, tables, images), rendered by Markdown and HTML.

Building the content once and rendering it twice keeps the Markdown audit and the HTML report identical in
substance. Sections: setup, versions, aggregate table, tests with effect sizes and CIs, non-inferiority,
rank-1 buckets with topic ids, found/lost, preferences, per-class tables, all-pairs test, worst regressions,
plots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.model import TopicSet
from toolkit.reports.numbers import BUCKET_LABELS, interval, num, pval, rand_label, rank_text, signed, verdict
from toolkit.stats.buckets import BUCKETS, FOUND_LOST
from toolkit.stats.comparison import ComparisonResult
from toolkit.stats.counts import reach_note
from toolkit.stats.paired import PairedResult

#: How many topics the "worst regressions" table lists per candidate.
WORST = 10


@dataclass(frozen=True)
class Block:
    """``kind`` is h1, h2, h3, p, list, table or image; ``rows`` holds list items or table rows."""

    kind: str
    text: str = ""
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> Block:
    return Block("table", headers=tuple(headers), rows=tuple(tuple(r) for r in rows))


def build_document(
    result: ComparisonResult,
    *,
    topics: TopicSet | None = None,
    images: Sequence[tuple[str, str]] = (),
    title: str | None = None,
) -> list[Block]:
    """Blocks of the audit; ``images`` are (file name, caption) of plots written beside the document."""
    b: list[Block] = []
    s = result.setup
    b.append(Block("h1", title or f"Audit: {', '.join(result.candidates)} vs {result.baseline}"))
    b.append(Block("h2", "Setup"))
    t = s.get("topics") or {}
    items = [
        f"Baseline: `{result.baseline}`; candidates: {', '.join(f'`{c}`' for c in result.candidates)}",
        f"Topics: {t.get('name', '(from qrels)')} — {s['n_topics']} topics counted"
        + (f" (`{t['path']}`)" if t.get("path") else ""),
        f"Topic-set hash (sha256): `{t.get('sha256') or 'n/a'}`",
        f"Qrels: `{s['qrels'].get('path') or s['qrels'].get('name')}`",
        *(f"Run `{name}`: `{path}`" for name, path in s["run_paths"].items() if path),
        f"Measures: {', '.join(result.measures)}; primary measure: **{result.primary}**",
        f"α = {result.alpha:g}; multiple comparisons: {result.correction} over {len(result.comparisons)} tests",
        f"Seed {result.seed}; paired bootstrap {s['bootstrap_resamples']:,} resamples; randomization exact where "
        f"possible, else {s['randomization_resamples']:,} sign flips; Wilcoxon zero_method={s['zero_method']}",
        f"Rank buckets use the first relevant document within the top {s['cutoff']}",
    ]
    for run, ids in result.empty.items():
        if ids:
            items.append(f"`{run}` returned nothing for {len(ids)} topic(s) (scored 0): {' '.join(ids)}")
    b.append(Block("list", rows=tuple((i,) for i in items)))
    b.append(Block("h2", "Versions"))
    b.append(_table(["library", "version"], [[k, v] for k, v in result.versions.items()]))

    b.append(Block("h2", "Aggregate"))
    rows = [
        [m + (" (primary)" if m == result.primary else ""), *(num(result.means[r][m]) for r in result.runs)]
        for m in result.measures
    ]
    b.append(_table(["measure", *result.runs], rows))

    b.append(Block("h2", "Tests"))
    b.append(
        Block(
            "p",
            "delta = candidate − baseline per topic, averaged. p = paired randomization test on the "
            f"mean (two-sided); p adj. = {result.correction}-adjusted over all measures and candidates. "
            "t = paired t-test; Wilcoxon = signed-rank (method shown); d_z = Cohen's effect size for paired "
            "data; r_rb = rank-biserial; MDE80 = smallest mean delta detectable with 80% power.",
        )
    )
    for cand in result.candidates:
        comps = [c for c in result.comparisons if c.candidate == cand]
        b.append(Block("h3", f"{cand} vs {result.baseline}"))
        b.append(
            _table(
                [
                    "measure",
                    "n",
                    "mean " + result.baseline,
                    "mean " + cand,
                    "delta",
                    "95% CI bootstrap",
                    "95% CI t",
                    "p",
                    "p adj.",
                    "t (df)",
                    "p t",
                    "Wilcoxon p (method)",
                    "d_z",
                    "r_rb",
                    "MDE80",
                    "verdict",
                ],
                [_test_row(c) for c in comps],
            )
        )
        nis = [c for c in comps if c.noninferiority is not None]
        if nis:
            b.append(Block("h3", f"Non-inferiority of {cand}"))
            b.append(
                _table(
                    [
                        "measure",
                        "margin",
                        "delta",
                        "95% lower bound (t)",
                        "95% lower bound (bootstrap)",
                        "p (one-sided)",
                        "conclusion",
                    ],
                    [_ni_row(c) for c in nis],
                )
            )
        notes = [f"{c.measure}: {n}" for c in comps for n in c.notes]
        if notes:
            b.append(Block("list", rows=tuple((n,) for n in notes)))

    b.append(Block("h2", "Rank-1 buckets"))
    for r in result.rank1:
        b.append(Block("h3", f"{r.baseline} → {r.candidate} (first relevant within top {r.cutoff})"))
        b.append(
            _table(
                ["bucket", "topics", "ids"],
                [[BUCKET_LABELS[k], str(r.count(k)), " ".join(r.topics[k])] for k in BUCKETS],
            )
        )
        m = r.mcnemar
        b.append(
            _table(
                ["", f"{r.candidate} at 1", f"{r.candidate} not at 1"],
                [
                    [f"{r.baseline} at 1", str(r.both_at_1), str(m.degraded)],
                    [f"{r.baseline} not at 1", str(m.fixed), str(r.neither_at_1)],
                ],
            )
        )
        reach = _reach(m.fixed + m.degraded, result.alpha)
        b.append(
            Block(
                "p",
                f"Exact McNemar (Fixed {m.fixed} vs Degraded {m.degraded}): p = {pval(m.pvalue)}{reach}. "
                "Added/Removed topics (results in one run only) are outside the 2×2 table.",
            )
        )
        b.append(
            _table(
                ["within top " + str(r.cutoff), "topics", "ids"],
                [[k, str(len(r.found_lost[k])), " ".join(r.found_lost[k])] for k in FOUND_LOST],
            )
        )

    if result.preferences:
        b.append(Block("h2", "Preferences (deprecation)"))
        b.append(
            Block(
                "p",
                "Per pair: win when the best-ranked modern page ranks above the best-ranked legacy page, "
                "loss when below, tie when neither appears. Exact sign test (ties dropped); win rate with "
                "Clopper–Pearson 95% CI.",
            )
        )
        b.append(
            _table(
                ["run", "wins", "losses", "ties", "win rate", "95% CI", "sign test p", "losses (ids)"],
                [
                    [
                        p.run,
                        str(p.test.wins),
                        str(p.test.losses),
                        str(p.test.ties),
                        num(p.test.win_rate),
                        interval(p.test.ci95),
                        pval(p.test.pvalue),
                        " ".join(p.topics["loss"]),
                    ]
                    for p in result.preferences
                ],
            )
        )

    if result.by_class:
        b.append(Block("h2", "Per class"))
        for cls, br in result.by_class.items():
            b.append(Block("h3", f"{cls} ({len(br.topics)} topics)"))
            rows = []
            for measure in br.measures:
                for cc in br.comparisons:
                    if cc.measure == measure:
                        rows.append(
                            [
                                measure,
                                cc.candidate,
                                num(br.means[cc.baseline][measure]),
                                num(br.means[cc.candidate][measure]),
                                signed(cc.delta),
                                interval(cc.ci95),
                                rand_label(cc),
                                verdict(cc),
                            ]
                        )
            b.append(
                _table(
                    [
                        "measure",
                        "candidate",
                        "mean baseline",
                        "mean candidate",
                        "delta",
                        "95% CI",
                        "p",
                        "verdict",
                    ],
                    rows,
                )
            )

    for tk in result.all_pairs:
        if tk is result.all_pairs[0]:
            b.append(Block("h2", "All pairs (randomised Tukey HSD)"))
            b.append(
                Block(
                    "p",
                    "Permutes the runs' scores within each topic (the pairing is kept); one test over "
                    f"all pairs, {tk.resamples:,} permutations, seed {tk.seed}.",
                )
            )
        b.append(
            _table(
                [f"{tk.measure} pair", "delta", "p"],
                [[f"{p.b} − {p.a}", signed(p.delta), pval(p.pvalue)] for p in tk.pairs],
            )
        )

    b.append(Block("h2", f"Worst regressions ({result.primary})"))
    for cand in result.candidates:
        primary = result.comparison(cand, result.primary)
        r = next(x for x in result.rank1 if x.candidate == cand)
        if primary is None:
            continue
        worst = sorted((d, q) for q, d in zip(primary.topics, primary.diffs, strict=True) if d < 0)[:WORST]
        b.append(Block("h3", f"{cand} vs {result.baseline}"))
        if not worst:
            b.append(Block("p", "No topic got worse."))
            continue
        values = dict(
            zip(
                primary.topics,
                zip(primary.baseline_values, primary.candidate_values, strict=True),
                strict=True,
            )
        )
        b.append(
            _table(
                ["topic", "query", result.baseline, cand, "delta", "rank " + result.baseline, "rank " + cand],
                [
                    [
                        q,
                        _query(topics, q),
                        num(values[q][0]),
                        num(values[q][1]),
                        signed(d),
                        rank_text(r.ranks_baseline.get(q)),
                        rank_text(r.ranks_candidate.get(q)),
                    ]
                    for d, q in worst
                ],
            )
        )

    if images:
        b.append(Block("h2", "Plots"))
        for name, caption in images:
            b.append(Block("image", text=caption, rows=((name,),)))
    return b


def _query(topics: TopicSet | None, qid: str) -> str:
    topic = topics.get(qid) if topics is not None else None
    return topic.query if topic else ""


def _test_row(c: PairedResult) -> list[str]:
    t = c.t
    return [
        c.measure + ("*" if c.primary else ""),
        str(c.n),
        num(c.mean_baseline),
        num(c.mean_candidate),
        signed(c.delta),
        interval(c.ci95),
        interval(c.ci95_t),
        rand_label(c),
        pval(c.p_adjusted),
        f"{num(t.statistic, 3)} ({t.df})",
        pval(t.pvalue),
        f"{pval(c.wilcoxon.pvalue)} ({c.wilcoxon.method})",
        num(c.d_z, 3),
        num(c.rank_biserial, 3),
        num(c.mde80),
        verdict(c),
    ]


def _ni_row(c: PairedResult) -> list[str]:
    ni = c.noninferiority
    assert ni is not None  # noqa: S101 - filtered by the caller
    claim = f"no regression larger than {ni.margin:g}" if ni.holds else "regression not ruled out"
    return [
        c.measure,
        f"{ni.margin:g}",
        signed(c.delta),
        signed(ni.ci_lower),
        signed(ni.ci_lower_bootstrap),
        pval(ni.pvalue),
        claim,
    ]


def _reach(pairs: int, alpha: float) -> str:
    """ " — cannot reach α …" after a McNemar p when the discordant pairs are too few for any rejection."""
    note = reach_note(pairs, alpha)
    return f" — {note}" if note else ""
