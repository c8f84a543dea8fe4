"""The layout of doc ids unique per topic, scores already in order, tabs, comment lines — read column-wise.

The column reader now hashes (topic, doc) and rules out duplicates block by block in the parsing threads,
checks only the topics that cross a block's edge afterwards, keeps the doc ids in the chunks Arrow parsed
them into and takes from those chunks itself. Small blocks (a few hundred bytes) put many edges inside topics.
On random runs of this layout — with a duplicate planted now and then, inside a block or across an edge —
both commands must give what the slow paths and trec_eval 10 give:

* the drop-in's column-wise path (``fast_trec_eval``) equals the trec_eval binary and the reference loop
  whenever it answers, and does not answer when the run lists a doc twice (trec_eval stops there);
* ``read_ranked`` (``score``'s reader) gives each topic's ranking in trec_eval's order — the line reader's —
  or, for a duplicate, nothing (the line reader then names the line).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers.sizes import examples

from toolkit.formats import tables
from toolkit.formats.as_trec_eval import read_qrels_as_trec_eval, read_run_as_trec_eval
from toolkit.formats.ranked import RankedResults, read_ranked
from toolkit.formats.run import read_run_lines
from toolkit.reports.trec_eval import render_trec_eval
from toolkit.treceval import evaluate, parse_options
from toolkit.treceval.fast import fast_trec_eval

CASES = examples(60)  # a fifth in the README's command, 60 in the stress tier (helpers/sizes.py)
MEASURES = ["-m", "map", "-m", "P.5", "-m", "recip_rank", "-m", "ndcg_cut.10", "-m", "bpref"]


def unique_layout(rng: random.Random) -> tuple[bytes, bytes, bool]:
    """A run of unique doc ids per topic (a duplicate planted sometimes), its qrels, and whether planted."""
    lines: list[bytes] = [b"# unique-doc run"] if rng.random() < 0.7 else []
    qrels: list[bytes] = []
    topics = rng.randint(1, 12)
    planted = rng.random() < 0.3
    plant_in = rng.randrange(topics)
    for t in range(topics):
        qid = rng.choice([f"{t + 1}", f"q{t}", f"T-{t:03d}"]).encode()
        n = rng.randint(1, 40)
        names = [f"MARCO_{rng.randrange(10**9)}_{t}_{k}".encode() for k in range(n)]
        score = rng.uniform(5, 50)
        rows = []
        for rank, name in enumerate(names, start=1):
            score -= rng.choice([0.0, 0.0001, 0.01, 0.5]) if rng.random() < 0.9 else -0.3  # mostly falling
            rows.append([qid, b"Q0", name, str(rank).encode(), f"{score:.4f}".encode(), b"unique-run"])
        if planted and t == plant_in:
            twin = list(rng.choice(rows))
            twin[4] = f"{rng.uniform(0, 60):.4f}".encode()
            rows.insert(rng.randint(0, len(rows)), twin)  # near it or far from it: maybe another block
        for row in rows:
            sep = b"\t" if rng.random() < 1 / 7 else b" "
            lines.append(sep.join(row))
            if rng.random() < 0.02:
                lines.append(b"# a comment inside the run")
        judged = rng.sample(names, min(len(names), rng.randint(1, 8)))
        judged += [f"UNRET_{t}_{k}".encode() for k in range(rng.randint(0, 3))]
        qrels += [b"%s 0 %s %d" % (qid, d, rng.choice([0, 0, 1, 2, 3])) for d in judged]
    return b"\n".join(lines) + b"\n", b"\n".join(qrels) + b"\n", planted


@pytest.mark.sized
@pytest.mark.parametrize("block", [8 << 20, 256, 1000])
def test_the_unique_layout_reads_as_trec_eval_reads_it(  # type: ignore[no-untyped-def]
    trec_eval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(tables, "BLOCK_BYTES", block)
    answered = refused = 0
    for seed in range(CASES):
        rng = random.Random(seed * 7919 + block)
        run_bytes, qrels_bytes, planted = unique_layout(rng)
        run, qrels = tmp_path / f"{seed}.run", tmp_path / f"{seed}.qrels"
        run.write_bytes(run_bytes)
        qrels.write_bytes(qrels_bytes)
        options = ["-q", "-c", *MEASURES, str(qrels), str(run)]
        context = f"seed {seed}, block {block}"
        fast = fast_trec_eval(parse_options(options))
        expected = trec_eval(*options)
        if planted:
            assert fast is None, context  # trec_eval stops at the duplicate: the reference loop says where
            refused += 1
        else:
            assert fast is not None, context
            answered += 1
            assert expected.returncode == 0, context
            assert render_trec_eval(fast.lines) == expected.stdout, context
            reference = evaluate(
                parse_options(options), read_qrels_as_trec_eval(str(qrels)), read_run_as_trec_eval(str(run))
            )
            assert fast.lines == reference.lines, context
        columns = read_ranked(run)
        if planted:
            assert columns is None, context
            continue
        assert columns is not None, context
        ranked = RankedResults(columns[0])
        lines = read_run_lines(run).results
        assert list(ranked) == list(lines), context
        for query_id, docs in lines.items():
            in_order = [d for d, _ in sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]
            assert ranked.ranking(query_id) == in_order, context
            assert dict(ranked[query_id].items()) == docs, context
    assert answered >= CASES // 2 and refused >= CASES // 10, (answered, refused)
