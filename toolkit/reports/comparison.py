"""The document of a comparison (``compare`` and ``audit``): what the report says, in reading order.

Sections: setup, versions, aggregate table, tests with effect sizes and CIs, non-inferiority, rank-1 buckets
with topic ids, found/lost, preferences, per-class tables, all-pairs test, worst regressions, plots. The JSON
contract of the same result is ``comparison_data`` (``toolkit.reports.comparison_json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.model import TopicSet
from toolkit.reports.comparison_json import comparison_data
from toolkit.reports.document import Block, Document, bullets, heading, paragraph, table
from toolkit.reports.numbers import BUCKET_LABELS, interval, num, pval, rand_label, rank_text, signed, verdict
from toolkit.stats.buckets import BUCKETS, FOUND_LOST, RankOutcome
from toolkit.stats.comparison import ComparisonResult
from toolkit.stats.counts import reach_note
from toolkit.stats.paired import PairedResult

if TYPE_CHECKING:
    from toolkit.reports.plots import Plot

#: How many topics the "worst regressions" table lists per candidate.
WORST = 10

TEST_HEADERS = (
    "measure",
    "n",
    "mean {baseline}",
    "mean {candidate}",
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
)


def comparison_document(
    result: ComparisonResult,
    *,
    topics: TopicSet | None = None,
    title: str | None = None,
    plots: Sequence[Plot] = (),
    preflight: Mapping[str, Mapping[str, Any]] | None = None,
) -> Document:
    """The report of ``result``; ``plots`` (from ``reports.plots``) are shown at the end and embedded in HTML;
    ``preflight`` (run name → its manifest's ``preflight`` record) is shown in the setup."""
    b: list[Block] = [heading(title or f"Audit: {', '.join(result.candidates)} vs {result.baseline}", 1)]
    b += _setup(result, preflight or {})
    b += [heading("Versions"), table(["library", "version"], list(result.versions.items()), left=(0, 1))]
    b.append(heading("Aggregate"))
    b.append(
        table(
            ["measure", *result.runs],
            [
                [
                    f"{m} (primary)" if m == result.primary else str(m),
                    *(num(result.means[r][m]) for r in result.runs),
                ]
                for m in result.measures
            ],
        )
    )
    b += _tests(result)
    b.append(heading("Rank-1 buckets"))
    for r in result.rank1:
        b += _rank1(r, result.alpha)
    if result.preferences:
        b += _preferences(result)
    if result.by_class:
        b += _by_class(result)
    b += _all_pairs(result)
    b += _worst(result, topics)
    if plots:
        b.append(heading("Plots"))
        b += [Block("image", text=p.caption, rows=((p.name,),)) for p in plots]
    data = comparison_data(result)
    if preflight:
        data["setup"]["preflight"] = {name: dict(record) for name, record in preflight.items()}
    return Document(tuple(b), data, {p.name: p.png for p in plots})


def _setup(result: ComparisonResult, preflight: Mapping[str, Mapping[str, Any]]) -> list[Block]:
    s = result.setup
    t = s.get("topics") or {}
    items = [
        f"Baseline: `{result.baseline}`; candidates: {', '.join(f'`{c}`' for c in result.candidates)}",
        f"Topics: {t.get('name', '(from qrels)')} — {s['n_topics']} topics counted"
        + (f" (`{t['path']}`)" if t.get("path") else ""),
        f"Topic-set hash (sha256): `{t.get('sha256') or 'n/a'}`",
        f"Qrels: `{s['qrels'].get('path') or s['qrels'].get('name')}`",
        *(f"Run `{name}`: `{path}`" for name, path in s["run_paths"].items() if path),
        *(_preflight_item(name, record) for name, record in preflight.items()),
        f"Measures: {', '.join(map(str, result.measures))}; primary measure: **{result.primary}**",
        f"α = {result.alpha:g}; multiple comparisons: {result.correction} over {len(result.comparisons)} tests",
        f"Seed {result.seed}; paired bootstrap {s['bootstrap_resamples']:,} resamples; randomization exact where "
        f"possible, else {s['randomization_resamples']:,} sign flips; Wilcoxon zero_method={s['zero_method']}",
        f"Rank buckets use the first relevant document within the top {s['cutoff']}",
    ]
    for run, ids in result.empty.items():
        if ids:
            items.append(f"`{run}` returned nothing for {len(ids)} topic(s) (scored 0): {' '.join(ids)}")
    return [heading("Setup"), bullets(items)]


def _preflight_item(run: str, record: Mapping[str, Any]) -> str:
    """What the run's system said about itself before the run, its lines joined by ``; ``."""
    check = record.get("check")
    shown = f"`{' '.join(check)}`" if isinstance(check, list) else f"`GET {check}`"
    lines = [line.strip() for line in str(record.get("output", "")).splitlines() if line.strip()]
    return f"Pre-flight of `{run}` ({shown}): {'; '.join(lines) or '(no output)'}"


def _tests(result: ComparisonResult) -> list[Block]:
    b = [
        heading("Tests"),
        paragraph(
            "delta = candidate − baseline per topic, averaged. p = paired randomization test on the "
            f"mean (two-sided); p adj. = {result.correction}-adjusted over all measures and candidates. "
            "t = paired t-test; Wilcoxon = signed-rank (method shown); d_z = Cohen's effect size for paired "
            "data; r_rb = rank-biserial; MDE80 = smallest mean delta detectable with 80% power."
        ),
    ]
    for cand in result.candidates:
        comps = [c for c in result.comparisons if c.candidate == cand]
        headers = [h.format(baseline=result.baseline, candidate=cand) for h in TEST_HEADERS]
        b += [
            heading(f"{cand} vs {result.baseline}", 3),
            table(headers, [_test_row(c) for c in comps], left=(0, -1)),
        ]
        nis = [c for c in comps if c.noninferiority is not None]
        if nis:
            b.append(heading(f"Non-inferiority of {cand}", 3))
            b.append(
                table(
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
                    left=(0, -1),
                )
            )
        notes = [f"{c.measure}: {n}" for c in comps for n in c.notes]
        if notes:
            b.append(bullets(notes))
    return b


def _rank1(r: RankOutcome, alpha: float) -> list[Block]:
    m = r.mcnemar
    return [
        heading(f"{r.baseline} → {r.candidate} (first relevant within top {r.cutoff})", 3),
        table(
            ["bucket", "topics", "ids"],
            [[BUCKET_LABELS[k], str(r.count(k)), " ".join(r.topics[k])] for k in BUCKETS],
            left=(0, -1),
        ),
        table(
            ["", f"{r.candidate} at 1", f"{r.candidate} not at 1"],
            [
                [f"{r.baseline} at 1", str(r.both_at_1), str(m.degraded)],
                [f"{r.baseline} not at 1", str(m.fixed), str(r.neither_at_1)],
            ],
        ),
        paragraph(
            f"Exact McNemar (Fixed {m.fixed} vs Degraded {m.degraded}): p = {pval(m.pvalue)}"
            f"{_reach(m.fixed + m.degraded, alpha)}. "
            "Added/Removed topics (results in one run only) are outside the 2×2 table."
        ),
        table(
            ["within top " + str(r.cutoff), "topics", "ids"],
            [[k, str(len(r.found_lost[k])), " ".join(r.found_lost[k])] for k in FOUND_LOST],
            left=(0, -1),
        ),
    ]


def _preferences(result: ComparisonResult) -> list[Block]:
    rows = [
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
    ]
    return [
        heading("Preferences (deprecation)"),
        paragraph(
            "Per pair: win when the best-ranked modern page ranks above the best-ranked legacy page, "
            "loss when below, tie when neither appears. Exact sign test (ties dropped); win rate with "
            "Clopper–Pearson 95% CI."
        ),
        table(
            ["run", "wins", "losses", "ties", "win rate", "95% CI", "sign test p", "losses (ids)"],
            rows,
            left=(0, -1),
        ),
    ]


def _by_class(result: ComparisonResult) -> list[Block]:
    b = [heading("Per class")]
    for cls, br in result.by_class.items():
        rows = [
            [
                str(measure),
                cc.candidate,
                num(br.means[cc.baseline][measure]),
                num(br.means[cc.candidate][measure]),
                signed(cc.delta),
                interval(cc.ci95),
                rand_label(cc),
                verdict(cc),
            ]
            for measure in br.measures
            for cc in br.comparisons
            if cc.measure == measure
        ]
        headers = [
            "measure",
            "candidate",
            "mean baseline",
            "mean candidate",
            "delta",
            "95% CI",
            "p",
            "verdict",
        ]
        b += [heading(f"{cls} ({len(br.topics)} topics)", 3), table(headers, rows, left=(0, 1, -1))]
    return b


def _all_pairs(result: ComparisonResult) -> list[Block]:
    b: list[Block] = []
    for tk in result.all_pairs:
        if not b:
            b.append(heading("All pairs (randomised Tukey HSD)"))
            b.append(
                paragraph(
                    "Permutes the runs' scores within each topic (the pairing is kept); one test over "
                    f"all pairs, {tk.resamples:,} permutations, seed {tk.seed}."
                )
            )
        b.append(
            table(
                [f"{tk.measure} pair", "delta", "p"],
                [[f"{p.b} − {p.a}", signed(p.delta), pval(p.pvalue)] for p in tk.pairs],
            )
        )
    return b


def _worst(result: ComparisonResult, topics: TopicSet | None) -> list[Block]:
    b = [heading(f"Worst regressions ({result.primary})")]
    for cand in result.candidates:
        primary = result.comparison(cand, result.primary)
        r = next(x for x in result.rank1 if x.candidate == cand)
        if primary is None:
            continue
        worst = sorted((d, q) for q, d in zip(primary.topics, primary.diffs, strict=True) if d < 0)[:WORST]
        b.append(heading(f"{cand} vs {result.baseline}", 3))
        if not worst:
            b.append(paragraph("No topic got worse."))
            continue
        values = dict(
            zip(
                primary.topics,
                zip(primary.baseline_values, primary.candidate_values, strict=True),
                strict=True,
            )
        )
        rows = [
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
        ]
        headers = [
            "topic",
            "query",
            result.baseline,
            cand,
            "delta",
            "rank " + result.baseline,
            "rank " + cand,
        ]
        b.append(table(headers, rows, left=(0, 1)))
    return b


def _query(topics: TopicSet | None, qid: str) -> str:
    topic = topics.get(qid) if topics is not None else None
    return topic.query if topic else ""


def _test_row(c: PairedResult) -> list[str]:
    t = c.t
    return [
        f"{c.measure}*" if c.primary else str(c.measure),
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
    if ni is None:
        raise ValueError(f"{c.measure}: no non-inferiority test to report")
    claim = f"no regression larger than {ni.margin:g}" if ni.holds else "regression not ruled out"
    return [
        str(c.measure),
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
