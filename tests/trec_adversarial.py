"""Random adversarial TREC runs and qrels for the differential tests against the trec_eval binary.

A *case* is a few topics with hostile content: ties and equal scores, tiny/huge/negative/odd scores (``5e-324``,
``1e300``, ``-0``, ``inf``, ``0x1p-3``, ``1_0``), grades from -2 to 12, docs on one side only, topics only in
the run or only in the qrels, topics whose grades are all negative. A *batch* puts many cases (topic ids kept
apart by a prefix) in one run file and one qrels file, so that one trec_eval invocation checks them all, and
writes them in a random layout: spaces, tabs or runs of blanks, CRLF line ends, comments, blank lines, text
after column 6, gzip, standard input. ``strict=True`` keeps to what the toolkit's own readers accept.
"""

from __future__ import annotations

import gzip
import random
from dataclasses import dataclass, field

GRADES = [-2, -1, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 12]
SCORES = ["1", "2", "2", "0.5", "0.25", "-1", "-3.5", "0", "1e-300", "5e-324", "1e300", "-0", "0.1", "3.25e2"]
ODD_SCORES = ["inf", "-inf", "0x1p-3", "1_0", "+7", ".5", "1.", "abc", "2e", "9e999"]
#: Parameterised measures added to all_trec. Not yaap: trec_eval's rbp starts its gain minimum and maximum
#: uninitialised, and with yaap computed just before it they hold yaap's sum (docs/trec_eval.md).
EXTRA_MEASURES = [
    "-m P.1,3",
    "-m ndcg.1=3,2=0.5",
    "-m ndcg_cut.1,4",
    "-m rbp.p=0.5",
    "-m rbp.1=2,0=0.5",
    "-m rbp_resid.p=0.8",
    "-m relstring.5",
    "-m iprec_at_recall.0.15,0.5",
    "-m 11pt_avg.0.1,0.5",
    "-m Rprec_mult.0.3,1.7",
    "-m success.2",
    "-m set_F.0.5",
    "-m utility.2,-1,1,0",
    "-m dcg",
    "-m ideal_dcg",
    "-m G.2=4,1=0.5",
    "-m Rndcg.3=1",
    "-m ndcg_rel.2=1.5",
    "-m unj.1,7",
    "-m map_cut.2",
    "-m relative_P.3",
    "-m recall.2",
]


@dataclass
class Batch:
    """One trec_eval invocation's worth of cases: its files and its options."""

    options: list[str]
    run_lines: list[tuple[str, str, str]] = field(default_factory=list)  # (qid, doc, score text)
    qrels_lines: list[tuple[str, str, int]] = field(default_factory=list)
    cases: int = 0


def make_case(
    rng: random.Random, prefix: str, *, complete: bool, first: bool, strict: bool, batch: Batch
) -> None:
    """Add one case's topics to ``batch``."""
    for t in range(rng.randint(1, 3)):
        qid = f"{prefix}t{t}"
        size = rng.randint(1, 12) if rng.random() < 0.8 else rng.randint(20, 60)  # big ones: many relevant
        pool = [f"d{k}" for k in rng.sample(range(80), size)]
        all_negative = not (first and t == 0) and rng.random() < 0.08
        graded: dict[str, int] = {}
        for doc in pool:
            graded[doc] = -1 if all_negative else rng.choice(GRADES)
        if first and t == 0 and max(graded.values()) < 0:
            graded[pool[0]] = 1  # the first topic trec_eval sees must have a grade >= 0 (else it stops)
        if not all_negative and max(graded.values()) < -1:
            graded[pool[0]] = rng.choice([-1, 0, 1])  # a largest grade <= -2 crashes trec_eval
        only_in_run = rng.random() < 0.1 and not (first and t == 0)
        only_in_qrels = complete and rng.random() < 0.15 and not (first and t == 0)
        if not only_in_run:
            batch.qrels_lines.extend((qid, doc, grade) for doc, grade in graded.items())
        if only_in_qrels:
            continue
        retrieved = [d for d in pool if rng.random() < 0.7] + [
            f"x{k}" for k in rng.sample(range(30), rng.randint(0, 8))
        ]
        if not retrieved:
            retrieved = [pool[0]]
        few = rng.sample(SCORES, rng.randint(1, 4))
        for doc in dict.fromkeys(retrieved):
            score = rng.choice(ODD_SCORES) if not strict and rng.random() < 0.05 else rng.choice(few)
            batch.run_lines.append((qid, doc, score))
    batch.cases += 1


def make_batch(seed: int, *, cases: int, strict: bool = False) -> Batch:
    rng = random.Random(seed)
    complete = rng.random() < 0.6
    options = ["-q"]
    if complete:
        options.append("-c")
    if not strict:
        options += rng.choice([[], [], [], ["-l0"], ["-l2"], ["-l", "-1"]])
        options += rng.choice([[], [], [], ["-M0"], ["-M1"], ["-M", "3"], ["-M10"]])
        if rng.random() < 0.15:
            options.append("-J")
        options += ["-m", "all_trec"]
        extras = rng.sample(EXTRA_MEASURES, rng.randint(0, 3))
        if any(e in ("-m dcg", "-m ideal_dcg") for e in extras):
            # parameters for one of dcg/ideal_dcg/ndcg (all_trec has ndcg) crash trec_eval 10
            extras = [e for e in extras if not e.startswith("-m ndcg.")]
        for extra in extras:
            options += extra.split()
    batch = Batch(options)
    for c in range(cases):
        make_case(rng, f"s{seed}c{c:02d}", complete=complete, first=c == 0, strict=strict, batch=batch)
    return batch


def render_run(batch: Batch, rng: random.Random, *, strict: bool = False) -> bytes:
    lines = list(batch.run_lines)
    rng.shuffle(lines)
    sep = rng.choice([" ", "\t", "  ", " \t"])
    end = "\r\n" if rng.random() < 0.2 else "\n"
    out = []
    for rank, (qid, doc, score) in enumerate(lines, start=1):
        tail = " and more" if not strict and rng.random() < 0.05 else ""
        out.append(sep.join([qid, "Q0", doc, str(rank), score, "tag"]) + tail)
        if rng.random() < 0.03:
            out.append(rng.choice(["# comment", "   # indented comment", "", "  "]))
    text = end.join(out) + (end if rng.random() < 0.9 else "")
    return text.encode()


def render_qrels(batch: Batch, rng: random.Random) -> bytes:
    lines = list(batch.qrels_lines)
    rng.shuffle(lines)
    sep = rng.choice([" ", "\t", "   "])
    end = "\r\n" if rng.random() < 0.2 else "\n"
    out: list[str] = []
    for k, (qid, doc, grade) in enumerate(lines):
        out.append(sep.join([qid, "0", doc, str(grade)]))
        if rng.random() < 0.03 and k + 1 < len(lines):
            out.append("# a comment line")  # one at a time and never last: trec_eval's rule
    return (end.join(out) + end).encode()


def maybe_gzip(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    if rng.random() < 0.2:
        return gzip.compress(data, mtime=0), ".gz"
    return data, ""


def lengthen_doc_ids(data: bytes, seed: int) -> bytes:
    """The same file with doc ids of varied lengths (1 to ~60 bytes): ``d7`` → ``collection/…/d7``.

    Why: a column reader that hashes ids a word at a time must hash a value the same way whatever the other
    values' lengths are; short ids alone never show a mistake there.
    """
    import re

    rng = random.Random(seed)
    prefixes = ["", "c/", "collection/docs/", "urn:x-trec:" * 3, "doc-" * 11]
    chosen = {str(k): rng.choice(prefixes) for k in range(100)}

    def longer(match: re.Match[bytes]) -> bytes:
        number = match.group(2).decode()
        return chosen[number].encode() + match.group(1) + match.group(2)

    return re.sub(rb"(?<=[ \t])([dx])([0-9]+)(?=[ \t\r\n])", longer, data)
