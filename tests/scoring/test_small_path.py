"""``score``'s small-input path (``toolkit.scoring.kernels.ListBatch``: plain lists, the reference ports, no
numpy) held to its column path, to its numpy dict path and to trec_eval 10 built from source.

A run of at most ``SMALL_RESULTS`` results read line by line is scored on lists, by each measure row's
reference port; files read column-wise (and larger dict inputs) go through the numpy ``Batch`` and the
vectorised kernels. The same random adversarial cases as the other differential tests (ties, equal scores,
grades -2 to 12, topics whose grades are all negative, topics on one side only) are scored both ways with every
measure the table computes at its defaults, at two relevance levels and judged-only: every per-topic value and
every aggregate must be the same double. Each test also checks which path answered, so that it cannot pass by
both sides taking the same one.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest
from helpers.sizes import examples
from trec_adversarial import make_batch, render_qrels, render_run

from toolkit.errors import ToolkitWarning
from toolkit.formats import read_qrels, read_run
from toolkit.formats.qrels import read_qrels_lines
from toolkit.formats.run import read_run_lines
from toolkit.scoring import evaluate, kernels
from toolkit.scoring.table import scoreable
from toolkit.treceval.measures import TABLE

#: Every trec_eval row ``score`` computes, by its name with the row's default parameters, and RR@k (ERR is left
#: out: the random grades go past its scale, where both paths refuse it).
EVERY_ROW = [row.name for row in TABLE if scoreable(row) is None] + ["RR@3"]

#: The same measures again at another relevance level, judged-only (trec_eval -J), and with cutoffs.
VARIANTS = [
    "AP(rel=2) P(rel=2)@5 RR(rel=3) R(rel=2)@5 Rprec(rel=2) Bpref(rel=2) NumRet(rel=2) SetF(rel=2)",
    "AP(judged_only=True) P(judged_only=True)@5 RR(judged_only=True)@10 nDCG(judged_only=True)@10 "
    "Rprec(judged_only=True) SetP(judged_only=True)",
    "RR@3 RR@10 nDCG@1 nDCG@4 AP@2 Success@2 P@200 R@100 IPrec@0.5 gm_map gm_bpref utility unj.5 relative_P.3",
]


def _write(tmp_path: Path, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed * 7321)
    batch = make_batch(seed, cases=rng.randint(1, 6), strict=True)
    run, qrels = tmp_path / f"{seed}.run", tmp_path / f"{seed}.qrels"
    run.write_bytes(render_run(batch, rng, strict=True))
    qrels.write_bytes(render_qrels(batch, rng))
    return run, qrels


def _paths_taken(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts of the batches each path formed (``kernels.from_lists``, ``_from_columns``, ``from_dicts``)."""
    taken = {"from_lists": 0, "_from_columns": 0, "from_dicts": 0}
    for name in taken:
        original = getattr(kernels, name)

        def counting(*args, _name=name, _original=original):  # type: ignore[no-untyped-def]
            taken[_name] += 1
            return _original(*args)

        monkeypatch.setattr(kernels, name, counting)
    return taken


def _scores(run, qrels, measures):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", ToolkitWarning
        )  # run topics without qrels are ignored, with a warning
        return evaluate(run, qrels, measures=measures)


def _same(a, b, where: str) -> None:  # type: ignore[no-untyped-def]
    assert a.query_ids == b.query_ids, where
    for q in a.query_ids:
        for m in a.measures:
            x, y = a.per_query[q][m], b.per_query[q][m]
            assert x == y or (x != x and y != y), f"{where}: {m} {q}: {x!r} != {y!r}"
    for m in a.measures:
        x, y = a.aggregate[m], b.aggregate[m]
        assert x == y or (x != x and y != y), f"{where}: {m} all: {x!r} != {y!r}"


#: Random cases per block: a fifth (at least ten) in the README's command, all in the stress tier.
COLUMN_CASES, DICT_CASES, BATCH_CASES, ORACLE_CASES = examples(25), examples(20), examples(30), examples(40)


@pytest.mark.sized
@pytest.mark.parametrize("block", range(4))
def test_list_path_equals_column_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    taken = _paths_taken(monkeypatch)
    for seed in range(block * 25, block * 25 + COLUMN_CASES):
        run, qrels = _write(tmp_path, 50_000 + seed)
        measures = EVERY_ROW if seed % 2 == 0 else VARIANTS[seed % 3]
        by_columns = _scores(read_run(run), read_qrels(qrels), measures)
        lists_before = taken["from_lists"]
        by_lists = _scores(read_run_lines(run), read_qrels_lines(qrels), measures)
        assert taken["from_lists"] > lists_before, f"seed {seed}: the list path did not answer"
        _same(by_columns, by_lists, f"seed {seed}")
    assert taken["_from_columns"] >= COLUMN_CASES * 4 // 5, "the column path should answer nearly every case"


@pytest.mark.sized
@pytest.mark.parametrize("block", range(2))
def test_list_path_equals_numpy_dict_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Dict inputs above ``SMALL_RESULTS`` take the numpy batch: the same inputs scored both ways agree."""
    taken = _paths_taken(monkeypatch)
    for seed in range(block * 20, block * 20 + DICT_CASES):
        run_path, qrels_path = _write(tmp_path, 60_000 + seed)
        run, qrels = read_run_lines(run_path), read_qrels_lines(qrels_path)
        measures = EVERY_ROW if seed % 2 else VARIANTS[seed % 3]
        by_lists = _scores(run, qrels, measures)
        monkeypatch.setattr(kernels, "SMALL_RESULTS", 0)
        dicts_before = taken["from_dicts"]
        by_numpy = _scores(run, qrels, measures)
        monkeypatch.setattr(kernels, "SMALL_RESULTS", 20_000)
        assert taken["from_dicts"] > dicts_before, f"seed {seed}: the numpy dict path did not answer"
        _same(by_numpy, by_lists, f"seed {seed}")


@pytest.mark.sized
def test_list_batch_forms_the_same_res_rels_as_the_numpy_batch(tmp_path: Path) -> None:
    """Topic by topic, ``ListBatch`` and ``Batch`` hand the reference ports the same ``ResRels`` (also -J)."""
    for seed in range(BATCH_CASES):
        run_path, qrels_path = _write(tmp_path, 70_000 + seed)
        run, qrels = read_run_lines(run_path), read_qrels_lines(qrels_path)
        judgments = {q: dict(d) for q, d in qrels.judgments.items()}
        topics = sorted({*run.results, *judgments})
        lists = kernels.from_lists(run, judgments, topics)
        arrays = kernels.from_dicts(run, judgments, topics)
        assert lists.topics == arrays.topics == len(topics)
        for level in (-1, 0, 1, 2, 3):
            for t in range(len(topics)):
                assert lists.res_rels(t, level) == arrays.res_rels(t, level), (seed, topics[t], level)
                assert lists.judged().res_rels(t, level, judged_only=True) == arrays.judged().res_rels(
                    t, level, judged_only=True
                ), (seed, topics[t], level)


#: trec_eval -m argument → (the name it prints, ``score``'s measure); relevance level 1, -c.
ORACLE = {
    "map": ("map", "AP"),
    "P.5": ("P_5", "P@5"),
    "recip_rank": ("recip_rank", "RR"),
    "ndcg_cut.10": ("ndcg_cut_10", "nDCG@10"),
    "Rprec": ("Rprec", "Rprec"),
    "bpref": ("bpref", "Bpref"),
    "recall.5": ("recall_5", "R@5"),
    "gm_map": ("gm_map", "gm_map"),
    "iprec_at_recall.0.5": ("iprec_at_recall_0.50", "IPrec@0.5"),
    "num_rel_ret": ("num_rel_ret", "NumRet(rel=1)"),
}


@pytest.mark.sized
def test_list_path_equals_trec_eval(trec_eval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    taken = _paths_taken(monkeypatch)
    args = [a for arg in ORACLE for a in ("-m", arg)]
    checked = 0
    for seed in range(ORACLE_CASES):
        run_path, qrels_path = _write(tmp_path, 80_000 + seed)
        scores = _scores(
            read_run_lines(run_path), read_qrels_lines(qrels_path), [m for _, m in ORACLE.values()]
        )
        done = trec_eval("-q", "-c", *args, qrels_path, run_path)
        assert done.returncode == 0, done.stderr
        want = {}
        for line in done.stdout.decode("latin-1").splitlines():
            name, qid, value = (part.strip() for part in line.split("\t"))
            want[(name, qid)] = value
        for printed, measure in ORACLE.values():
            for qid in [*scores.query_ids, "all"]:
                expected = want.get((printed, qid))
                if expected is None:
                    assert printed == "gm_map" and qid != "all", (printed, qid)  # trec_eval -q omits it
                    continue
                ours = scores.aggregate[measure] if qid == "all" else scores.per_query[qid][measure]
                shown = str(int(ours)) if "." not in expected else f"{ours:.4f}"
                assert shown == expected, f"seed {seed}: {measure} {qid}: trec_eval {expected}, ours {ours!r}"
                checked += 1
    assert taken["from_lists"] >= ORACLE_CASES and taken["_from_columns"] == 0 and taken["from_dicts"] == 0
    assert checked > 50 * ORACLE_CASES
