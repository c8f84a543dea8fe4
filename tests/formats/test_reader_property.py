"""The fast column reader is held to the line reader, and both to trec_eval's rule (docs/design.md §5, Reading like trec_eval).

Random runs in every layout — ties listed ascending or descending, equal scores, rising scores in some topics
and not others, comments, blank lines, tabs, runs of blanks, blanks at a line's start or end, CRLF, topics that
come back later, tiny blocks, gzip — must give the same ranking through ``read_run`` (pyarrow's column reader,
which every one of these layouts reaches), through ``read_run_lines``, and as computed here straight from the
generated data: score descending, ties by doc_id descending.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest
from helpers.sizes import scaled_settings
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from toolkit.formats import read_run, tables
from toolkit.formats.ranked import RankedResults
from toolkit.formats.run import read_run_lines

SCORES = [0.0, 1.0, 2.0, 2.5, -1.0, -0.5, 1e-300, 3e300, 0.1, 0.30000000000000004, 7.25]
FORMATS = ["{!r}", "{:.2f}", "{:.6e}", "{:.17g}"]


def regression_block(tmp_path: Path) -> Path:
    """The case that broke it: topic 1 has rising scores, topic 2 lists a tie in ascending doc order."""
    path = tmp_path / "tie.run"
    path.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n2 Q0 c 1 1 t\n2 Q0 d 2 1 t\n")
    return path


def test_ties_listed_ascending_next_to_rising_scores_are_reordered(tmp_path: Path) -> None:
    run = read_run(regression_block(tmp_path))
    assert isinstance(run.results, RankedResults)
    assert run.ranking("1") == ["b", "a"]
    assert run.ranking("2") == ["d", "c"]  # trec_eval: tie broken by doc_id descending


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[tuple[str, str, float, str]], dict[str, object]]:
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    n_topics = draw(st.integers(1, 6))
    rows: list[tuple[str, str, float, str]] = []
    for t in range(n_topics):
        qid = rng.choice([f"q{t}", str(t), f"T-{t}x"])
        pool = rng.sample(range(60), rng.randint(1, 25))
        docs = [rng.choice(["d{:02d}", "D{}", "doc-{}", "{}"]).format(i) for i in pool]
        docs = list(dict.fromkeys(docs))
        few = rng.sample(SCORES, rng.randint(1, 4))  # few distinct values: many ties
        for doc in docs:
            text = rng.choice(FORMATS).format(rng.choice(few))
            rows.append((qid, doc, float(text), text))  # the value the text spells (0.30 is not 0.1+0.2)
    layout = {
        "order": draw(st.sampled_from(["asc", "desc", "shuffle", "interleave", "as-drawn"])),
        "sep": draw(st.sampled_from([" ", "\t", "mixed", "double", "ragged"])),
        "comments": draw(st.booleans()),
        "blank": draw(st.booleans()),
        "gz": draw(st.booleans()),
        "block": draw(st.sampled_from([8 << 20, 64, 200])),
        "crlf": draw(st.booleans()),
        "seed": seed,
    }
    return rows, layout


def render(rows: list[tuple[str, str, float, str]], layout: dict[str, object]) -> bytes:
    """The file's bytes."""
    rng = random.Random(int(layout["seed"]))  # type: ignore[call-overload]
    order = layout["order"]
    if order in ("asc", "desc"):
        rows = sorted(rows, key=lambda r: (r[0], r[2], r[1]), reverse=order == "desc")
        rows = sorted(rows, key=lambda r: r[0])  # stable: topics grouped, docs in the chosen order
    elif order in ("shuffle", "interleave"):
        rows = list(rows)
        rng.shuffle(rows)
    lines = []
    for rank, (qid, doc, _, text) in enumerate(rows, start=1):
        fields = [qid, "Q0", doc, str(rank), text, "tag"]
        sep = layout["sep"]
        if sep == "mixed":
            line = "".join(f + rng.choice([" ", "\t"]) for f in fields[:-1]) + fields[-1]
        elif sep == "double":
            line = "  ".join(fields)
        elif sep == "ragged":  # runs of blanks, and blanks before and after the line
            line = rng.choice(["", " ", "\t ", "  "]) + "".join(
                f + rng.choice([" ", "  \t", "\t\t", "\v", "\f"]) for f in fields[:-1]
            )
            line += fields[-1] + rng.choice(["", " ", "\t", " \r"])
        else:
            line = str(sep).join(fields)
        lines.append(line)
        if layout["comments"] and rng.random() < 0.2:
            lines.append(rng.choice(["# a comment", "   # indented", "#", "# six tokens a comment 1 2"]))
        if layout["blank"] and rng.random() < 0.1:
            lines.append(rng.choice(["", "  ", "\t"]))
    end = "\r\n" if layout["crlf"] else "\n"
    data = (end.join(lines) + end).encode()
    return gzip.compress(data, mtime=0) if layout["gz"] else data


@scaled_settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=runs())
def test_fast_path_line_reader_and_trec_eval_rule_agree(
    case: tuple[list[tuple[str, str, float, str]], dict[str, object]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows, layout = case
    path = tmp_path / ("r.run.gz" if layout["gz"] else "r.run")
    path.write_bytes(render(rows, layout))
    monkeypatch.setattr(tables, "BLOCK_BYTES", layout["block"])
    expected: dict[str, list[str]] = {}
    values: dict[str, dict[str, float]] = {}
    for qid, doc, value, _ in rows:
        values.setdefault(qid, {})[doc] = value
    for qid, docs in values.items():
        expected[qid] = [d for d, _ in sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]
    fast = read_run(path)
    slow = read_run_lines(path)
    assert isinstance(fast.results, RankedResults)  # every layout reaches the column reader
    assert set(fast.results) == set(slow.results) == set(expected)
    for qid, ranking in expected.items():
        assert fast.ranking(qid) == ranking
        assert slow.ranking(qid) == ranking
        assert dict(fast.results[qid]) == values[qid]
