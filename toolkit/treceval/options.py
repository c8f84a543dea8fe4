"""trec_eval's command line: its options as glibc ``getopt_long`` parses them, and ``-m`` measure selection.

Parsing follows trec_eval 10's ``main`` (optstring ``hvqm:cl:nD:JN:M:R:T:oZ:`` plus its long options): options may
follow the file names (glibc permutes), short options cluster (``-qc``), an option's value may be attached
(``-M100``, ``-mP.5``) or separate, long options may be abbreviated (``--meas P.5``) and ``--`` ends the options.
Numbers are read with ``atol`` as trec_eval reads them. ``-m`` follows ``mark_measure``: ``name.params``
splits at the first dot, a nickname (``official``, ``all_trec`` …) marks its list, and the first parameters given
for a measure are the ones it uses. What trec_eval 10 rejects is rejected with its exit code; the few options
the drop-in does not implement (``-R``/``-T`` other formats, ``-Z``, ``-D`` above 0) are refused with a clear
message instead of printing something else.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from toolkit.formats.numbers import c_atof, c_atol
from toolkit.model import fields_from
from toolkit.treceval.cnum import qsort, to_int32, wrap_long
from toolkit.treceval.errors import TrecEvalError
from toolkit.treceval.measures import BY_NAME, NICKNAMES, TABLE, MeasureDef
from toolkit.treceval.measures.base import (
    DOUBLE_CUTOFFS,
    DOUBLE_PARAMS,
    LONG_CUTOFFS,
    PAIR_PARAMS,
    Settings,
)

SHORT_WITH_VALUE = set("mlDNMRTZ")
SHORT_FLAGS = set("hvqcnJo")
LONG_OPTIONS: dict[str, tuple[str, bool]] = {  # name → (short equivalent, takes a value)
    "help": ("h", False),
    "version": ("v", False),
    "query_eval_wanted": ("q", False),
    "measure": ("m", True),
    "complete_rel_info_wanted": ("c", False),
    "level_for_rel": ("l", True),
    "nosummary": ("n", False),
    "Debug_level": ("D", True),
    "Judged_docs_only": ("J", False),
    "Number_docs_in_coll": ("N", True),
    "Max_retrieved_per_topic": ("M", True),
    "Rel_info_format": ("R", True),
    "Results_format": ("T", True),
    "Output_old_results_format": ("o", True),  # takes a value in trec_eval 10's table, though -o does not
    "Zscore": ("Z", True),
}

#: The range of a C ``int``: a relevance level beyond it is refused (``parse_options``).
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

USAGE = "usage: trec-toolkit trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-m MEASURE]… QRELS RUN (see -h)"


@dataclass(frozen=True)
class ActiveMeasure:
    """A measure selected for this evaluation, its parameters resolved and its output names fixed."""

    definition: MeasureDef
    params: tuple
    names: tuple[str, ...]


@dataclass
class Options:
    """What trec_eval's command line asked for."""

    qrels: str = ""
    run: str = ""
    per_topic: bool = False  # -q
    summary: bool = True  # -n clears it
    complete: bool = False  # -c
    judged_only: bool = False  # -J
    relevance_level: int = 1  # -l
    max_docs: int = 2147483647  # -M
    num_docs_in_coll: int = 0  # -N
    debug_query: str | None = None  # -D 0.qid
    help: bool = False
    version: bool = False
    marked: list[str] = field(default_factory=list)  # measure names marked by -m, in the order given
    arguments: list[tuple[str, str]] = field(default_factory=list)  # (measure, params) from -m name.params

    @property
    def run_from_stdin(self) -> bool:
        """trec_eval's rule (``get_trec_results.c``): the run is read from standard input when its name's first
        character is ``-`` (``-``, or ``-x`` after ``--``). The qrels name is always a file, ``-`` included."""
        return self.run.startswith("-")

    def settings(self) -> Settings:
        return fields_from(Settings, self)


def _usage_error(message: str) -> TrecEvalError:
    return TrecEvalError(f"{message}; {USAGE}", exit_code=1)


def _getopt(argv: list[str], positional: list[str]) -> Iterator[tuple[str, str | None]]:
    """Options in order, as glibc's permuting ``getopt_long`` returns them; file arguments go to ``positional``.

    A generator, because trec_eval acts on each option as it comes (``-v`` exits before a later bad option).
    """
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positional.extend(argv[i:])
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            exact = name in LONG_OPTIONS
            matches = [name] if exact else [n for n in LONG_OPTIONS if n.startswith(name)]
            if len(matches) != 1:
                what = "is ambiguous" if matches else "is not recognised"
                raise _usage_error(f"option '--{name}' {what}")
            short, takes_value = LONG_OPTIONS[matches[0]]
            if takes_value and not eq:
                if i >= len(argv):
                    raise _usage_error(f"option '--{matches[0]}' requires an argument")
                value = argv[i]
                i += 1
            elif not takes_value and eq:
                raise _usage_error(f"option '--{matches[0]}' doesn't allow an argument")
            yield short, (value if takes_value else None)
            continue
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        k = 1
        while k < len(arg):
            letter = arg[k]
            k += 1
            if letter in SHORT_FLAGS:
                yield letter, None
            elif letter in SHORT_WITH_VALUE:
                if k < len(arg):
                    yield letter, arg[k:]
                elif i < len(argv):
                    i += 1
                    yield letter, argv[i - 1]
                else:
                    raise _usage_error(f"option requires an argument -- '{letter}'")
                break
            else:
                raise _usage_error(f"invalid option -- '{letter}'")


def as_bytes_text(argument: str) -> str:
    """A command-line argument as the bytes the process received, one character per byte (latin-1).

    Everything the drop-in handles — file contents, topic and doc ids, measure names — is kept this way, so
    that comparing two strings compares bytes as C's ``strcmp`` does and output reproduces input bytes.
    """
    return os.fsencode(argument).decode("latin-1")


def parse_options(argv: list[str]) -> Options:
    """trec_eval's options from ``argv`` (without the program name); ``TrecEvalError`` with its exit code."""
    options = Options()
    positional: list[str] = []
    zscores: str | None = None
    for letter, value in _getopt([as_bytes_text(a) for a in argv], positional):
        raw = (value or "").encode("latin-1")
        if letter == "h":
            options.help = True
        elif letter == "v":
            options.version = True
            return options  # trec_eval prints its version and exits as soon as it sees -v
        elif letter == "q":
            options.per_topic = True
        elif letter == "m":
            _mark_measure(options, value or "")
        elif letter == "c":
            options.complete = True
        elif letter == "l":
            options.relevance_level = c_atol(raw)
        elif letter == "n":
            options.summary = False
        elif letter == "J":
            options.judged_only = True
        elif letter == "N":
            options.num_docs_in_coll = c_atol(raw)
        elif letter == "M":
            options.max_docs = c_atol(raw)
        elif letter == "D":
            _debug(options, value or "")
        elif letter == "R" and value != "qrels":
            raise TrecEvalError(
                f"-R {value}: the drop-in reads qrels judgments only (trec_eval's -R qrels)", exit_code=2
            )
        elif letter == "T" and value != "trec_results":
            raise TrecEvalError(
                f"-T {value}: the drop-in reads TREC run files only (trec_eval's -T trec_results)",
                exit_code=2,
            )
        elif letter == "Z":  # refused once the command line is known to be whole: trec_eval checks that first
            zscores = value
    if options.help:
        return options
    if len(positional) != 2:
        raise _usage_error(f"expected 2 file names (QRELS RUN), found {len(positional)}")
    options.qrels, options.run = positional
    if zscores is not None:
        raise TrecEvalError(
            f"-Z {zscores}: z-scores are not supported by the drop-in; use trec_eval itself", exit_code=2
        )
    if options.max_docs < 0:
        raise TrecEvalError(
            f"-M {options.max_docs}: a negative number of docs per topic crashes trec_eval 10; use -M 0 or more",
            exit_code=2,
        )
    if not INT_MIN <= options.relevance_level <= INT_MAX:
        raise TrecEvalError(
            f"-l {options.relevance_level}: a relevance level beyond a C int; trec_eval 10 reads its grade "
            f"table that far for bpref and crashes; use a level from {INT_MIN} to {INT_MAX}",
            exit_code=2,
        )
    if not options.marked:
        _mark_measure(options, "official")
    return options


def _debug(options: Options, value: str) -> None:
    level, _, query = value.partition(".")
    if c_atol(level.encode("latin-1")) != 0:
        raise TrecEvalError(
            f"-D {value}: debug output is not supported by the drop-in (-D 0.QUERY_ID, one topic only, is)",
            exit_code=2,
        )
    options.debug_query = query or None


def _mark_measure(options: Options, argument: str) -> None:
    name, dot, params = argument.partition(".")
    if dot:
        if not params:
            raise _usage_error(
                f"illegal measure '{name}': improper measure in parameter (nothing after the dot)"
            )
        options.arguments.append((name, params))
    names = NICKNAMES.get(name, (name,))
    if names[0] not in BY_NAME:
        raise _usage_error(
            f"illegal measure '{name}'; see docs/trec_eval.md for the measures trec_eval 10 has"
        )
    for single in names:
        if single not in options.marked:
            options.marked.append(single)


def active_measures(options: Options) -> list[ActiveMeasure]:
    """The marked measures in trec_eval's table order, initialised as ``meas_init.c`` does (exit 2 on error)."""
    marked = set(options.marked)
    active = [m for m in TABLE if m.name in marked]
    grouped = [m.name for m in active if m.param_group]
    if len(grouped) > 1 and any(_params_for(options, n) is not None for n in grouped):
        raise TrecEvalError(
            f"{' and '.join(grouped)} share one parameter record in trec_eval 10, which crashes when parameters "
            "are given to one of them and another is asked for too; ask for one of them at a time",
            exit_code=2,
        )
    return [_initialise(m, _params_for(options, m.name)) for m in active]


def _params_for(options: Options, name: str) -> str | None:
    return next((params for measure, params in options.arguments if measure == name), None)


def _cannot(definition: MeasureDef, why: str) -> TrecEvalError:
    return TrecEvalError(f"cannot initialise measure '{definition.name}': {why}", exit_code=2)


def _initialise(definition: MeasureDef, params: str | None) -> ActiveMeasure:
    name = definition.name
    kind = definition.params
    if kind == LONG_CUTOFFS:
        values: tuple = tuple(definition.defaults)
        if params is not None:
            cutoffs = [c_atol(p.encode("latin-1")) for p in params.split(",")]
            cutoffs = qsort(cutoffs, lambda a, b: to_int32(wrap_long(a - b)))
            if cutoffs[0] <= 0:
                raise _cannot(definition, "a cutoff is 0 or negative; cutoffs must be positive")
            if any(a == b for a, b in zip(cutoffs, cutoffs[1:], strict=False)):
                raise _cannot(definition, "duplicate cutoffs")
            values = tuple(cutoffs)
        return ActiveMeasure(definition, values, tuple(f"{name}_{c}" for c in values))
    if kind == DOUBLE_CUTOFFS:
        values = tuple(definition.defaults)
        if params is not None:
            numbers = [c_atof(p.encode("latin-1")) for p in params.split(",")]
            numbers = qsort(numbers, lambda a, b: -1 if a < b else (1 if a > b else 0))
            if any(a == b for a, b in zip(numbers, numbers[1:], strict=False)):
                raise _cannot(definition, "duplicate cutoffs")
            values = tuple(numbers)
        return ActiveMeasure(definition, values, tuple(_double_name(name, c) for c in values))
    if kind == DOUBLE_PARAMS:
        if params is None:
            return ActiveMeasure(definition, tuple(definition.defaults), (name,))
        numbers = [c_atof(p.encode("latin-1")) for p in params.split(",")]
        return ActiveMeasure(definition, tuple(numbers), (f"{name}_{params}",))
    if kind == PAIR_PARAMS:
        if params is None:
            return ActiveMeasure(definition, (), (name,))
        return ActiveMeasure(definition, _pairs(definition, params), (f"{name}_{params}",))
    return ActiveMeasure(definition, (), (name,) if definition.value != "runid" else ())


def _double_name(name: str, value: float) -> str:
    """``snprintf(buf, strlen(name) + 10, "%s_%3.2f")``: at most 9 characters after the name."""
    from toolkit.treceval.cnum import format_fixed

    return f"{name}_{format_fixed(value, 2, 3)}"[: len(name) + 9]


def _pairs(definition: MeasureDef, params: str) -> tuple[tuple[str, float], ...]:
    """``get_param_pairs``: ``name=value`` separated by commas; anything else is malformed."""
    last = ","
    for char in params:
        if char == ",":
            if last == ",":
                break
            last = ","
        elif char == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if last != "=":
        raise _cannot(definition, f"malformed pair parameters in '{params}' (expected name=value,…)")
    pairs = []
    for item in params.split(","):
        key, _, value = item.partition("=")
        pairs.append((key, c_atof(value.encode("latin-1"))))
    return tuple(pairs)
