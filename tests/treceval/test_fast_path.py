"""The drop-in's column-wise path (``toolkit.treceval.fast``) against the trec_eval 10 binary and the reference loop.

The random adversarial cases of ``tests/trec_adversarial.py`` (ties, equal scores, rising scores, grades -2 to
12, negative grades, docs and topics on one side only, every file layout) are evaluated with measures that all
have vectorised kernels, under random ``-c``, ``-l``, ``-M`` and cutoffs. Whenever the fast path answers, its
bytes must equal the binary's and the reference loop's; the test also checks that it does answer for most
batches, so that it cannot pass by always falling back.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers.sizes import examples
from trec_adversarial import lengthen_doc_ids, make_batch, render_qrels, render_run

from toolkit.formats.as_trec_eval import read_qrels_as_trec_eval, read_run_as_trec_eval
from toolkit.reports.trec_eval import render_trec_eval
from toolkit.treceval import evaluate, parse_options
from toolkit.treceval.fast import fast_trec_eval

BATCHES = examples(160)  # a fifth in the README's command, all in the stress tier (helpers/sizes.py)

KERNEL_MEASURES = [
    ["-m", "official"],
    ["-m", "map", "-m", "P.5", "-m", "recip_rank", "-m", "ndcg_cut.10"],
    ["-m", "P.1,3,200"],
    ["-m", "recall.2,5"],
    ["-m", "ndcg_cut.1,4,70"],
    ["-m", "ndcg"],
    ["-m", "map_cut.2,100"],
    ["-m", "success.1,2"],
    ["-m", "relative_P.3"],
    ["-m", "set_P", "-m", "set_recall", "-m", "num_nonrel_judged_ret"],
    ["-m", "11pt_avg.0.1,0.5"],
    ["-m", "iprec_at_recall.0,0.15,0.5,1"],
    ["-m", "bpref", "-m", "Rprec", "-m", "gm_map"],
]


def options_for(rng: random.Random, files: list[str]) -> list[str]:
    options = ["-q"] + (["-c"] if rng.random() < 0.5 else [])
    options += rng.choice([[], [], ["-l2"], ["-l0"], ["-l3"]])
    options += rng.choice([[], [], ["-M1"], ["-M3"], ["-M15"]])
    for measures in rng.sample(KERNEL_MEASURES, rng.randint(1, 3)):
        options += measures
    return options + files


@pytest.mark.sized
def test_fast_path_equals_trec_eval_and_the_reference_loop(trec_eval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answered = 0
    for seed in range(BATCHES):
        rng = random.Random(seed * 104729)
        batch = make_batch(seed, cases=rng.randint(1, 4), strict=True)
        run, qrels = tmp_path / f"{seed}.run", tmp_path / f"{seed}.qrels"
        run_text, text = render_run(batch, rng, strict=True), render_qrels(batch, rng)
        if rng.random() < 0.8:  # trec_eval's qrels comment rule is the reference loop's (tested below)
            text = b"".join(line for line in text.splitlines(True) if not line.startswith(b"#"))
        if seed % 2:
            run_text, text = lengthen_doc_ids(run_text, seed), lengthen_doc_ids(text, seed)
        run.write_bytes(run_text)
        qrels.write_bytes(text)
        options = options_for(rng, [str(qrels), str(run)])
        fast = fast_trec_eval(parse_options(options))
        if fast is None:
            continue
        answered += 1
        expected = trec_eval(*options)
        context = f"seed {seed}: trec_eval {' '.join(options)}"
        assert expected.returncode == 0, context
        assert render_trec_eval(fast.lines) == expected.stdout, context
        parsed = parse_options(options)
        reference = evaluate(parsed, read_qrels_as_trec_eval(str(qrels)), read_run_as_trec_eval(str(run)))
        assert fast.lines == reference.lines, context
    assert answered >= BATCHES // 3, f"the fast path answered only {answered} of {BATCHES} batches"


def test_fast_path_leaves_what_it_cannot_vouch_for_to_the_reference_loop(tmp_path: Path) -> None:
    qrels, run = tmp_path / "x.qrels", tmp_path / "x.run"
    qrels.write_text("q1 0 a 1\nq2 0 b -1\n")
    run.write_text("q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n")
    assert fast_trec_eval(parse_options(["-m", "map", str(qrels), str(run)])) is None  # q2: no grade >= 0
    qrels.write_text("q1 0 a 1\n# a comment\nq2 0 b 1\n")  # trec_eval's own comment rule
    assert fast_trec_eval(parse_options(["-m", "map", str(qrels), str(run)])) is None
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    assert fast_trec_eval(parse_options(["-m", "relstring", str(qrels), str(run)])) is None  # no kernel
    assert fast_trec_eval(parse_options(["-J", "-m", "map", str(qrels), str(run)])) is None
    run.write_text("q1 Q0 a 1 nan t\nq2 Q0 b 1 1 t\n")  # NaN orders glibc's way
    assert fast_trec_eval(parse_options(["-m", "map", str(qrels), str(run)])) is None
    run.write_text("q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n")
    assert fast_trec_eval(parse_options(["-m", "map", str(qrels), str(run)])) is not None


def test_standard_input_is_read_once_whichever_path_answers(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from toolkit.cli import main

    qrels = tmp_path / "x.qrels"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    for run in (b"q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n", b"q1 Q0 a 1 nan t\nq2 Q0 b 1 1 t\n"):  # fast, then not
        got = CliRunner().invoke(main, ["trec_eval", "-m", "map", str(qrels), "-"], input=run)
        assert (got.exit_code, got.stdout) == (0, "map                   \tall\t1.0000\n")
