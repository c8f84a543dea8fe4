"""A comparison as a LaTeX table for a paper (``compare --format latex``, ``ComparisonResult.to_latex()``).

Runs × measures, the mean of each, the best value per measure in bold, and significance as superscript
letters the way ranx's ``Report.to_latex`` marks it: every run gets a letter (a, b, c …, the first column),
and a value carries the letter of each run it is *significantly better than*; the letters it does not carry
are set as a phantom, so the numbers of a column stay aligned.

Which differences are significant is not decided here: the table reads the comparison's JSON contract
(``Document.data``, ``toolkit.reports.comparison_json``) — the ``verdict`` of each candidate against the
baseline in the confirmatory and secondary families (the declared test, adjusted as the comparison declared),
and with 3+ runs the exploratory all-pairs family for the pairs of candidates. So the marks are the JSON's
verdicts, "better" or "worse" (in the declared test's direction), and nothing else; a candidate that is not comparable (failed topics) gets no
letter and a dagger. The caption says which test, which adjustment and α.

The output is a ``table`` environment to ``\\input`` into a paper; it needs ``\\usepackage{booktabs}`` and
nothing else, and compiles with a plain ``pdflatex`` (a test compiles it where TeX is installed). Run and
measure names are escaped for LaTeX; characters a plain pdflatex cannot set are transliterated to ASCII (``é``
→ ``e``) or shown as ``?``.
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from toolkit.reports.document import Document
from toolkit.reports.numbers import num

#: Decimals of the means (those of the report's aggregate table).
DIGITS = 4

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_PRINTABLE = set(string.ascii_letters + string.digits + " !\"'()*+,-./:;=?@[]`")

#: How the adjustments are named in the caption.
ADJUSTMENTS = {
    "holm": "Holm",
    "bh": "Benjamini--Hochberg",
    "none": "no adjustment",
    "fixed-sequence": "fixed sequence",
}
#: How the declared tests are named in the caption.
TESTS = {
    "randomization": "paired randomization test",
    "t": "paired $t$ test",
    "wilcoxon": "Wilcoxon signed-rank test",
}


def latex_text(text: object) -> str:
    """``text`` as literal LaTeX text: specials escaped, non-ASCII transliterated, the rest as ``?``."""
    out = []
    for ch in str(text):
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in _PRINTABLE:
            out.append(ch)
        else:
            ascii_ = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
            out.append("".join(c if c in _PRINTABLE else _SPECIAL.get(c, "?") for c in ascii_) or "?")
    return "".join(out)


def letters(count: int) -> list[str]:
    """a, b, … z, then aa, ab, … (one letter per run, as ranx labels its runs)."""
    abc = string.ascii_lowercase
    return [abc[i] if i < 26 else abc[i // 26 - 1] + abc[i % 26] for i in range(count)]


def significance_marks(data: Mapping[str, Any]) -> dict[tuple[str, str], set[str]]:
    """(run, measure) → the runs it is significantly better than, from the JSON contract's verdicts."""
    baseline = data["baseline"]
    marks: dict[tuple[str, str], set[str]] = {}

    def better(winner: str, loser: str, measure: str) -> None:
        marks.setdefault((winner, measure), set()).add(loser)

    for c in data["comparisons"]:
        if direction(c["verdict"]) == "better":
            better(c["candidate"], c["baseline"], c["measure"])
        elif direction(c["verdict"]) == "worse":
            better(c["baseline"], c["candidate"], c["measure"])
    for family in data.get("all_pairs", ()):
        for p in family["pairs"]:
            if baseline in (p["a"], p["b"]):
                continue  # against the baseline: the declared families above decide
            if direction(p["verdict"]) == "better":  # b against a
                better(p["b"], p["a"], family["measure"])
            elif direction(p["verdict"]) == "worse":
                better(p["a"], p["b"], family["measure"])
    return marks


def direction(verdict: str) -> str | None:
    """ "better" or "worse" for a significant verdict — its first word, also when it goes on to say that the
    declared test and the mean disagree (``toolkit.stats.families.directed``) — else None."""
    first = verdict.split(" ", 1)[0]
    return first if first in ("better", "worse") else None


def render_latex(document: Document) -> str:
    """The table of a comparison's document (see the module docstring)."""
    data = document.data
    if "comparisons" not in data or "setup" not in data:
        raise ValueError("a LaTeX table is made from a comparison (compare, audit), not from this report")
    runs: Sequence[str] = data["runs"]
    measures: Sequence[str] = data["setup"]["measures"]
    means: Mapping[str, Mapping[str, float | None]] = data["setup"]["means"]
    letter = dict(zip(runs, letters(len(runs)), strict=True))
    marks = significance_marks(data)
    blocked = {v["candidate"] for v in data.get("verdicts", ()) if not v.get("comparable", True)}

    shown = {(r, m): num(means[r].get(m), DIGITS) for r in runs for m in measures}
    best = {}
    for m in measures:
        values = [float(shown[(r, m)]) for r in runs if shown[(r, m)] != "–"]
        best[m] = max(values) if values else None

    rows = []
    for run in runs:
        cells = [letter[run], latex_text(run) + (r"$^\dagger$" if run in blocked else "")]
        for m in measures:
            value = shown[(run, m)]
            cell = "--" if value == "–" else value
            if best[m] is not None and value != "–" and float(value) == best[m]:
                cell = rf"\textbf{{{cell}}}"
            won = sorted(letter[r] for r in marks.get((run, m), ()))
            rest = [letter[r] for r in runs if r != run and letter[r] not in won]
            if won:
                cell += f"$^{{{''.join(won)}}}$"
            if rest:
                cell += rf"\hphantom{{$^{{{''.join(rest)}}}$}}"
            cells.append(cell)
        rows.append(" & ".join(cells) + r" \\")

    header = " & ".join(["", "Run", *(latex_text(m) for m in measures)]) + r" \\"
    return "\n".join(
        [
            r"% trec-toolkit: a comparison table; needs \usepackage{booktabs} in the preamble.",
            r"\begin{table}[t]",
            r"\centering",
            rf"\caption{{{_caption(data, letter, blocked)}}}",
            r"\label{tab:trec-toolkit-comparison}",
            r"\begin{tabular}{cl" + "r" * len(measures) + "}",
            r"\toprule",
            header,
            r"\midrule",
            *rows,
            r"\bottomrule",
            r"\end{tabular}",
            r"\end{table}",
            "",
        ]
    )


def _caption(data: Mapping[str, Any], letter: Mapping[str, str], blocked: set[str]) -> str:
    conf = data["confirmatory"]
    alpha = f"{data['alpha']:g}"
    n = data["setup"].get("n_topics")
    primary = latex_text(conf["measure"])
    base = latex_text(data["baseline"])
    if conf["adjustment"] == "fixed-sequence":
        confirm = "a fixed sequence in the declared order"
    elif conf["m"] > 1:
        confirm = f"Holm across the {conf['m']} candidates"
    else:
        confirm = "one candidate, no adjustment"
    correction = ADJUSTMENTS.get(data["correction"], latex_text(data["correction"]))
    parts = [
        f"Mean of each measure{f' over {n} topics' if n is not None else ''}; the best value per measure in bold.",
        f"A superscript letter marks a run significantly better than the run with that letter "
        f"(adjusted $p < {alpha}$, {TESTS.get(data['test'], latex_text(data['test']))}).",
        f"Against the baseline ({letter[data['baseline']]}, {base}): {primary} is the confirmatory test "
        f"({confirm}); the other measures are one secondary family ({correction}).",
    ]
    if len(letter) > 2:
        parts.append(f"Between the other runs: an exploratory family per measure ({correction}).")
    if blocked:
        parts.append(r"$^\dagger$Topics failed in this run: not comparable, no significance marked.")
    return " ".join(parts)
