"""The detail and appendix sections of the comparison document (``reports.comparison`` orders them).

Each function returns the blocks of one section. Long lists of topic ids are bulleted lists under a table of
counts, never a table column, so that every table fits a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolkit.model import TopicSet
from toolkit.reports.document import Block, bullets, code_span, esc, heading, paragraph, table
from toolkit.reports.numbers import BUCKET_LABELS, ci_text, interval, num, pval, rank_text, signed
from toolkit.stats.buckets import BUCKETS, FOUND_LOST, RankOutcome
from toolkit.stats.counts import reach_note
from toolkit.stats.paired import PairedResult
from toolkit.stats.result import ComparisonResult

#: How many topics the "worst regressions" table lists per candidate.
WORST = 10


#: The columns of one paired test, after those that say which test it is (candidate, measure, n, the baseline's
#: mean): every comparison table ends with them, in this order.
TEST_COLUMNS = ("mean cand.", "Δ", "95% CI", "p", "p adj.", "verdict")


def _ids(label: str, ids: Sequence[str]) -> str:
    """A list item naming topics: ``label`` and the ids are literal text (run names, topic ids)."""
    return f"{esc(label)} ({len(ids)}): {esc(' '.join(ids))}"


def rank1_blocks(result: ComparisonResult) -> list[Block]:
    b = [heading("Rank-1 buckets")]
    for r in result.rank1:
        b += _rank1(r, result.alpha)
    return b


def _rank1(r: RankOutcome, alpha: float) -> list[Block]:
    m = r.mcnemar
    note = reach_note(m.fixed + m.degraded, alpha)
    listed = [_ids(BUCKET_LABELS[k], r.topics[k]) for k in BUCKETS if r.topics[k]]
    listed += [
        _ids(f"{k} within top {r.cutoff}", r.found_lost[k]) for k in ("found", "lost") if r.found_lost[k]
    ]
    return [
        heading(esc(f"{r.baseline} → {r.candidate} (first relevant within top {r.cutoff})"), 3),
        table(["bucket", "topics"], [[BUCKET_LABELS[k], str(r.count(k))] for k in BUCKETS]),
        table(
            ["", f"{r.candidate} at 1", f"{r.candidate} not at 1"],
            [
                [f"{r.baseline} at 1", str(r.both_at_1), str(m.degraded)],
                [f"{r.baseline} not at 1", str(m.fixed), str(r.neither_at_1)],
            ],
        ),
        paragraph(
            f"Exact McNemar (Fixed {m.fixed} vs Degraded {m.degraded}): p = {pval(m.pvalue)}"
            f"{f' — {note}' if note else ''}. Added/Removed topics (results in one run only) are outside the "
            "2×2 table."
        ),
        table([f"within top {r.cutoff}", "topics"], [[k, str(len(r.found_lost[k]))] for k in FOUND_LOST]),
        *([bullets(listed)] if listed else []),
    ]


def preferences_blocks(result: ComparisonResult) -> list[Block]:
    if not result.preferences:
        return []
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
    lost = [_ids(f"{p.run} lost", p.topics["loss"]) for p in result.preferences if p.topics["loss"]]
    return [
        heading("Preferences (deprecation)"),
        paragraph(
            "Per pair: win when the best-ranked modern page ranks above the best-ranked legacy page, "
            "loss when below, tie when neither appears. Exact sign test (ties dropped); win rate with "
            "Clopper–Pearson 95% CI."
        ),
        table(["run", "wins", "losses", "ties", "win rate", "95% CI", "sign test p"], rows),
        *([bullets(lost)] if lost else []),
    ]


def by_class_blocks(result: ComparisonResult) -> list[Block]:
    if not result.by_class:
        return []
    total = sum(len(br.comparisons) for br in result.by_class.values())
    b = [
        heading("Per class (exploratory)"),
        paragraph(
            f"Exploratory: each class with its own measures; p adj. = {result.correction} within this family of "
            f"{total} tests (every class, measure and candidate). A row gets a verdict only when its adjusted p "
            "< α; “–” is no verdict, not “no difference”. 95% CI = studentized bootstrap, unadjusted (withheld "
            "below 30 topics)."
        ),
    ]
    for cls, br in result.by_class.items():
        rows = [
            [
                str(cc.measure),
                cc.candidate,
                num(br.means[cc.baseline][cc.measure]),
                num(br.means[cc.candidate][cc.measure]),
                signed(cc.delta),
                ci_text(cc.ci95),
                pval(cc.pvalue),
                pval(cc.p_adjusted),
                cc.verdict,
            ]
            for measure in br.measures
            for cc in br.comparisons
            if cc.measure == measure
        ]
        headers = ["measure", "candidate", "mean base", *TEST_COLUMNS]
        b += [heading(esc(f"{cls} ({len(br.topics)} topics)"), 3), table(headers, rows, left=(0, 1, -1))]
    return b


def all_pairs_blocks(result: ComparisonResult) -> list[Block]:
    if not result.all_pairs:
        return []
    b = [
        heading("All pairs (exploratory)"),
        paragraph(
            f"Every pair of runs, paired by topic, by the same declared test; one family per measure, adjusted by "
            f"{result.correction}. Δ = second − first. A verdict only when the adjusted p < α; a pair with "
            f"{esc(result.baseline)} reads the verdict of the family that answers it (confirmatory or secondary), "
            "so one pair never gets two verdicts."
        ),
    ]
    for fam in result.all_pairs:
        rows = [
            [
                f"{p.b} − {p.a}",
                str(p.n),
                signed(p.delta),
                ci_text(p.ci95),
                pval(p.pvalue),
                pval(p.p_adjusted),
                p.verdict,
            ]
            for p in fam.pairs
        ]
        notes = [f"{esc(p.b)} − {esc(p.a)}: {esc(p.note)}" for p in fam.pairs if p.note]
        b += [
            heading(esc(fam.measure), 3),
            table(["pair", "n", "Δ", "95% CI", "p", "p adj.", "verdict"], rows, left=(0, -1)),
            *([bullets(notes)] if notes else []),
        ]
    return b


def judged_blocks(result: ComparisonResult) -> list[Block]:
    depth = result.judged[0].depth if result.judged else 10
    if result.judged_human:
        text = (
            f"Share of each run's top {depth} that the qrels judged (topics without results skipped). Unjudged "
            "documents count as non-relevant, so a run with low Judged@k is scored too low — the pooling-bias "
            "trap: judge deeper (trec-toolkit pool) before trusting a difference."
        )
    else:
        text = (
            f"Share of each run's top {depth} that the qrels list. These qrels judge no document non-relevant "
            "(regex truth lists only matches), so every other document is unjudged by construction and "
            "Judged@k is shown for the record, not as a warning."
        )
    rows = [[j.run, num(j.rate), str(j.topics), str(len(j.unjudged_topics))] for j in result.judged]
    return [
        heading(f"Judged@{depth}"),
        paragraph(text),
        table(["run", f"Judged@{depth}", "topics with results", "topics with unjudged docs"], rows),
    ]


def failures_blocks(result: ComparisonResult) -> list[Block]:
    f = result.failures
    b = [heading("Failed topics")]
    if not any(f.failed.values()):
        return [*b, paragraph("No run records a failed topic (from the run manifests).")]
    policy = (
        "allowed with --allow-failed: the verdicts were computed, the failed topics scored 0"
        if f.allowed
        else "a candidate compared with a run that has failed topics is not comparable (--allow-failed to "
        "compare anyway)"
    )
    b += [
        paragraph(f"Topics whose system call failed after every retry (from the run manifests); {policy}."),
        table(["run", "failed topics"], [[run, str(f.count(run))] for run in result.runs]),
    ]
    listed = [_ids(run, f.failed[run]) for run in result.runs if f.failed.get(run)]
    return [*b, bullets(listed)]


def worst_blocks(
    result: ComparisonResult, topics: TopicSet | None, plots: Mapping[str, Sequence[Block]]
) -> list[Block]:
    """Per candidate: its per-topic delta plot (``plots[candidate]``) and the topics that lost most."""
    b = [heading(esc(f"Worst regressions ({result.primary})"))]
    for cand in result.candidates:
        primary = result.comparison(cand, result.primary)
        r = next(x for x in result.rank1 if x.candidate == cand)
        if primary is None:
            continue
        worst = sorted((d, q) for q, d in zip(primary.topics, primary.diffs, strict=True) if d < 0)[:WORST]
        b.append(heading(esc(f"{cand} vs {result.baseline}"), 3))
        b += plots.get(cand, ())
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
        headers = ["topic", "query", result.baseline, cand, "Δ", "rank " + result.baseline, "rank " + cand]
        b.append(table(headers, rows, left=(0, 1)))
    return b


def _query(topics: TopicSet | None, qid: str) -> str:
    topic = topics.get(qid) if topics is not None else None
    return topic.query if topic else ""


def appendix_blocks(result: ComparisonResult, preflight: Mapping[str, Mapping[str, Any]]) -> list[Block]:
    comps = [("all", c) for c in result.comparisons]
    comps += [(cls, c) for cls, br in result.by_class.items() for c in br.comparisons]
    b = [
        heading("Appendix"),
        heading("Every test", 3),
        paragraph(
            f"The declared test ({result.test}) gives every p above; the others are here for the record, not as "
            "rival answers. Randomization: exact (enumeration or a dynamic programme over the integer sums) "
            "where the values allow, else Monte Carlo with seeded sign flips; the grid is the one the "
            "differences were compared on (exact rationals for RR@k, P@k; 1e-9 otherwise). Wilcoxon: "
            f"zero_method={result.setup['zero_method']}, two-sided, no continuity correction (exact cond. = the "
            "exact conditional null of the mid-ranks). Class: the topics "
            "a row is computed on (all, or one query class)."
        ),
        table(
            [
                "candidate",
                "measure",
                "class",
                "family",
                "rand. p",
                "method",
                "grid",
                "t (df)",
                "t p",
                "Wilcoxon p (method)",
            ],
            [_tests_row(cls, c) for cls, c in comps],
            left=(0, 1, 2, 3, 5, 6, -1),
        ),
        heading("Effect sizes, t interval, post hoc MDE", 3),
        paragraph(
            "d_z = mean Δ / sd; r_rb = matched-pairs rank-biserial; t = the paired t 95% interval, for the record "
            "(it assumes symmetric differences and undercovers under skew; the headline interval is the "
            f"studentized bootstrap of {result.setup['bootstrap_resamples']:,} seeded topic resamples); MDE80 = "
            "post hoc minimum detectable effect: the smallest mean Δ a two-sided paired t test would detect "
            f"with 80% power at α/m = {result.alpha / max(1, result.confirmatory.m):.4g} (Bonferroni over the "
            "candidates), from this topic set's spread. Estimates need at least 10 topics (minimum-data rule)."
        ),
        table(
            ["candidate", "measure", "d_z", "r_rb", "95% CI (t)", "MDE80 (post hoc)"],
            [
                [
                    c.candidate,
                    str(c.measure),
                    num(c.d_z, 3),
                    num(c.rank_biserial, 3),
                    interval(c.ci95_t.pair()),
                    num(c.mde80.value),
                ]
                for c in result.comparisons
            ],
            left=(0, 1),
        ),
        *_setup(result, preflight),
        heading("Versions", 3),
        table(["library", "version"], list(result.versions.items()), left=(0, 1)),
    ]
    return b


def _tests_row(query_class: str, c: PairedResult) -> list[str]:
    r = c.randomization
    return [
        c.candidate,
        str(c.measure),
        query_class,
        c.family,
        pval(r.pvalue),
        "exact" if r.exact else f"MC {r.resamples:,}",
        r.grid.removesuffix(" grid"),
        f"{num(c.t.statistic, 3)} ({c.t.df})",
        pval(c.t.pvalue),
        f"{pval(c.wilcoxon.pvalue)} ({c.wilcoxon.method.replace('conditional', 'cond.')})",
    ]


def _setup(result: ComparisonResult, preflight: Mapping[str, Mapping[str, Any]]) -> list[Block]:
    s = result.setup
    t = s.get("topics") or {}
    items = [
        f"Baseline: {code_span(result.baseline)}; candidates: {', '.join(code_span(c) for c in result.candidates)}",
        f"Topics: {esc(t.get('name', '(from qrels)'))} — {s['n_topics']} topics counted"
        + (f" ({code_span(t['path'])})" if t.get("path") else "")
        + _expect_empty_note(s),
        f"Topic-set hash (sha256): {code_span(t.get('sha256') or 'n/a')}",
        f"Qrels: {code_span(s['qrels'].get('path') or s['qrels'].get('name'))}",
        *(f"Run {code_span(name)}: {code_span(path)}" for name, path in s["run_paths"].items() if path),
        *(_preflight_item(name, record) for name, record in preflight.items()),
        f"Measures: {esc(', '.join(map(str, result.measures)))}; primary measure: **{esc(result.primary)}**",
        f"Declared test: {result.test}; α = {result.alpha:g}; confirmatory adjustment: "
        f"{result.confirmatory.adjustment}; secondary and exploratory: {result.correction}",
        f"Seed {result.seed}; randomization exact where possible, else {s['randomization_resamples']:,} sign flips; "
        f"paired bootstrap {s['bootstrap_resamples']:,} resamples; Wilcoxon zero_method={s['zero_method']}",
        f"Rank buckets use the first relevant document within the top {s['cutoff']}",
    ]
    for run, ids in result.empty.items():
        if ids:
            items.append(
                f"{code_span(run)} returned nothing for {len(ids)} topic(s) (scored 0): {esc(' '.join(ids))}"
            )
    return [heading("Setup", 3), bullets(items)]


def _preflight_item(run: str, record: Mapping[str, Any]) -> str:
    """What the run's system said about itself before the run, its lines joined by ``; ``."""
    check = record.get("check")
    shown = code_span(" ".join(check) if isinstance(check, list) else f"GET {check}")
    lines = [line.strip() for line in str(record.get("output", "")).splitlines() if line.strip()]
    return f"Pre-flight of {code_span(run)} ({shown}): {esc('; '.join(lines) or '(no output)')}"


def _expect_empty_note(setup: Mapping[str, Any]) -> str:
    """Why ``n`` may be smaller than the topic set: its expected-empty topics are outside it."""
    ids = setup.get("expect_empty_topics") or []
    if not ids:
        return ""
    return (
        f"; n counts only topics that can have relevant documents: the {len(ids)} topic"
        f'{"" if len(ids) == 1 else "s"} declared expect = "empty" are scored by their refusal outcome alone'
    )
