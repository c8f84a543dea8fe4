"""``compare --format latex`` / ``ComparisonResult.to_latex()``: ranx's superscript letters, bold best, a caption
that names the test, the adjustment and α, and a table a plain ``pdflatex`` compiles (booktabs only).

The marks are checked two ways: against a hand-made design whose answer is known (a run that finds the
relevant document at rank 1 on all 30 topics where the others find it at rank 2 is better than both; two
identical runs are not different), and against the JSON of the same comparison, read here with ``json``.
Compiling needs TeX (Debian's texlive-latex-base and texlive-latex-recommended; ``.ci/run`` installs them):
without it those tests skip, under ``CI=true`` they fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import toolkit
from toolkit.reports.latex import latex_text

pytestmark = pytest.mark.filterwarnings("ignore::toolkit.errors.ToolkitWarning")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "trec-toolkit"
N = 30
#: A cell: the mean (bold when best), the superscript letters, the phantom of the others.
CELL = re.compile(
    r"^(?:\\textbf\{(?P<bold>[0-9.]+)\}|(?P<plain>[0-9.]+|--))(?:\$\^\{(?P<sup>[a-z]+)\}\$)?"
    r"(?:\\hphantom\{\$\^\{(?P<phantom>[a-z]+)\}\$\})?$"
)


def write_runs(folder: Path, names: tuple[str, str, str] = ("base", "good", "same")) -> list[Path]:
    """base and same: the relevant document at rank 2 of every topic; good: at rank 1."""
    (folder / "q.qrels").write_text("".join(f"t{i} 0 rel{i} 1\n" for i in range(N)))
    paths = []
    for name, first in zip(names, (False, True, False), strict=True):
        lines = []
        for i in range(N):
            order = [f"rel{i}", f"x{i}"] if first else [f"x{i}", f"rel{i}"]
            lines += [f"t{i} Q0 {d} {r + 1} {2 - r} {name}\n" for r, d in enumerate(order)]
        path = folder / f"{name}.run"
        path.write_text("".join(lines))
        paths.append(path)
    return paths


def table_rows(latex: str) -> dict[str, dict[str, dict[str, str | None]]]:
    """run → measure → {value, bold, sup, phantom} read back from the tabular."""
    body = latex.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    header = latex.split("\\toprule\n", 1)[1].split(" \\\\", 1)[0].split(" & ")[2:]
    out = {}
    for line in body.strip().splitlines():
        cells = line.removesuffix(" \\\\").split(" & ")
        parsed = {}
        for measure, cell in zip(header, cells[2:], strict=True):
            m = CELL.match(cell)
            assert m, cell
            parsed[measure] = {
                "value": m["bold"] or m["plain"],
                "bold": m["bold"],
                "sup": m["sup"] or "",
                "phantom": m["phantom"] or "",
            }
        out[cells[1]] = parsed
    return out


def test_a_run_better_than_both_others_carries_both_letters(tmp_path: Path) -> None:
    runs = write_runs(tmp_path)
    result = toolkit.compare(
        [str(p) for p in runs], str(tmp_path / "q.qrels"), measures="RR@10 P@1", primary="RR@10"
    )
    latex = result.to_latex()
    rows = table_rows(latex)
    # RR@10: base 0.5, good 1.0, same 0.5; P@1: 0, 1, 0 — good is better than a (base) and c (same) on both
    assert rows["good"]["RR@10"] == {"value": "1.0000", "bold": "1.0000", "sup": "ac", "phantom": ""}
    assert rows["good"]["P@1"]["sup"] == "ac"
    for run, others in (("base", "bc"), ("same", "ab")):
        for measure in ("RR@10", "P@1"):
            assert rows[run][measure]["sup"] == "" and rows[run][measure]["phantom"] == others
            assert rows[run][measure]["bold"] is None
    assert "paired randomization test" in latex and "adjusted $p < 0.05$" in latex
    assert "Holm across the 2 candidates" in latex and "an exploratory family per measure (Holm)" in latex


def json_marks(data: dict) -> dict[tuple[str, str], str]:
    """The letters each (run, measure) should carry, read from the JSON contract's verdicts."""
    letter = {run: "abcdefghijklmnopqrstuvwxyz"[i] for i, run in enumerate(data["runs"])}
    won: dict[tuple[str, str], set[str]] = {}
    for c in data["comparisons"]:
        words = c["verdict"].split(" ", 1)[0]  # "better by signed ranks …, but the mean Δ …" is "better"
        if words in ("better", "worse"):
            winner, loser = (c["candidate"], c["baseline"])[:: 1 if words == "better" else -1]
            won.setdefault((winner, c["measure"]), set()).add(letter[loser])
    for family in data["all_pairs"]:
        for p in family["pairs"]:
            words = p["verdict"].split(" ", 1)[0]
            if data["baseline"] in (p["a"], p["b"]) or words not in ("better", "worse"):
                continue
            winner, loser = (p["b"], p["a"])[:: 1 if words == "better" else -1]
            won.setdefault((winner, family["measure"]), set()).add(letter[loser])
    return {key: "".join(sorted(v)) for key, v in won.items()}


def cli(*args: str, cwd: Path) -> str:
    done = subprocess.run([str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def json_verdicts(*args: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The same comparison's ``--format json``, the reference the table's marks are held to, in this process
    (click's runner): the LaTeX under test comes from the console script; JSON's own path is tested with it."""
    from click.testing import CliRunner

    from toolkit.cli import main

    monkeypatch.chdir(cwd)
    done = CliRunner().invoke(main, ["compare", *args, "--format", "json"])
    assert done.exit_code == 0, done.stderr
    return json.loads(done.stdout)


def test_the_marks_of_the_command_line_table_are_the_json_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = [str(p) for p in write_runs(tmp_path)]
    args = [*runs, "--qrels", str(tmp_path / "q.qrels"), "--measures", "RR@10 P@1 P@5", "--correction", "bh"]
    latex = cli("compare", *args, "--format", "latex", cwd=tmp_path)
    data = json_verdicts(*args, cwd=tmp_path, monkeypatch=monkeypatch)
    expected = json_marks(data)
    assert expected  # the design has significant differences to mark
    rows = table_rows(latex)
    for run in data["runs"]:
        for measure in data["setup"]["measures"]:
            assert rows[run][measure]["sup"] == expected.get((run, measure), ""), (run, measure)
            assert float(rows[run][measure]["value"]) == pytest.approx(
                data["setup"]["means"][run][measure], abs=5e-5
            )
    assert "Benjamini--Hochberg" in latex


def test_names_are_escaped_for_latex() -> None:
    assert latex_text("a_b&c%d$e#f{g}h~i^j\\k") == (
        r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    )
    assert latex_text("<x|y>") == r"\textless{}x\textbar{}y\textgreater{}"
    assert latex_text("café\x1b[2J 検索") == "cafe?[2J ??"


def need_tex() -> str:
    found = shutil.which("pdflatex")
    if found is None:
        reason = "pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"the LaTeX tests cannot run in CI: {reason}")
        pytest.skip(reason)
    return found


def compile_table(table: str, folder: Path) -> str:
    """``table`` in the smallest document that loads booktabs, through pdflatex; the log's text."""
    pdflatex = need_tex()
    (folder / "table.tex").write_text(table, encoding="utf-8")
    (folder / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{table}\n\\end{document}\n"
    )
    done = subprocess.run(
        [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "paper.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert (folder / "paper.pdf").stat().st_size > 0
    return (folder / "paper.log").read_text(errors="replace")


def test_the_example_table_compiles_with_pdflatex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need_tex()
    args = [
        str(ROOT / "runs" / "bm25.run"),
        str(ROOT / "runs" / "bm25f.run"),
        "--qrels",
        str(ROOT / "qrels" / "stdlib.qrels"),
    ]
    args += ["--topics", str(ROOT / "topics" / "stdlib.toml"), "--primary", "RR@10"]
    latex = cli("compare", *args, "--format", "latex", cwd=tmp_path)
    log = compile_table(latex, tmp_path)
    assert "Missing character" not in log  # every character set in the font (no silent gap)
    data = json_verdicts(*args, cwd=tmp_path, monkeypatch=monkeypatch)
    rows = table_rows(latex)
    expected = json_marks(data)
    assert {(r, m): rows[r][m]["sup"] for r in data["runs"] for m in data["setup"]["measures"]} == {
        (r, m): expected.get((r, m), "") for r in data["runs"] for m in data["setup"]["measures"]
    }


def test_hostile_names_compile(tmp_path: Path) -> None:
    need_tex()
    runs = write_runs(tmp_path, ("base_%1", "good&#{x}", "same~^\\end{document}"))
    result = toolkit.compare([str(p) for p in runs], str(tmp_path / "q.qrels"), measures="RR@10")
    log = compile_table(result.to_latex(), tmp_path)
    assert "Missing character" not in log
