"""One route per measure, whatever the input's shape; each provider held to an independent value.

* ``toolkit.score`` on a DataFrame, a dict of dicts, ir_measures records or a ranx object, and ``trec-toolkit
  score FILE --format json`` (the installed console script) name the same provider for every measure and give
  the same values — for one spelling of every row of the measure table, and for the measures other providers
  serve.
* The providers trusted for what the table lacks (``toolkit.scoring.provider.TRUSTED``) against computations
  written here from the measures' definitions.
* A measure no installed provider computes correctly is refused in one line naming what to do.
* ``register()`` makes the kernels an ir_measures provider: ``ir_measures.calc_aggregate`` then gives trec_eval
  10's values (held to trec_eval built from source), ``gm_map`` included.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

import toolkit
from toolkit.errors import UsageError
from toolkit.formats import read_qrels, read_run
from toolkit.scoring import evaluate, parse_measures, provider_of
from toolkit.scoring.provider import NAME, TRUSTED, register
from toolkit.scoring.table import scoreable
from toolkit.treceval.measures import BEYOND, TABLE

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
VENV_BIN = Path(__file__).resolve().parents[2] / ".venv" / "bin"

#: One spelling of every row score computes, plus the measures the other trusted providers serve.
SPELLINGS = [row.name for row in TABLE if scoreable(row) is None] + ["RR@3", "ERR@10", "ERR"]
OTHERS = {"Judged@10": "judged", "nDCG(gains={2:5})@5": "pytrec_eval"}  # ir_measures drops gains k:k


def small_qrels(path: Path) -> Path:
    """qrels.test's grades capped at 4 (ERR's scale ends there), so that every measure can run on it."""
    out = path / "capped.qrels"
    lines = (DATA / "qrels.test").read_text().splitlines()
    out.write_text(
        "".join(f"{q} {i} {d} {min(int(g), 4)}\n" for q, i, d, g in (line.split() for line in lines))
    )
    return out


def test_every_input_shape_takes_the_same_route(tmp_path: Path) -> None:
    import ir_measures
    import pandas as pd
    import ranx

    qrels_path = small_qrels(tmp_path)
    run_path = DATA / "results.test"
    measures = " ".join(SPELLINGS + list(OTHERS))
    done = subprocess.run(
        [str(VENV_BIN / "trec-toolkit"), "score", str(run_path), "--qrels", str(qrels_path)]
        + ["--measures", measures, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)
    assert all(p == NAME for m, p in cli["providers"].items() if m not in OTHERS)
    assert {m: cli["providers"][m] for m in OTHERS} == OTHERS
    want = {(q, m): v for q, row in cli["runs"][0]["per_query"].items() for m, v in row.items()}
    want |= {("all", m): v for m, v in cli["runs"][0]["aggregate"].items()}

    rows = [line.split() for line in run_path.read_text().splitlines()]
    run_frame = pd.DataFrame(
        {
            "query_id": [r[0] for r in rows],
            "doc_id": [r[2] for r in rows],
            "score": [float(r[4]) for r in rows],
        }
    )
    grades = [line.split() for line in qrels_path.read_text().splitlines()]
    qrels_frame = pd.DataFrame(
        {
            "query_id": [g[0] for g in grades],
            "doc_id": [g[2] for g in grades],
            "relevance": [int(g[3]) for g in grades],
        }
    )
    run_dict: dict[str, dict[str, float]] = {}
    for q, _, d, _, s, _ in rows:
        run_dict.setdefault(q, {})[d] = float(s)
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, _, d, g in grades:
        qrels_dict.setdefault(q, {})[d] = int(g)
    shapes = {
        "DataFrame": (run_frame, qrels_frame),
        "dict": (run_dict, qrels_dict),
        "ranx": (ranx.Run(run_dict, name="results.test"), ranx.Qrels(qrels_dict)),
        "ir_measures": (
            list(ir_measures.read_trec_run(str(run_path))),
            list(ir_measures.read_trec_qrels(str(qrels_path))),
        ),
    }
    for shape, (run, qrels) in shapes.items():
        frame = toolkit.score(run, qrels, measures=measures)
        assert frame.attrs["providers"] == cli["providers"], shape
        got = {(q, m): v for q, m, v in zip(frame["query_id"], frame["measure"], frame["value"], strict=True)}
        assert got.keys() == want.keys(), shape
        for key, value in want.items():
            assert got[key] == value or (math.isnan(value) and math.isnan(got[key])), (shape, key)


def ndcg_by_hand(ranked: list[str], grades: dict[str, int], gain, k: int) -> float:  # type: ignore[no-untyped-def]
    dcg = sum(gain(grades.get(d, 0)) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((gain(g) for g in grades.values()), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best > 0 else 0.0


def test_trusted_providers_against_the_definitions(tmp_path: Path) -> None:
    qrels = read_qrels(small_qrels(tmp_path))
    run = read_run(DATA / "results.test")
    measures = list(OTHERS)
    scores = evaluate(run, qrels, measures=measures)
    assert {m: provider_of(parse_measures(m)[0]) for m in measures} == OTHERS
    gains = {0: 0, 1: 1, 2: 5}
    checked = 0
    for q in scores.query_ids:
        ranked = list(run.ranking(q))
        judged = dict(qrels.judgments[q])
        top = ranked[:10]
        assert scores.per_query[q]["Judged@10"] == pytest.approx(sum(d in judged for d in top) / len(top))
        assert scores.per_query[q]["nDCG(gains={2:5})@5"] == pytest.approx(
            ndcg_by_hand(ranked, judged, lambda g: gains.get(g, g), 5), abs=1e-6
        )
        checked += 1
    assert checked == 3 and set(TRUSTED) >= set(OTHERS.values())


def test_a_measure_only_gdeval_has_is_refused_in_one_line() -> None:
    with pytest.raises(UsageError) as raised:
        parse_measures("nDCG(dcg='exp-log2')@10")
    message = str(raised.value)
    assert "\n" not in message
    assert "gdeval has it but is not used" in message and "merges topics like q-1 and r-1" in message


@pytest.mark.parametrize(
    ("spelling", "message"),
    [
        (
            "P@0",
            "P@0: a cutoff counts docs from the top of the ranking and must be a whole number ≥ 1 (e.g. P@10)",
        ),
        ("R", "R: name one cutoff, e.g. R@10"),
        (
            "Compat(p=0.8)",
            "measure 'Compat(p=0.8)': no installed provider computes it correctly (compat has it",
        ),
        (
            "relstring",
            "relstring is text per topic, not a number; use `trec-toolkit trec_eval -q -m relstring",
        ),
    ],
)
def test_refusals_are_one_line(spelling: str, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_measures(spelling)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_ir_measures_calc_aggregate_uses_the_kernels(trec_eval, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import ir_measures

    monkeypatch.setattr(ir_measures.DefaultPipeline, "providers", list(ir_measures.DefaultPipeline.providers))
    monkeypatch.setitem(ir_measures.providers.registry, NAME, ir_measures.providers.registry.get(NAME))
    provider = register()
    assert ir_measures.DefaultPipeline.providers[0] is provider and register() is provider
    measures = parse_measures("gm_map map 11pt_avg P.5 ndcg_cut.10 ERR@10")
    qrels = list(ir_measures.read_trec_qrels(str(DATA / "qrels.test")))
    run = list(ir_measures.read_trec_run(str(DATA / "results.test")))
    got = ir_measures.calc_aggregate(list(measures), qrels, run)
    done = trec_eval(
        "-c",
        "-m",
        "gm_map",
        "-m",
        "map",
        "-m",
        "11pt_avg",
        "-m",
        "P.5",
        "-m",
        "ndcg_cut.10",
        DATA / "qrels.test",
        DATA / "results.test",
    )
    want = {line.split()[0]: line.split()[2] for line in done.stdout.decode().splitlines()}
    names = {"gm_map": "gm_map", "AP": "map", "11pt_avg": "11pt_avg", "P@5": "P_5", "nDCG@10": "ndcg_cut_10"}
    for measure in measures[:-1]:
        assert f"{got[measure]:.4f}" == want[names[str(measure)]], measure
    ours = evaluate(read_run(DATA / "results.test"), read_qrels(DATA / "qrels.test"), measures=measures)
    assert {str(m): v for m, v in got.items()} == dict(ours.aggregate)


def test_beyond_rows_have_no_trec_eval_name() -> None:
    assert all(not row.in_trec_eval for row in BEYOND) and all(row.in_trec_eval for row in TABLE)
