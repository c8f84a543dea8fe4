"""Every row of the measure table, as ``score`` computes it, against trec_eval 10 built from source.

Generated from the table (``toolkit.treceval.measures.TABLE``): each row ``score`` can compute is asked for by
its trec_eval spelling — with its default parameters and with parameters of its own kind (cutoffs, doubles,
``name=value`` pairs) — on random tie-heavy cases (``tests/trec_adversarial.py``: equal scores, grades -2 to 12,
topics whose grades are all negative, topics only in the run or only in the qrels), at relevance levels 0 to 3,
with ``-J`` and without. ``score``'s value of every topic and of ``all`` must print as trec_eval ``-q -c`` prints
it, every value compared. The rows ``score`` cannot compute are refused in one line (tested below).

Where trec_eval itself is not an oracle, and why (docs/scoring.md#measures says the same):

* ``num_rel``'s ``all`` under ``-c`` at a level other than 1 (trec_eval counts the judgments > 0, whatever
  ``-l`` says; ``score`` sums the topics' own counts);
* ``ideal_dcg`` on a topic whose grades are all negative (trec_eval reads the previous topic's grade counts;
  ``score`` uses the topic's own: nothing relevant, 0);
* ``rbp`` and ``rbp_resid`` are asked for in an invocation of their own, because trec_eval 10 starts their gain
  bounds uninitialised and other measures computed before leave garbage there.
"""

from __future__ import annotations

import math
import random
import warnings
from pathlib import Path

import pytest
from trec_adversarial import make_batch, render_qrels, render_run

from toolkit.errors import ToolkitWarning, UsageError
from toolkit.formats import read_qrels, read_run
from toolkit.scoring import evaluate, parse_measures
from toolkit.scoring.table import locate, scoreable, with_settings
from toolkit.treceval.measures import TABLE
from toolkit.treceval.measures.base import (
    DOUBLE,
    DOUBLE_CUTOFFS,
    DOUBLE_PARAMS,
    LONG_CUTOFFS,
    PAIR_PARAMS,
)

BATCHES = 60

SCORED = [row for row in TABLE if scoreable(row) is None]
REFUSED = [row for row in TABLE if scoreable(row) is not None]
#: Rows whose gain bounds trec_eval 10 leaves uninitialised: asked for alone (module docstring).
ALONE = ("rbp", "rbp_resid")
#: Rows that read a topic's grade counts where trec_eval carries them over from the previous topic.
CARRIED = ("ideal_dcg",)


def custom_parameters(row) -> str | None:  # type: ignore[no-untyped-def]
    """Parameters of the row's own kind, other than its defaults (derived from the row)."""
    if row.params == LONG_CUTOFFS:
        return "1,3,17"
    if row.params == DOUBLE_CUTOFFS:
        return "0.15,0.5,1.2"
    if row.params == DOUBLE_PARAMS:
        return ",".join(repr(d / 2 if d else 0.5) for d in row.defaults)
    if row.params == PAIR_PARAMS:
        return "p=0.8,1=0.5,2=3,4=2.5"
    return None


def invocations() -> list[list[str]]:
    """trec_eval ``-m`` arguments, one list per trec_eval run: every row's default spelling together (but the
    ``ALONE`` rows), then each custom spelling on its own (parameters given to one of dcg/ideal_dcg/ndcg crash
    trec_eval 10 when another of them is asked for too)."""
    together = [row.name for row in SCORED if row.name not in ALONE]
    runs = [together, [name for name in ALONE]]
    for row in SCORED:
        custom = custom_parameters(row)
        if custom is not None:
            runs.append([f"{row.name}.{custom}"])
    return runs


def oracle(trec_eval, options: list[str], qrels: Path, run: Path) -> dict[tuple[str, str], str]:  # type: ignore[no-untyped-def]
    done = trec_eval(*options, qrels, run)
    assert done.returncode == 0, (options, done.stderr)
    out = {}
    for line in done.stdout.decode("latin-1").splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        out[(name, qid)] = value
    return out


def printed(value: float, kind: str) -> str:
    if kind != DOUBLE:
        return str(int(value))
    return "nan" if math.isnan(value) else f"{value:.4f}"


def check_batch(trec_eval, tmp_path: Path, seed: int) -> int:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    batch = make_batch(seed, cases=rng.randint(2, 5), strict=True)
    run_path, qrels_path = tmp_path / f"{seed}.run", tmp_path / f"{seed}.qrels"
    run_path.write_bytes(render_run(batch, rng, strict=True))
    qrels_path.write_bytes(render_qrels(batch, rng))
    level = rng.choice([1, 1, 2, 3, 0])
    judged_only = rng.random() < 0.2
    flags = ["-q", "-c", f"-l{level}"] + (["-J"] if judged_only else [])
    qrels = read_qrels(qrels_path)
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", ToolkitWarning
        )  # run topics without qrels are ignored, with a warning
        run = read_run(run_path)
    all_negative = {q for q, docs in qrels.judgments.items() if max(docs.values()) < 0}
    checked = 0
    for arguments in invocations():
        measures = [with_settings(m, level, judged_only) for a in arguments for m in parse_measures(a)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ToolkitWarning)
            scores = evaluate(run, qrels, measures=measures)
        want = oracle(trec_eval, [*flags, *(x for a in arguments for x in ("-m", a))], qrels_path, run_path)
        for measure in measures:
            located = locate(measure)
            assert located is not None
            row, name = located.row, located.printed
            topics = list(scores.query_ids) if row.per_topic else []
            for qid in [*topics, "all"]:
                if row.name == "num_rel" and qid == "all" and level != 1:
                    continue
                if row.name in CARRIED and (qid in all_negative or (qid == "all" and all_negative)):
                    continue
                expected = want[(name, qid)]
                ours = scores.aggregate[str(measure)] if qid == "all" else scores.per_query[qid][str(measure)]
                assert printed(ours, row.value) == expected.replace("-nan", "nan"), (
                    f"seed {seed} {' '.join(flags)}: {measure} ({name}) {qid}: trec_eval {expected}, ours {ours!r}"
                )
                checked += 1
    return checked


@pytest.mark.parametrize("block", range(6))
def test_every_row_equals_trec_eval(trec_eval, tmp_path: Path, block: int) -> None:  # type: ignore[no-untyped-def]
    checked = 0
    for seed in range(block * BATCHES // 6, (block + 1) * BATCHES // 6):
        checked += check_batch(trec_eval, tmp_path, 20_000 + seed)
    assert checked > 5_000


def test_every_row_has_a_spelling_score_reads() -> None:
    for row in SCORED:
        for spelling in [row.name] + (
            [f"{row.name}.{custom_parameters(row)}"] if custom_parameters(row) else []
        ):
            measures = parse_measures(spelling)
            assert measures and all(locate(m).row is row for m in measures), spelling  # type: ignore[union-attr]
            for measure in measures:  # the name shown reads back to the same measure
                assert parse_measures(str(measure)) == (measure,)


def test_measures_survive_pickle() -> None:
    import pickle

    measures = parse_measures(",".join(row.name for row in SCORED))
    assert pickle.loads(pickle.dumps(measures)) == measures


@pytest.mark.parametrize("row", REFUSED, ids=[row.name for row in REFUSED])
def test_rows_score_cannot_compute_are_refused_in_one_line(row) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as raised:
        parse_measures(row.name)
    message = str(raised.value)
    assert "\n" not in message and row.name in message
    assert "trec" in message  # names what to use instead (trec_eval itself, or --format trec)
