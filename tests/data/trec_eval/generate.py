"""Regenerate ``corpus.jsonl.xz``: trec_eval 10's answers on a fixed, seeded corpus of adversarial cases.

    .venv/bin/python tests/data/trec_eval/generate.py           # build trec_eval, run every case, write the file
    .venv/bin/python tests/data/trec_eval/generate.py --check   # run them again and compare with the file

trec_eval 10 is built from its source archive as the tests build it (``tests/conftest.py``: ``$TREC_EVAL_SRC``,
else ``../shared/conformance/trec_eval/src``); neither the archive nor the binary is committed, only the
inputs and what trec_eval printed (``tests/trec_corpus.py`` describes the format). The cases cover every
option, file layout and measure family: random adversarial batches (``tests/trec_adversarial.py``) under random
options, the command lines of ``tests/treceval/test_drop_in_options.py``, every measure of the table with and
without parameters, where trec_eval stops or crashes (``tests/treceval/test_drop_in_differential.py``), file
layouts (comments, tabs, CRLF, ties, gzip, standard input, a byte-order mark, files named ``-``), and inputs
for ``score``. Everything random is seeded: the same cases every time.

Every case is run twice; one whose output differs between the runs (trec_eval reading uninitialised memory) is
left out and listed, so the committed answers are trec_eval's, not chance.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
sys.path[:0] = [str(TESTS), str(TESTS / "treceval"), str(TESTS / "scoring")]

from conftest import build_trec_eval, find_trec_eval_source  # noqa: E402
from test_drop_in_differential import CRASHES, STOPS  # noqa: E402
from test_drop_in_options import SAME_AS_TREC_EVAL  # noqa: E402
from test_score_vs_trec_eval import LEVEL_2, MEASURES  # noqa: E402
from trec_adversarial import make_batch, render_qrels, render_run  # noqa: E402
from trec_corpus import CORPUS, STDIN, Case, read_corpus, run_case, write_corpus  # noqa: E402

#: The measures of trec_eval 10's table (its ``-m`` names), in table order.
TABLE = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "dcg",
    "ideal_dcg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
    "map_avgjg",
    "P_avgjg",
    "Rprec_mult_avgjg",
    "yaap",
    "rbp",
    "rbp_resid",
    "unj",
]

#: Parameters tried per measure (trec_eval's syntax after the dot); bad ones too, which trec_eval refuses.
PARAMETERS = {
    "iprec_at_recall": ["0.05,0.5,1", "0.5,0.25", ".3"],
    "P": ["1,2,3", "7", "0", "2,2"],
    "relstring": ["4", "0"],
    "recall": ["1,4", "100"],
    "Rprec_mult": ["0.5,2", "0.2"],
    "utility": ["1,-1,0,0", "2,-2,1,1"],
    "11pt_avg": ["0.2,0.8", "0.5"],
    "G": ["0=0.5,1=1,2=4", "3=2"],
    "dcg": ["1=1,2=3"],
    "ideal_dcg": ["2=5"],
    "ndcg": ["1=1,2=3", "-1=2,0=1", "1=3,2"],
    "ndcg_rel": ["1=2,2=2"],
    "Rndcg": ["2=3"],
    "ndcg_cut": ["1,3", "2"],
    "map_cut": ["1,2,5"],
    "relative_P": ["2,4"],
    "success": ["1,2", "3"],
    "set_F": ["0.5", "2"],
    "P_avgjg": ["2"],
    "Rprec_mult_avgjg": ["0.5"],
    "rbp": ["p=0.5", "p=0.9,1=0.5,2=1", "2=3"],
    "rbp_resid": ["p=0.8", "p=0.3"],
    "unj": ["1,3"],
}

#: A graded qrels and a run for the measure cases: grades -1 to 3, ties, unjudged docs, a topic the run lacks.
MEASURE_QRELS = b"""\
1 0 a 3
1 0 b 2
1 0 c 1
1 0 d 0
1 0 e -1
1 0 f 1
2 0 a 0
2 0 g 2
2 0 h 1
3 0 z 1
4 0 q -1
4 0 r 1
"""
MEASURE_RUN = b"""\
1 Q0 b 1 9.5 mrun
1 Q0 x 2 9.5 mrun
1 Q0 a 3 8 mrun
1 Q0 e 4 7 mrun
1 Q0 d 5 6.5 mrun
1 Q0 y 6 6.5 mrun
1 Q0 c 7 1 mrun
2 Q0 h 1 3 mrun
2 Q0 a 2 2 mrun
2 Q0 u 3 1 mrun
4 Q0 q 1 2 mrun
4 Q0 r 2 1 mrun
5 Q0 a 1 1 mrun
"""


def _data(name: str) -> bytes:
    return (HERE / name).read_bytes()


def options_cases() -> list[Case]:
    """The command lines of test_drop_in_options, on trec_eval's own test files (and with the run truncated)."""
    files = {"qrels.test": _data("qrels.test"), "results.test": _data("results.test")}
    cases = [
        Case(
            f"options/{k:02d} {line or '(none)'}",
            "options",
            (*shlex.split(line), "qrels.test", "results.test"),
            files,
        )
        for k, line in enumerate(SAME_AS_TREC_EVAL)
    ]
    trunc = {"qrels.test": files["qrels.test"], "results.trunc": _data("results.trunc")}
    for k, line in enumerate(["-q", "-q -c", "-qc -mP.5", "-c -m all_trec -M100 -q", "-n -c"]):
        cases.append(
            Case(
                f"options/trunc {k} {line}",
                "options",
                (*shlex.split(line), "qrels.test", "results.trunc"),
                trunc,
            )
        )
    # options after the files, clustered, long names abbreviated, -- ending them
    for k, argv in enumerate(
        [
            ("qrels.test", "results.test", "-q", "-m", "map"),
            ("-qn", "--meas", "P.5", "qrels.test", "results.test"),
            ("--Judged", "--level_for_rel=2", "-mset", "qrels.test", "results.test"),
            ("--Max_retrieved_per_topic", "3", "--query", "-mrecip_rank", "qrels.test", "results.test"),
            ("-m", "num_q", "--", "qrels.test", "results.test"),
            ("--Number_docs_in_coll=1000", "-mutility", "qrels.test", "results.test"),
            ("--Debug_level", "0.301", "-q", "qrels.test", "results.test"),
            ("--Zscore",),
            ("-qZ",),
            ("-v",),
            ("--version", "qrels.test"),
            ("qrels.test",),
            ("qrels.test", "results.test", "extra"),
        ]
    ):
        cases.append(Case(f"options/argv {k} {' '.join(argv)}", "options", argv, files))
    return cases


def random_cases(count: int) -> list[Case]:
    """Random adversarial batches (1–3 cases of tests/trec_adversarial.py each) under random options."""
    cases = []
    for seed in range(count):
        rng = random.Random(90_000 + seed)
        batch = make_batch(90_000 + seed, cases=rng.randint(1, 3))
        options = list(batch.options)
        if rng.random() < 0.3:
            options.remove("-q")
        # another measure list than all_trec — not with rbp, whose gain bounds start uninitialised in trec_eval
        # and hold what the measure before it left (docs/trec_eval.md)
        if rng.random() < 0.25 and not any(o.startswith("rbp") for o in options):
            at = options.index("all_trec")
            options[at] = rng.choice(["official", "set", "map", "ndcg", "P.1,5"])
        if rng.random() < 0.1:
            options.append("-n")
        if rng.random() < 0.1:
            options += ["-N", str(rng.choice([0, 50, 1000]))]
        if rng.random() < 0.05:
            options.append("-o")
        run, qrels = render_run(batch, rng), render_qrels(batch, rng)
        gz = tuple(name for name in ("q", "r") if rng.random() < 0.15)
        if rng.random() < 0.15:
            cases.append(
                Case(f"random/{seed:03d}", "random", (*options, "q", "-"), {"q": qrels}, stdin=run, gzip=gz)
            )
        else:
            cases.append(
                Case(f"random/{seed:03d}", "random", (*options, "q", "r"), {"q": qrels, "r": run}, gzip=gz)
            )
    return cases


def measure_cases() -> list[Case]:
    """Every measure of trec_eval's table, with its default parameters and with each of PARAMETERS."""
    files = {"q": MEASURE_QRELS, "r": MEASURE_RUN}
    cases = []
    for name in TABLE:
        for params in [None, *PARAMETERS.get(name, [])]:
            measure = name if params is None else f"{name}.{params}"
            for options in (["-q"], ["-q", "-c", "-l2"], ["-c", "-M3", "-J"]):
                if name in ("relstring", "runid") and "-q" not in options:
                    continue
                args = (*options, "-m", measure, "q", "r")
                cases.append(Case(f"measures/{measure} {' '.join(options)}", "measures", args, files))
    for nickname in ("official", "all_trec", "set", "prefs", "all_prefs", "qrels_jg"):
        cases.append(Case(f"measures/{nickname}", "measures", ("-q", "-c", "-m", nickname, "q", "r"), files))
    return cases


def stop_cases() -> list[Case]:
    """Where trec_eval stops (the same partial output and exit code) and where it crashes (the drop-in refuses)."""
    cases = []
    for name, (qrels, run) in STOPS.items():
        for options in (["-q"], ["-q", "-c", "-M2", "-m", "all_trec"]):
            args = (*options, "q", "r")
            cases.append(
                Case(
                    f"stops/{name} {' '.join(options)}",
                    "stops",
                    args,
                    {"q": qrels.encode(), "r": run.encode()},
                )
            )
    for name, (qrels, run, code, _message) in CRASHES.items():
        files = {"q": qrels.encode(), "r": run.encode()}
        cases.append(Case(f"crashes/{name}", "crashes", ("-q", "-c", "q", "r"), files, drop_in_exit=code))
    return cases


TWO_QRELS = b"1 0 a 1\n2 0 b 1\n"
TWO_RUN = b"1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n"
BOM = b"\xef\xbb\xbf"


def layout_cases() -> list[Case]:
    """File layouts, file names and standard input, byte-order marks, odd bytes."""
    q, r = TWO_QRELS, TWO_RUN
    layouts: list[
        tuple[str, tuple[str, ...], dict[str, bytes], bytes | None, tuple[str, ...], int | None]
    ] = [
        (
            "tabs and runs of blanks",
            ("-q", "q", "r"),
            {"q": b"1\t0\ta\t1\n2 \t 0  b   1\n", "r": b"1\tQ0\ta\t1\t1\tr\n  2 Q0 b 1 1 r  \n"},
            None,
            (),
            None,
        ),
        (
            "CRLF line ends",
            ("-q", "q", "r"),
            {"q": q.replace(b"\n", b"\r\n"), "r": r.replace(b"\n", b"\r\n")},
            None,
            (),
            None,
        ),
        ("no final newline", ("-q", "q", "r"), {"q": q[:-1], "r": r[:-1]}, None, (), None),
        (
            "run comments and blank lines",
            ("-q", "q", "r"),
            {"q": q, "r": b"# c\n\n1 Q0 a 1 1 r\n  \n#x\n2 Q0 b 1 1 r\n"},
            None,
            (),
            None,
        ),
        ("qrels comment line", ("-q", "q", "r"), {"q": b"# judged by\n" + q, "r": r}, None, (), None),
        (
            "ties broken by doc id",
            ("-q", "-m", "all_trec", "q", "r"),
            {"q": b"1 0 a 1\n1 0 c 1\n", "r": b"1 Q0 a 1 1 r\n1 Q0 b 2 1 r\n1 Q0 c 3 1 r\n1 Q0 d 4 1 r\n"},
            None,
            (),
            None,
        ),
        (
            "text after column 6",
            ("-q", "q", "r"),
            {"q": q, "r": b"1 Q0 a 1 1 r extra words\n2 Q0 b 1 1 r\n"},
            None,
            (),
            None,
        ),
        (
            "negative and zero grades",
            ("-q", "-c", "-m", "all_trec", "q", "r"),
            {
                "q": b"1 0 a 0\n1 0 b -1\n1 0 c 2\n2 0 a -1\n2 0 d 1\n",
                "r": b"1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 a 1 1 r\n",
            },
            None,
            (),
            None,
        ),
        ("an empty topic under -c", ("-q", "-c", "q", "r"), {"q": q + b"3 0 x 1\n", "r": r}, None, (), None),
        ("run topics without qrels", ("-q", "q", "r"), {"q": q, "r": r + b"9 Q0 a 1 1 r\n"}, None, (), None),
        ("gzipped files", ("-q", "q", "r"), {"q": q, "r": r}, None, ("q", "r"), None),
        ("run on standard input", ("-q", "q", "-"), {"q": q}, r, (), None),
        ("gzipped standard input", ("-q", "q", "-"), {"q": q}, r, (STDIN,), None),
        ("run named -x after --, read from standard input", ("q", "--", "-x"), {"q": q}, r, (), None),
        ("run named -- after --, read from standard input", ("q", "--", "--"), {"q": q}, r, (), None),
        ("qrels named - is a file", ("-q", "-", "r"), {"-": q, "r": r}, b"garbage on stdin\n", (), None),
        ("qrels named - missing", ("-", "r"), {"r": r}, q, (), None),
        ("qrels and run both -", ("-q", "./-", "-"), {"-": q}, r, (), None),
        ("missing run file", ("q", "nope"), {"q": q}, None, (), None),
        ("empty run file", ("q", "r"), {"q": q, "r": b""}, None, (), None),
        ("empty qrels file", ("q", "r"), {"q": b"", "r": r}, None, (), None),
        ("empty standard input", ("q", "-"), {"q": q}, b"", (), 2),  # trec_eval reads before its buffer
        ("byte-order mark in the run", ("-q", "-c", "q", "r"), {"q": q, "r": BOM + r}, None, (), None),
        ("byte-order mark in the qrels", ("-q", "-c", "q", "r"), {"q": BOM + q, "r": r}, None, (), None),
        ("byte-order mark in both", ("-q", "-c", "q", "r"), {"q": BOM + q, "r": BOM + r}, None, (), None),
        ("byte-order mark on standard input", ("-q", "-c", "q", "-"), {"q": q}, BOM + r, (), None),
        ("byte-order mark in a gzipped run", ("-c", "q", "r"), {"q": q, "r": BOM + r}, None, ("r",), None),
        (
            "latin-1 and UTF-8 ids",
            ("-q", "q", "r"),
            {
                "q": "1 0 \u00e9 1\n\u00fc 0 b 1\n".encode("latin-1") + "2 0 \u65e5 1\n".encode(),
                "r": "1 Q0 \u00e9 1 1 r\n\u00fc Q0 b 1 1 r\n".encode("latin-1")
                + "2 Q0 \u65e5 1 1 r\n".encode(),
            },
            None,
            (),
            None,
        ),
        ("NUL byte in the run", ("q", "r"), {"q": q, "r": b"1 Q0 a 1 1 r\n2 Q0 b 1 \x00 r\n"}, None, (), 2),
        ("huge relevance level", ("-l", "2147483648", "-m", "map", "q", "r"), {"q": q, "r": r}, None, (), 2),
        (
            "very negative relevance level",
            ("-l", "-2147483649", "-m", "map", "q", "r"),
            {"q": q, "r": r},
            None,
            (),
            2,
        ),
        (
            "largest int relevance level",
            ("-l", "2147483647", "-m", "map", "-m", "P.1", "q", "r"),
            {"q": q, "r": r},
            None,
            (),
            None,
        ),
        (
            "relevance level beyond long",
            ("-l", "99999999999999999999", "-m", "map", "q", "r"),
            {"q": q, "r": r},
            None,
            (),
            2,
        ),
    ]
    # score reads a byte-order mark as trec_eval does (docs/formats.md): held to trec_eval -c's values
    official = {"AP": ["map", "map"], "P@5": ["P_5", "P_5"], "RR": ["recip_rank", "recip_rank"]}
    return [
        Case(
            f"layout/{name}",
            "layout",
            args,
            files,
            stdin=stdin,
            gzip=gz,
            drop_in_exit=exit_code,
            score=official if name.startswith("byte-order mark in") and stdin is None else None,
        )
        for name, args, files, stdin, gz, exit_code in layouts
    ]


def unsupported_cases() -> list[Case]:
    """Options the drop-in refuses on purpose (docs/trec_eval.md): its exit code, whatever trec_eval does."""
    q, r = TWO_QRELS, TWO_RUN
    zscores = b"1 map 0.5 0.25\n2 map 0.5 0\n1 P_5 0.1 0.1\n"
    prefs = b"1 u1 s1 a 2\n1 u1 s1 b 1\n2 u1 s1 b 1\n2 u1 s1 c 0\n"
    jg = b"1 j1 a 1\n1 j2 a 0\n2 j1 b 1\n"
    return [
        Case(
            "unsupported/-Z with a file",
            "unsupported",
            ("-Z", "z", "-m", "map", "q", "r"),
            {"z": zscores, "q": q, "r": r},
            drop_in_exit=2,
        ),
        Case(
            "unsupported/-Z with a missing file",
            "unsupported",
            ("-Z", "nope", "q", "r"),
            {"q": q, "r": r},
            drop_in_exit=2,
        ),
        Case("unsupported/-Z without its argument", "unsupported", ("q", "r", "-Z"), {"q": q, "r": r}),
        Case(
            "unsupported/-Z taking the qrels as its argument",
            "unsupported",
            ("-Z", "q", "r"),
            {"q": q, "r": r},
        ),
        Case(
            "unsupported/-R prefs",
            "unsupported",
            ("-R", "prefs", "-m", "prefs_simp", "p", "r"),
            {"p": prefs, "r": r},
            drop_in_exit=2,
        ),
        Case(
            "unsupported/-R qrels_prefs",
            "unsupported",
            ("-R", "qrels_prefs", "-m", "prefs", "q", "r"),
            {"q": q, "r": r},
            drop_in_exit=2,
        ),
        Case(
            "unsupported/-R qrels_jg",
            "unsupported",
            ("-R", "qrels_jg", "-m", "qrels_jg", "j", "r"),
            {"j": jg, "r": r},
            drop_in_exit=2,
        ),
        Case("unsupported/-T other", "unsupported", ("-T", "other", "q", "r"), {"q": q, "r": r}),
        Case("unsupported/-D 1", "unsupported", ("-D", "1", "q", "r"), {"q": q, "r": r}, drop_in_exit=2),
    ]


#: Inputs the drop-in once read right and then died at exit on, 1 run in 100 (tests/treceval/test_drop_in_exit.py).
EXIT_RACE = {
    "a comment line in the qrels": b"# c\n1 0 a 1\n",
    "a blank line in the qrels": b"1 0 a 1\n\n",
    "a judgment twice": b"1 0 a 1\n1 0 a 0\n",
}


def exit_race_cases() -> list[Case]:
    cases = []
    for name, qrels in EXIT_RACE.items():
        score: dict[str, list[str]] | None = None
        if name == "a comment line in the qrels":
            score = {"P@1": ["P_1", "P_1"], "AP": ["map", "map"]}
        args = ("-q", "-c", "-m", "P.1", "-m", "map", "q", "r") if score else ("q", "r")
        cases.append(
            Case(f"exit-race/{name}", "exit-race", args, {"q": qrels, "r": b"1 Q0 a 1 1 r\n"}, score=score)
        )
    return cases


def score_cases(count: int) -> list[Case]:
    """Strict inputs (what ``score`` reads) scored by trec_eval ``-q -c``, with the measures ``score`` is asked."""
    cases = []
    for seed in range(count):
        rng = random.Random(70_000 + seed)
        batch = make_batch(70_000 + seed, cases=rng.randint(2, 4), strict=True)
        level = 2 if seed % 4 == 3 else 1
        if level == 1:  # score prints these under trec_eval's names
            score = {measure: [trec, trec] for measure, (trec, _) in MEASURES.items()}
            args = [a for _, arg in MEASURES.values() if arg for a in ("-m", arg)]
        else:  # and these under their own
            score = {measure: [measure, trec] for measure, trec in LEVEL_2.items()}
            args = ["-l2", *(a for trec in dict.fromkeys(LEVEL_2.values()) for a in ("-m", _argument(trec)))]
        files = {"q": render_qrels(batch, rng), "r": render_run(batch, rng, strict=True)}
        gz = tuple(name for name in ("q", "r") if rng.random() < 0.2)
        cases.append(
            Case(f"score/{seed:03d}", "score", ("-q", "-c", *args, "q", "r"), files, gzip=gz, score=score)
        )
    return cases


def _argument(trec_name: str) -> str:
    """``P_5`` → ``P.5``: the -m argument of a printed name with a cutoff."""
    root, _, cutoff = trec_name.rpartition("_")
    return f"{root}.{cutoff}" if cutoff.isdigit() and root else trec_name


def cases() -> list[Case]:
    every = [
        *options_cases(),
        *random_cases(160),
        *measure_cases(),
        *stop_cases(),
        *layout_cases(),
        *unsupported_cases(),
        *exit_race_cases(),
        *score_cases(60),
    ]
    names = [c.name for c in every]
    assert len(names) == len(set(names)), "case names must be unique"
    return every


def generate(binary: Path) -> tuple[list[Case], list[str]]:
    """Every case run twice; those whose answers differ are left out (their names returned)."""
    every = cases()
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        first = list(pool.map(lambda case: run_case(binary, case), every))
        second = list(pool.map(lambda case: run_case(binary, case), every))
    kept = [a for a, b in zip(first, second, strict=True) if (a.stdout, a.exit) == (b.stdout, b.exit)]
    unstable = [
        a.name for a, b in zip(first, second, strict=True) if (a.stdout, a.exit) != (b.stdout, b.exit)
    ]
    return kept, unstable


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed corpus, write nothing"
    )
    args = parser.parse_args()
    source = find_trec_eval_source()
    if source is None:
        print(
            "trec_eval 10 source not found ($TREC_EVAL_SRC or ../shared/conformance/trec_eval/src)",
            file=sys.stderr,
        )
        return 1
    binary = build_trec_eval(source)
    kept, unstable = generate(binary)
    for name in unstable:
        print(f"left out (trec_eval's output differs between two runs): {name}", file=sys.stderr)
    if args.check:
        committed = read_corpus()
        if committed != kept:
            print(f"{CORPUS} differs from what trec_eval prints now; regenerate it", file=sys.stderr)
            return 1
        print(f"{CORPUS}: {len(kept)} cases, as trec_eval prints them")
        return 0
    write_corpus(kept)
    families: dict[str, int] = {}
    for case in kept:
        families[case.family] = families.get(case.family, 0) + 1
    print(
        f"{CORPUS}: {len(kept)} cases ({', '.join(f'{k} {v}' for k, v in families.items())}), {CORPUS.stat().st_size:,} bytes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
