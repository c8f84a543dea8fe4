"""Every input kind the public API takes, in ``score`` and ``compare``; names for in-memory runs; the TypeErrors.

The oracle is ir_measures run directly on the TREC files (no ties, so every tool ranks alike): whatever form
the same run and qrels come in, ``toolkit.score`` must give those values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ir_measures
import pandas as pd
import pytest
from helpers.lazy import ranx  # loaded on first use, by the ranx group's worker (tests/conftest.py)

import toolkit
from toolkit.errors import FormatError, UsageError
from toolkit.model import Run

RUN = "1 Q0 d3 1 3.0 sys\n1 Q0 d1 2 2.0 sys\n1 Q0 d2 3 1.0 sys\n2 Q0 d4 1 5.0 sys\n2 Q0 d5 2 4.0 sys\n"
OTHER = "1 Q0 d1 1 3.0 alt\n1 Q0 d3 2 2.0 alt\n2 Q0 d6 1 5.0 alt\n2 Q0 d4 2 4.0 alt\n"
QRELS = "1 0 d1 1\n1 0 d2 2\n2 0 d4 1\n2 0 d9 0\n"
MEASURES = [ir_measures.RR @ 10, ir_measures.P @ 1, ir_measures.nDCG @ 10]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("inputs")
    out = {"run": root / "sys.run", "other": root / "alt.run", "qrels": root / "q.qrels"}
    for key, text in (("run", RUN), ("other", OTHER), ("qrels", QRELS)):
        out[key].write_text(text)
    return out


def oracle(run: Path, qrels: Path) -> dict[tuple[str, str], float]:
    """ir_measures' values per (query_id, measure), plus ("all", measure) for the means."""
    qrels_records = list(ir_measures.read_trec_qrels(str(qrels)))
    run_records = list(ir_measures.read_trec_run(str(run)))
    values = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc(MEASURES, qrels_records, run_records)
    }
    for m, v in ir_measures.calc_aggregate(MEASURES, qrels_records, run_records).items():
        values[("all", str(m))] = v
    return values


def as_dict(frame: pd.DataFrame, run: str) -> dict[tuple[str, str], float]:
    rows = frame[frame.run == run]
    return {(q, m): v for q, m, v in zip(rows.query_id, rows.measure, rows.value, strict=True)}


def run_kinds(path: Path) -> dict[str, Any]:
    run = toolkit.read_run(path)
    rows = [(q, d, s) for q, docs in run.results.items() for d, s in docs.items()]
    pytrec = {q: dict(docs) for q, docs in run.results.items()}
    return {
        "str path": str(path),
        "Path": path,
        "Run": run,
        "PyTerrier frame": pd.DataFrame(
            [(q, d, s, i) for i, (q, d, s) in enumerate(rows)], columns=["qid", "docno", "score", "rank"]
        ),
        "ir_measures frame": pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]),
        "pytrec_eval dict": pytrec,
        "ranx.Run": ranx.Run(pytrec),
        "ScoredDoc list": [ir_measures.ScoredDoc(q, d, s) for q, d, s in rows],
        "ScoredDoc generator": (ir_measures.ScoredDoc(q, d, s) for q, d, s in rows),
    }


def qrels_kinds(path: Path) -> dict[str, Any]:
    qrels = toolkit.read_qrels(path)
    rows = [(q, d, r) for q, docs in qrels.judgments.items() for d, r in docs.items()]
    judgments = {q: dict(docs) for q, docs in qrels.judgments.items()}
    return {
        "str path": str(path),
        "Qrels": qrels,
        "PyTerrier frame": pd.DataFrame(rows, columns=["qid", "docno", "label"]),
        "pytrec_eval dict": judgments,
        "ranx.Qrels": ranx.Qrels(judgments),
        "Qrel list": [ir_measures.Qrel(q, d, r) for q, d, r in rows],
        "Qrel generator": (ir_measures.Qrel(q, d, r, "0") for q, d, r in rows),
    }


@pytest.mark.parametrize(
    "kind",
    ["str path", "Path", "Run", "PyTerrier frame", "ir_measures frame", "pytrec_eval dict", "ranx.Run",
     "ScoredDoc list", "ScoredDoc generator"],
)  # fmt: skip
def test_every_run_kind_scores_as_the_file(files: dict[str, Path], kind: str) -> None:
    frame = toolkit.score(run_kinds(files["run"])[kind], files["qrels"], measures=MEASURES)
    (name,) = set(frame.run)
    assert as_dict(frame, name) == pytest.approx(oracle(files["run"], files["qrels"]))


@pytest.mark.parametrize(
    "kind",
    ["str path", "Qrels", "PyTerrier frame", "pytrec_eval dict", "ranx.Qrels", "Qrel list", "Qrel generator"],
)
def test_every_qrels_kind_scores_as_the_file(files: dict[str, Path], kind: str) -> None:
    frame = toolkit.score(files["run"], qrels_kinds(files["qrels"])[kind], measures=MEASURES)
    assert as_dict(frame, "sys") == pytest.approx(oracle(files["run"], files["qrels"]))


def test_ir_datasets_qrels_and_topics(irds_dataset: tuple[str, Path]) -> None:
    import ir_datasets

    name, root = irds_dataset
    dataset = ir_datasets.load(name)
    run = {"301": {"d2": 3.0, "d1": 2.0}, "302": {"d5": 1.0}}
    expected = toolkit.score(run, root / "qrels.txt", topics=root / "topics.txt", measures="RR@10 P@1")
    for qrels, topics in (
        (f"ir_datasets:{name}", f"ir_datasets:{name}"),
        (dataset.qrels_iter(), dataset.queries_iter()),
        (dataset, dataset),
    ):
        got = toolkit.score(run, qrels, topics=topics, measures="RR@10 P@1")
        pd.testing.assert_frame_equal(got, expected)
    # by hand: 301 ranks d2 (grade 0) then d1 (1) → RR 1/2; 302 d5 first → 1
    assert as_dict(expected, "run")[("all", "RR@10")] == pytest.approx(0.75)


def test_topics_as_a_frame_or_a_dict(files: dict[str, Path]) -> None:
    with pytest.warns(UserWarning, match="1 of 3 topics have no qrels"):
        by_frame = toolkit.score(
            files["run"], files["qrels"], topics=pd.DataFrame({"qid": ["1", "2", "3"], "query": ["a", "b", "c"]}),
            measures="P@1",
        )  # fmt: skip
    with pytest.warns(UserWarning, match="1 of 3 topics have no qrels"):
        by_dict = toolkit.score(
            files["run"], files["qrels"], topics={"1": "a", "2": "b", "3": "c"}, measures="P@1"
        )
    pd.testing.assert_frame_equal(by_frame, by_dict)
    # topic 3 has neither results nor qrels: it scores 0 and counts (n = 3)
    assert as_dict(by_frame, "sys")[("3", "P@1")] == 0.0
    assert as_dict(by_frame, "sys")[("all", "P@1")] == pytest.approx(
        oracle(files["run"], files["qrels"])[("all", "P@1")] * 2 / 3
    )


# --------------------------------------------------------------------------- names


def test_several_frames_get_positional_names(files: dict[str, Path]) -> None:
    a = run_kinds(files["run"])["PyTerrier frame"]
    b = run_kinds(files["other"])["PyTerrier frame"]
    frame = toolkit.score([a, b], files["qrels"], measures=MEASURES)
    assert list(dict.fromkeys(frame.run)) == ["run1", "run2"]
    assert as_dict(frame, "run2") == pytest.approx(oracle(files["other"], files["qrels"]))
    result = toolkit.compare([a, b], files["qrels"], measures="RR@10")
    assert result.runs == ("run1", "run2")


@pytest.mark.parametrize(
    ("runs", "names", "expected"),
    [
        ("files", None, ["sys", "alt"]),
        ("frames", ["bm25", "dense"], ["bm25", "dense"]),
        ("dict", None, ["bm25", "dense"]),
        ("dict of pytrec dicts", None, ["bm25", "dense"]),
        ("ranx named", None, ["first", "second"]),
        ("ranx unnamed", None, ["run1", "run2"]),
        ("mixed", None, ["sys", "run2"]),
        ("one frame", "bm25", ["bm25"]),
    ],
)
def test_names(files: dict[str, Path], runs: str, names: Any, expected: list[str]) -> None:
    sys_kinds, alt_kinds = run_kinds(files["run"]), run_kinds(files["other"])
    given = {
        "files": [files["run"], files["other"]],
        "frames": [sys_kinds["PyTerrier frame"], alt_kinds["PyTerrier frame"]],
        "dict": {"bm25": sys_kinds["PyTerrier frame"], "dense": str(files["other"])},
        "dict of pytrec dicts": {
            "bm25": sys_kinds["pytrec_eval dict"],
            "dense": alt_kinds["pytrec_eval dict"],
        },
        "ranx named": [
            ranx.Run(sys_kinds["pytrec_eval dict"], name="first"),
            ranx.Run(alt_kinds["pytrec_eval dict"], name="second"),
        ],
        "ranx unnamed": [sys_kinds["ranx.Run"], alt_kinds["ranx.Run"]],
        "mixed": [files["run"], alt_kinds["ir_measures frame"]],
        "one frame": sys_kinds["PyTerrier frame"],
    }[runs]
    frame = toolkit.score(given, files["qrels"], measures="RR@10", names=names)
    assert list(dict.fromkeys(frame.run)) == expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda f, q: toolkit.score([Run({"1": {"d1": 1.0}}), Run({"2": {"d4": 1.0}})], q),
         "two runs are named 'run'; name them with names=[…] or pass a dict {name: run}"),
        (lambda f, q: toolkit.score([f, f], q), "two runs are named 'sys'; name them with names=[…] or pass a dict"),
        (lambda f, q: toolkit.score([f, f], q, names=["a"]), "1 name(s) for 2 run(s); pass one name per run, in order"),
        (lambda f, q: toolkit.score({"a": f}, q, names=["a"]),
         "names= with a dict of runs: the dict's keys are the names; pass one or the other"),
        (lambda f, q: toolkit.score([], q), "no runs given; pass one run, a list of runs or a dict {name: run}"),
        (lambda f, q: toolkit.compare([f], q), "compare needs at least two runs"),
    ],
)  # fmt: skip
def test_naming_errors(files: dict[str, Path], call: Any, message: str) -> None:
    with pytest.raises(UsageError) as err:
        call(files["run"], files["qrels"])
    assert str(err.value).startswith(message)


# --------------------------------------------------------------------------- what is refused


RUNS_TYPEERROR = "; pass one run (a TREC run file path, a toolkit Run, a pandas DataFrame"


@pytest.mark.parametrize(
    ("runs", "qrels", "topics", "message"),
    [
        (42, None, None, "cannot use int as runs" + RUNS_TYPEERROR),
        (None, None, None, "cannot use NoneType as runs" + RUNS_TYPEERROR),
        (b"sys.run", None, None, "cannot use bytes as runs" + RUNS_TYPEERROR),
        ([42], None, None, "cannot use int as a run; pass a TREC run file path"),
        ({"a": 42}, None, None, "cannot use int as a run; pass a TREC run file path"),
        ({1: "x.run"}, None, None, "a dict of runs needs text names as keys, found 1"),
        ("RUN", 42, None, "cannot use int as qrels; pass a TREC qrels file path"),
        ("RUN", "RUN", None, "toolkit.Run holds a run, not qrels"),
        ("RUN", None, 3.5, "cannot use float as topics; pass a topic file path"),
        ("QRELS", None, None, "toolkit.Qrels holds qrels, not a run"),
        ("RANX_QRELS", None, None, "ranx.Qrels holds qrels, not a run"),
    ],
)
def test_anything_else_is_a_clear_typeerror(
    files: dict[str, Path], runs: Any, qrels: Any, topics: Any, message: str
) -> None:
    objects = {
        "RUN": toolkit.read_run(files["run"]),
        "QRELS": toolkit.read_qrels(files["qrels"]),
        "RANX_QRELS": ranx.Qrels({"1": {"d1": 1}}),
    }
    runs = objects.get(runs, runs) if isinstance(runs, str) else runs
    qrels = (
        files["qrels"] if qrels is None else objects.get(qrels, qrels) if isinstance(qrels, str) else qrels
    )
    with pytest.raises(TypeError) as err:
        toolkit.score(runs, qrels, topics=topics)
    assert str(err.value).startswith(message), str(err.value)
    pair = {"a": runs, "b": runs} if isinstance(runs, Run) else runs  # compare needs two runs
    with pytest.raises(TypeError) as err:
        toolkit.compare(pair, qrels, topics=topics)
    assert str(err.value).startswith(message), str(err.value)


def test_a_near_miss_frame_is_an_error_never_a_zero(files: dict[str, Path]) -> None:
    frame = pd.DataFrame({"qid": ["1"], "docid": [17], "score": [1.0]})  # PyTerrier's internal docid only
    with pytest.raises(FormatError, match="docno"):
        toolkit.score(frame, files["qrels"])
    ranks_only = pd.DataFrame({"qid": ["1"], "docno": ["d1"], "rank": [0]})
    with pytest.raises(FormatError, match=r"df.assign\(score=-df\['rank'\]\)"):
        toolkit.score(ranks_only, files["qrels"])


def test_measures_as_string_object_or_list(files: dict[str, Path]) -> None:
    as_text = toolkit.score(files["run"], files["qrels"], measures="RR@10 P@1")
    as_objects = toolkit.score(files["run"], files["qrels"], measures=[ir_measures.RR @ 10, "P@1"])
    pd.testing.assert_frame_equal(as_text, as_objects)
    one = toolkit.score(files["run"], files["qrels"], measures=ir_measures.RR @ 10)
    assert set(one.measure) == {"RR@10"}
    with pytest.raises(UsageError, match="expected a measure name or an ir_measures measure, got 42"):
        toolkit.score(files["run"], files["qrels"], measures=42)  # type: ignore[arg-type]
