"""Reference data sets (A1–A4 of shared/reference/README.md) turned into per-item judgments.

The references are published as contingency or count tables; agreement works on judgments, so each table is
expanded into one (assessor, query_id, doc_id, grade) per cell count. Items are spread over topics
round-robin so that the topic bootstrap has topics to resample.
"""

from __future__ import annotations

from pathlib import Path

Judgment = tuple[str, str, str, int]

# A1 (Wikipedia "Cohen's kappa"): rows A (yes, no), columns B (yes, no). yes = 1, no = 0.
A1_TABLE = [[20, 5], [10, 15]]
A1_GRADES = [1, 0]
# A2 (SAS example, statsmodels tests): grades 0, 1, 2.
A2_TABLE = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
A2_GRADES = [0, 1, 2]
# A3 (Wikipedia "Fleiss' kappa"): 10 subjects × 5 categories, 14 raters each.
A3_COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]
# A4: graded 0–3, two assessors.
A4_A = [0, 0, 1, 2, 3, 3, 2, 1, 0, 2, 3, 1]
A4_B = [0, 1, 1, 2, 2, 3, 3, 0, 0, 2, 3, 2]


def expand_table(
    table: list[list[int]], grades: list[int], *, a: str = "alice", b: str = "bob", topics: int = 1
) -> list[Judgment]:
    out: list[Judgment] = []
    item = 0
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            for _ in range(count):
                item += 1
                query, doc = f"q{item % topics + 1}", f"d{item}"
                out += [(a, query, doc, grades[i]), (b, query, doc, grades[j])]
    return out


def expand_counts(counts: list[list[int]]) -> list[Judgment]:
    """Rater k of a subject gets the k-th grade when the subject's counts are laid out in category order."""
    out: list[Judgment] = []
    for subject, row in enumerate(counts, start=1):
        grades = [category for category, n in enumerate(row) for _ in range(n)]
        out += [(f"r{k + 1}", "q1", f"d{subject}", grade) for k, grade in enumerate(grades)]
    return out


def a4_judgments(topics: int = 3) -> list[Judgment]:
    out: list[Judgment] = []
    for name, grades in (("alice", A4_A), ("bob", A4_B)):
        out += [(name, f"q{i % topics + 1}", f"d{i + 1}", g) for i, g in enumerate(grades)]
    return out


def write_tsv(path: Path, judgments: list[Judgment], *, header: bool = True) -> Path:
    lines = ["assessor\tquery_id\tdoc_id\tgrade"] if header else []
    lines += ["\t".join(str(x) for x in j) for j in judgments]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
