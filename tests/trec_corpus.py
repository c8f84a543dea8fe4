"""trec_eval 10's own output on a fixed corpus of cases, committed as test data (docs/trec_eval.md).

Why: the drop-in's contract is trec_eval's bytes, and the binary the live tests compare with is built from a
source archive outside the repository — on a fresh clone those tests skip. This corpus carries trec_eval's
answers into the repository, so every clone checks the claim: ``tests/data/trec_eval/generate.py`` builds
trec_eval 10 where its source is, runs it on every case it defines (seeded, so the same cases every time) and
writes inputs and outputs to ``tests/data/trec_eval/corpus.jsonl.xz``; ``tests/treceval/test_corpus.py`` holds
the drop-in (stdout byte for byte, exit code) and ``score`` (values) to it.

The file holds one JSON object a line (``Case``); bytes are stored as latin-1 strings (one character a byte),
so any input — NUL bytes, invalid UTF-8, a byte-order mark — survives. ``args`` name files relative to a
folder holding ``files``; a case runs with that folder as its working directory.
"""

from __future__ import annotations

import gzip
import json
import lzma
import resource
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "trec_eval" / "corpus.jsonl.xz"
STDIN = "<stdin>"


def _text(data: bytes) -> str:
    return data.decode("latin-1")


def _bytes(text: str) -> bytes:
    return text.encode("latin-1")


@dataclass(frozen=True)
class Case:
    """One trec_eval invocation: its inputs, and (once run) what trec_eval printed and how it exited.

    ``gzip``: files the drop-in and ``score`` read gzipped (trec_eval reads no gzip, so it read them plain).
    ``drop_in_exit``: where the drop-in deliberately does not reproduce trec_eval (it crashes, reads garbage,
    or the option is not implemented — docs/trec_eval.md), the drop-in's exit code; its stdout is then not
    compared, and its stderr must be one ``Error:`` line. ``gzip`` may name ``<stdin>``: standard input,
    gzipped for the toolkit. ``score``: each measure ``trec-toolkit score`` is asked for → ``[the name
    score --format trec prints it under, the name trec_eval printed the same value under]`` in this case's
    output (which is ``-q -c`` at the case's level).
    """

    name: str
    family: str
    args: tuple[str, ...]
    files: dict[str, bytes]
    stdin: bytes | None = None
    gzip: tuple[str, ...] = ()
    drop_in_exit: int | None = None
    score: dict[str, list[str]] | None = None
    note: str = ""
    # trec_eval's answer (filled in by the generator)
    stdout: bytes = b""
    stderr: bytes = b""
    exit: int = 0  # negative: killed by that signal

    def write(self, folder: Path, *, packed: bool) -> None:
        """The case's files in ``folder``; ``packed``: gzip those in ``gzip`` (for the toolkit, not trec_eval)."""
        for name, data in self.files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(gzip.compress(data, mtime=0) if packed and name in self.gzip else data)

    def toolkit_stdin(self) -> bytes | None:
        """Standard input as the toolkit gets it (gzipped when ``gzip`` names ``<stdin>``)."""
        if self.stdin is not None and STDIN in self.gzip:
            return gzip.compress(self.stdin, mtime=0)
        return self.stdin

    def to_json(self) -> str:
        record = asdict(self)
        record["files"] = {name: _text(data) for name, data in self.files.items()}
        for key in ("stdin", "stdout", "stderr"):
            record[key] = None if record[key] is None else _text(record[key])
        return json.dumps(record, sort_keys=True, ensure_ascii=True)

    @classmethod
    def from_json(cls, line: str) -> Case:
        record = json.loads(line)
        record["args"] = tuple(record["args"])
        record["gzip"] = tuple(record["gzip"])
        record["files"] = {name: _bytes(text) for name, text in record["files"].items()}
        for key in ("stdin", "stdout", "stderr"):
            record[key] = None if record[key] is None else _bytes(record[key])
        return cls(**record)


def read_corpus(path: Path = CORPUS) -> list[Case]:
    with lzma.open(path, "rt", encoding="ascii") as handle:
        return [Case.from_json(line) for line in handle if line.strip()]


def write_corpus(cases: Iterable[Case], path: Path = CORPUS) -> None:
    """Deterministic bytes for the same cases (sorted keys, one preset), so a regenerated file diffs clean."""
    text = "".join(case.to_json() + "\n" for case in cases)
    path.write_bytes(lzma.compress(text.encode("ascii"), preset=9 | lzma.PRESET_EXTREME))


def trec_lines(stdout: bytes) -> dict[tuple[str, str], str]:
    """``(measure, topic) → value`` of trec_eval's output (names and topics stripped of their padding)."""
    out = {}
    for line in stdout.decode("latin-1").splitlines():
        name, topic, value = (part.strip() for part in line.split("\t"))
        out[(name, topic)] = value
    return out


def _limits() -> None:
    """trec_eval allocates a count per grade and reads past its tables: bound its memory (2 GiB)."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


#: The same bound set by util-linux's ``prlimit`` where it is installed: a ``preexec_fn`` makes Python fork
#: the whole test process (hundreds of MB of page tables) for every case instead of spawning the binary, which
#: cost most of the corpus check's CPU.
_BOUNDED: tuple[str, ...] = (
    (shutil.which("prlimit") or "", f"--as={2 << 30}", "--") if shutil.which("prlimit") else ()
)


def run_case(binary: Path, case: Case) -> Case:
    """``case`` with trec_eval's stdout, stderr and exit code (negative: the signal that killed it)."""
    with tempfile.TemporaryDirectory(prefix="trec-corpus-") as folder:
        case.write(Path(folder), packed=False)
        done = subprocess.run(
            [*_BOUNDED, str(binary), *case.args],
            cwd=folder,
            input=case.stdin or b"",
            capture_output=True,
            timeout=120,
            preexec_fn=None if _BOUNDED else _limits,
        )
    stderr = done.stderr.replace(str(binary).encode(), b"trec_eval")
    return replace(case, stdout=done.stdout, stderr=stderr, exit=done.returncode)
