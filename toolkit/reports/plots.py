"""The audit's plots, drawn with matplotlib's Agg backend and returned as PNG bytes.

* per-topic delta of the primary measure, sorted by delta (one chart per candidate);
* distribution of the first-relevant rank per run (1..cutoff, and "none");
* a CI forest plot: per measure, each candidate's mean delta with its studentized bootstrap 95% CI
  (unadjusted), the interval the report's tables show (none below 30 topics).

PNG metadata is fixed (no Software/date chunks) and fonts are matplotlib's bundled DejaVu, so the bytes
depend only on the data and the matplotlib version.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from toolkit.stats.result import ComparisonResult


@dataclass(frozen=True)
class Plot:
    """One PNG; ``kind`` (``delta``, ``ranks``, ``forest``) and ``candidate`` tell the document where it goes."""

    name: str
    caption: str
    png: bytes
    kind: str = ""
    candidate: str = ""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def render_plots(result: ComparisonResult, *, prefix: str = "") -> list[Plot]:
    import matplotlib
    from matplotlib.ticker import MaxNLocator

    plt = _Figures()

    plots: list[Plot] = []
    with matplotlib.rc_context(
        {
            "svg.hashsalt": "trec-toolkit",
            "font.family": "DejaVu Sans",
            "font.size": 9,
            # no layout engine on the figures (``_png`` lays them out once), whatever a matplotlibrc says
            "figure.autolayout": False,
            "figure.constrained_layout.use": False,
        }
    ):
        for cand in result.candidates:
            c = result.comparison(cand, result.primary)
            if c is None:
                continue
            pairs = sorted(zip(c.diffs, c.topics, strict=True))
            # one bar per topic up to a few hundred; beyond that a filled step curve (the width is capped)
            fig, ax = plt.subplots(figsize=(min(16.0, max(6.0, 0.18 * len(pairs) + 2)), 3.6))
            deltas = [d for d, _ in pairs]
            if len(pairs) <= 300:
                colors = ["#2b8a3e" if d > 0 else "#c92a2a" if d < 0 else "#868e96" for d in deltas]
                ax.bar(range(len(pairs)), deltas, color=colors)
            else:
                x = range(len(pairs))
                ax.fill_between(x, deltas, 0, where=[d > 0 for d in deltas], step="mid", color="#2b8a3e")
                ax.fill_between(x, deltas, 0, where=[d < 0 for d in deltas], step="mid", color="#c92a2a")
                ax.set_xlabel(f"{len(pairs):,} topics, sorted by Δ")
            ax.axhline(0, color="#333", linewidth=0.8)
            if len(pairs) <= 60:
                ax.set_xticks(range(len(pairs)), [q for _, q in pairs], rotation=90, fontsize=7)
            else:
                ax.set_xticks([])
            ax.set_ylabel(f"Δ {c.measure} ({cand} − {result.baseline})")
            ax.set_title(f"Per-topic Δ {c.measure}, sorted (mean {c.delta:+.4f})")
            plots.append(
                Plot(
                    f"{prefix}delta-{_slug(cand)}-{_slug(str(c.measure))}.png",
                    f"Per-topic delta of {c.measure}, {cand} vs {result.baseline}, sorted",
                    _png(fig, plt),
                    "delta",
                    cand,
                )
            )

        if result.rank1:
            cutoff = result.rank1[0].cutoff
            series = {result.baseline: result.rank1[0].ranks_baseline}
            for r in result.rank1:
                series[r.candidate] = r.ranks_candidate
            labels = [str(i) for i in range(1, cutoff + 1)] + ["none"]
            fig, ax = plt.subplots(figsize=(7.0, 3.6))
            width = 0.8 / len(series)
            for i, (run, ranks) in enumerate(series.items()):
                at = Counter(ranks.values())  # topics per first-relevant rank (None: no relevant in the top)
                counts = [at[k] for k in range(1, cutoff + 1)] + [at[None]]
                ax.bar([x + i * width for x in range(len(labels))], counts, width=width, label=run)
            ax.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(labels))], labels)
            ax.set_xlabel(f"rank of the first relevant document (within top {cutoff})")
            ax.set_ylabel("topics")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of whole topics: whole ticks
            ax.legend()
            ax.set_title("First-relevant rank per run")
            plots.append(
                Plot(
                    f"{prefix}first-relevant-rank.png",
                    "Distribution of the first-relevant rank per run",
                    _png(fig, plt),
                    "ranks",
                )
            )

        rows = [
            (c.measure, c.candidate, c.delta, c.ci95.pair())
            for m in result.measures
            for c in result.comparisons
            if c.measure == m
        ]
        if rows:
            fig, ax = plt.subplots(figsize=(7.0, 0.35 * len(rows) + 1.2))
            for y, (_, _, delta, ci) in enumerate(reversed(rows)):
                if ci is not None:
                    ax.plot(list(ci), [y, y], color="#1c7ed6", linewidth=2)
                ax.plot([delta], [y], "o", color="#1c7ed6")
            ax.axvline(0, color="#333", linewidth=0.8)
            ax.set_yticks(range(len(rows)), [f"{m}  {cand}" for m, cand, _, _ in reversed(rows)])
            ax.set_xlabel(
                f"mean delta vs {result.baseline} with the studentized bootstrap 95% CI (unadjusted)"
            )
            ax.set_title(f"Confidence intervals per measure (primary: {result.primary})")
            plots.append(
                Plot(
                    f"{prefix}ci-forest.png",
                    "Mean delta per measure with its studentized bootstrap 95% CI (unadjusted)",
                    _png(fig, plt),
                    "forest",
                )
            )
    return plots


def _png(fig: object, plt: object) -> bytes:
    """The figure laid out tight once, then drawn once. ``Figure.tight_layout()`` leaves a placeholder layout
    engine on the figure, and a figure with an engine is drawn twice by ``savefig`` (once unrendered, for the
    engine); running the engine directly leaves none, so the PNG is the same for a third less drawing."""
    from matplotlib.layout_engine import TightLayoutEngine

    buffer = io.BytesIO()
    TightLayoutEngine().execute(fig)  # type: ignore[arg-type]
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})  # type: ignore[attr-defined]
    plt.close(fig)  # type: ignore[attr-defined]
    return buffer.getvalue()


class _Figures:
    """pyplot's ``subplots`` and ``close`` without pyplot: each figure gets its own Agg canvas, so drawing a
    report never switches the process's backend (a notebook's inline plots keep working after a comparison
    is displayed) and never opens a window."""

    @staticmethod
    def subplots(*, figsize: tuple[float, float]) -> tuple[object, Any]:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize)
        FigureCanvasAgg(fig)
        return fig, fig.add_subplot()

    @staticmethod
    def close(fig: object) -> None:
        """Nothing to release: the figure is not registered with pyplot."""
