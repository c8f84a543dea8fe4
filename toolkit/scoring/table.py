"""The measure table (``toolkit.treceval.measures``) seen from ir_measures: which row computes a measure object.

Every row can be written three ways, and each way is read here, from the row itself:

* ir_measures' spelling, for a row that names an ir_measures measure: ``AP`` is ``map``, ``P@5`` is ``P`` with
  cutoff 5, ``NumRet(rel=1)`` is ``num_rel_ret`` (``ir``, ``ir_param``, ``ir_when``), and ``rel=`` is trec_eval's
  ``-l``, ``judged_only=True`` its ``-J``;
* trec_eval's ``-m`` spelling: ``map``, ``P.5,10`` (two measures), ``ndcg_cut.10``, ``utility.1,-1,0,0``,
  parameters read and checked by the drop-in's own option code, so that they mean what they mean to trec_eval
  (and the names trec_eval prints, ``P_5``, ``ndcg_cut_10``, pasted from its output);
* for a row ir_measures has no measure for, a measure class of its own named after the row (``gm_map``,
  ``relative_P@5``, ``gm_map(rel=2)``, ``utility(params='1,-1,0,0')``): an ir_measures ``Measure`` like any other,
  immutable, hashable, whose ``str()`` is read back by ``parse`` here.

``locate`` answers which row computes a measure object, with which parameters; ``canonical`` turns a row and
parameters back into the one object that stands for them (an ir_measures object whenever one exists), so that
one value has one name everywhere.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from toolkit.errors import UsageError
from toolkit.treceval.measures import BY_NAME, MEASURES, MeasureDef
from toolkit.treceval.measures.base import (
    ABSENT,
    DOUBLE_CUTOFFS,
    DOUBLE_PARAMS,
    GEOMETRIC,
    GIVEN,
    LONG_CUTOFFS,
    MEAN,
    NO_PARAMS,
    NOTHING,
    PAIR_PARAMS,
    RUNID,
    STRING,
)

_CUTOFF_KINDS = (LONG_CUTOFFS, DOUBLE_CUTOFFS)
_TEXT_KINDS = (DOUBLE_PARAMS, PAIR_PARAMS)


@dataclass(frozen=True)
class Located:
    """One measure value as a row computes it: the row's parameters (as trec_eval holds them), ``-l``, ``-J``.

    ``text`` is the parameter list as trec_eval's ``-m name.text`` takes it (None: the row's defaults);
    ``names`` the name trec_eval prints for the value.
    """

    row: MeasureDef
    params: tuple[Any, ...]
    level: int
    judged_only: bool
    text: str | None
    printed: str

    @property
    def value(self) -> Any:
        """The one parameter value as the measure object holds it (a cutoff, trec_eval's text), or None."""
        if self.text is None:
            return None
        if self.row.params in _CUTOFF_KINDS or not self.row.in_trec_eval:
            return self.params[0]
        return self.text

    @property
    def trec_name(self) -> str | None:
        """The name trec_eval prints for this value, None when trec_eval does not compute it (another level, -J)."""
        if not self.row.in_trec_eval or self.level != 1 or self.judged_only:
            return None
        return self.printed


@cache
def _rows_by_ir() -> dict[str, tuple[MeasureDef, ...]]:
    out: dict[str, list[MeasureDef]] = {}
    for row in MEASURES:
        if row.ir:
            out.setdefault(row.ir, []).append(row)
    return {k: tuple(v) for k, v in out.items()}


@cache
def _rows_by_name() -> dict[str, MeasureDef]:
    return {row.name: row for row in MEASURES}


def scoreable(row: MeasureDef) -> str | None:
    """Why ``score`` cannot compute a row, or None when it can (the rest it computes as trec_eval does)."""
    if row.value == RUNID:
        return "runid is the run's tag, not a measure; `--format trec` prints it"
    if row.value == STRING or row.average == NOTHING:
        return f"{row.name} is text per topic, not a number; use `trec-toolkit trec_eval -q -m {row.name} QRELS RUN`"
    if row.rel_format == "probs":
        return (
            f"{row.name} is estimated from a sampled pool: give score qrels with inclusion probabilities (a fifth "
            "column: `export` of a campaign pooled with --sample)"
        )
    if row.rel_format != "qrels":
        return (
            f"{row.name} needs {row.rel_format} judgments (trec_eval -R {row.rel_format}); score reads qrels only, "
            "use trec_eval itself"
        )
    return None


# --- the measure classes of rows ir_measures has no measure for ----------------------------------------------


class GeometricAgg:
    """trec_eval's geometric mean (``gm_map``, ``gm_bpref``): exp of the mean log of the values floored at 1e-5."""

    def __init__(self) -> None:
        self.values: list[float] = []

    def add(self, value: float) -> None:
        self.values.append(value)

    def result(self) -> float:
        return geometric_mean(self.values)


def geometric_mean(values: list[float]) -> float:
    """exp(Σ log(max(v, 1e-5)) / n), added left to right as trec_eval does (0.0 when there are no values)."""
    from toolkit.treceval.cnum import div, exp, log
    from toolkit.treceval.measures.base import MIN_GEO_MEAN

    if not values:
        return 0.0
    total = 0.0
    for value in values:
        total += log(value if value > MIN_GEO_MEAN else MIN_GEO_MEAN)
    return exp(div(total, len(values)))


@cache
def row_class(name: str) -> Any:
    """The ir_measures ``Measure`` class of row ``name`` (``gm_map``): ``rel``, ``judged_only`` and the row's
    parameter (``cutoff`` for cutoff rows, ``params`` — trec_eval's text — for the others)."""
    from ir_measures.measures.base import MeanAgg, Measure, ParamInfo, SumAgg

    row = _rows_by_name()[name]
    params: dict[str, Any] = {
        "rel": ParamInfo(dtype=int, default=1, desc="relevance level (trec_eval -l)"),
        "judged_only": ParamInfo(dtype=bool, default=False, desc="judged docs only (trec_eval -J)"),
    }
    if row.params in _CUTOFF_KINDS:
        kind = int if row.params == LONG_CUTOFFS else (int, float)
        params["cutoff"] = ParamInfo(dtype=kind, required=True, desc="trec_eval's parameter")
    elif row.params in _TEXT_KINDS:
        params["params"] = ParamInfo(dtype=str, default=None, desc="trec_eval's parameters, as -m takes them")

    def aggregator(self: Any) -> Any:
        if row.average == GEOMETRIC:
            return GeometricAgg()
        return MeanAgg() if row.average == MEAN else SumAgg()

    def reduce(self: Any) -> tuple[Any, tuple[str, dict[str, Any]]]:
        return _rebuild, (name, dict(self.params))

    return type(
        f"TrecEval_{name}",
        (Measure,),
        {
            "__name__": name,
            "NAME": name,
            "ROW": name,
            "SUPPORTED_PARAMS": params,
            "aggregator": aggregator,
            "__reduce__": reduce,
            "__module__": __name__,
            "__doc__": f"trec_eval's {name}: {row.about}.",
        },
    )


def _rebuild(name: str, params: dict[str, Any]) -> Any:
    """Unpickle a row class's measure (the classes are made at run time, so pickle cannot name them)."""
    return row_class(name)(**params)


# --- locate: which row computes a measure object ---------------------------------------------------------------


def locate(measure: Any) -> Located | None:
    """The row and parameters computing ``measure``, None when no row does (another provider may).

    UsageError when a row does but a parameter is out of its range (``P@0``, ``rel=-1``).
    """
    row_name = getattr(type(measure), "ROW", None)
    if row_name is not None:
        row = _rows_by_name()[row_name]
        p = measure.params
        value = p.get("cutoff", p.get("params"))
        return _located(measure, row, value, p.get("rel", 1), p.get("judged_only", False))
    rows = _rows_by_ir().get(getattr(measure, "NAME", None) or "", ())
    for row in rows:
        found = _match(measure, row)
        if found is not None:
            return found
    return None


def _default(measure: Any, key: str) -> Any:
    info = measure.SUPPORTED_PARAMS.get(key)
    return None if info is None else info.default


def _match(measure: Any, row: MeasureDef) -> Located | None:
    from ir_measures.measures.base import _NOT_PROVIDED as NOT_PROVIDED

    given = {k: v for k, v in measure.params.items() if v is not NOT_PROVIDED}
    for key, want in row.ir_when:
        if want == GIVEN and key not in given:
            return None
        if want == ABSENT and key in given:
            return None
        if want not in (GIVEN, ABSENT) and given.pop(key, _default(measure, key)) != want:
            return None
    level = given.pop("rel", 1)
    judged_only = given.pop("judged_only", False)
    value = given.pop(row.ir_param, None) if row.ir_param else None
    if any(v != _default(measure, k) for k, v in given.items()):
        return None  # a parameter this row has no counterpart for (nDCG's gains, dcg='exp-log2' …)
    return _located(measure, row, value, level, judged_only)


def _located(measure: Any, row: MeasureDef, value: Any, level: Any, judged_only: Any) -> Located:
    if row.params in _CUTOFF_KINDS and value is None and row.defaults:
        example = f"{row.ir}@{row.defaults[1 if len(row.defaults) > 1 else 0]}" if row.ir else f"{row.name}.5"
        raise UsageError(f"{measure}: name one {row.ir_param or 'cutoff'}, e.g. {example}")
    if not isinstance(level, int) or isinstance(level, bool) or level < 0:
        raise UsageError(
            f"{measure}: rel={level!r}; a relevance level counts docs graded at least rel as relevant and must be "
            "a whole number ≥ 0 (e.g. P(rel=2)@5)"
        )
    bad_cutoff = not isinstance(value, int) or isinstance(value, bool) or value < 1
    if row.params == LONG_CUTOFFS and value is not None and bad_cutoff:
        raise UsageError(
            f"{measure}: a cutoff counts docs from the top of the ranking and must be a whole number ≥ 1 "
            f"(e.g. {row.ir or row.name}@10)"
        )
    bad_number = not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value)
    if row.params == DOUBLE_CUTOFFS and value is not None and bad_number:
        raise UsageError(f"{measure}: {row.ir_param or 'cutoff'} must be a finite number (e.g. 0.5)")
    if row.params in _TEXT_KINDS and value is not None and not isinstance(value, str):
        value = _number_text(value)
    text = None if value is None else (value if isinstance(value, str) else _number_text(value))
    params, printed = _initialise(row.name, text) if row.in_trec_eval else _beyond(row, value)
    return Located(row, params, level, bool(judged_only), text, printed)


def _number_text(value: Any) -> str:
    """A parameter as trec_eval's ``-m`` would be given it (shortest text that reads back as the same double)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def _beyond(row: MeasureDef, value: Any) -> tuple[tuple[Any, ...], str]:
    params = () if value is None else (value,)
    name = row.ir or row.name
    return params, f"{name}@{value}" if value is not None else name


def _initialise(name: str, text: str | None) -> tuple[tuple[Any, ...], str]:
    """The row's parameters and first printed name for ``-m name[.text]``."""
    params, names = _active(name, text)
    return params, names[0] if names else name


def _initialise_all(name: str, text: str | None) -> tuple[Any, ...]:
    """Every parameter ``-m name[.text]`` gives the row (one value each: ``P.5,10`` → 5, 10)."""
    return _active(name, text)[0]


@lru_cache(maxsize=4096)
def _active(name: str, text: str | None) -> tuple[tuple[Any, ...], tuple[str, ...]]:
    """``-m name[.text]`` read by the drop-in's own option code: trec_eval's checks, parameters and names."""
    from toolkit.treceval.errors import TrecEvalError
    from toolkit.treceval.options import Options, active_measures

    options = Options(marked=[name], arguments=[(name, text)] if text is not None else [])
    try:
        (active,) = active_measures(options)
    except TrecEvalError as exc:
        raise UsageError(f"{name}.{text}: {exc}") from None
    return tuple(active.params), tuple(active.names)


# --- canonical objects and spellings ---------------------------------------------------------------------------


def canonical(row: MeasureDef, value: Any, level: int = 1, judged_only: bool = False) -> Any:
    """The one measure object of a row with one parameter value: ir_measures' when it has one, else the row's."""
    obj = _ir_object(row, value, level, judged_only)
    if obj is not None:
        located = locate(obj)
        if located is not None and located.row is row:
            return obj
    return _own(row, value, level, judged_only)


def _ir_object(row: MeasureDef, value: Any, level: int, judged_only: bool) -> Any | None:
    """ir_measures' object for the row and parameters, None when ir_measures cannot say them."""
    import ir_measures

    if row.ir is None or (value is not None and not row.ir_param):
        return None
    measure = ir_measures.measures.registry[row.ir]
    supported = measure.SUPPORTED_PARAMS
    kwargs: dict[str, Any] = {}
    for key, want in row.ir_when:
        if want == GIVEN:
            kwargs[key] = level
        elif want != ABSENT:
            kwargs[key] = want
    if level != 1 and "rel" not in kwargs:
        if "rel" not in supported or any(k == "rel" and w == ABSENT for k, w in row.ir_when):
            return None
        kwargs["rel"] = level
    if judged_only:
        if "judged_only" not in supported:
            return None
        kwargs["judged_only"] = True
    if row.ir_param and value is not None:
        dtype = supported[row.ir_param].dtype
        kwargs[row.ir_param] = float(value) if dtype is float else value
    return measure(**kwargs)


def _own(row: MeasureDef, value: Any, level: int, judged_only: bool) -> Any:
    kwargs: dict[str, Any] = {}
    if level != 1:
        kwargs["rel"] = level
    if judged_only:
        kwargs["judged_only"] = True
    if value is not None:
        kwargs["cutoff" if row.params in _CUTOFF_KINDS else "params"] = value
    return row_class(row.name)(**kwargs)


_PRINTED_PARAMETERS = re.compile(r"[-+.0-9][^()@]*|[^()@=]+=[^()@]*")
_TREC = re.compile(r"(?P<name>[A-Za-z0-9_]+)(?:\.(?P<text>.*))?", re.S)
_OWN = re.compile(r"(?P<name>[A-Za-z0-9_]+)(?:\((?P<args>.*)\))?(?:@(?P<at>[^@()]+))?", re.S)


def from_trec(token: str) -> tuple[Any, ...] | None:
    """``-m``-style ``name[.params]`` → its measure objects (one per value trec_eval prints), None if not one.

    A cutoff row without parameters stands for its default cutoffs, as in trec_eval (``P`` → P@5 … P@1000).
    """
    match = _TREC.fullmatch(token)
    if match is None or match["name"] not in BY_NAME:
        printed = _printed(token)
        return None if printed is None else from_trec(printed)
    row = BY_NAME[match["name"]]
    why = scoreable(row)
    if why is not None:
        raise UsageError(why)
    text = match["text"]
    if text is not None and not text:
        raise UsageError(f"{token!r}: nothing after the dot; give trec_eval's parameters (e.g. P.5,10)")
    if row.params in _CUTOFF_KINDS:
        values = _initialise_all(row.name, text)
        return tuple(canonical(row, v) for v in values)
    if row.params in _TEXT_KINDS:
        if text is None:
            return (canonical(row, None),)
        _initialise(row.name, text)  # trec_eval's checks
        if row.ir_param:  # set_F.0.5: ir_measures' SetF(beta=0.5) when it is one number
            values = _initialise(row.name, text)[0]
            if len(values) == 1:
                return (canonical(row, values[0]),)
        return (canonical(row, text),)
    if text is not None:
        raise UsageError(f"{token!r}: {row.name} takes no parameters")
    return (canonical(row, None),)


def _printed(token: str) -> str | None:
    """A name as trec_eval prints it (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.50``) in ``-m`` spelling."""
    rows = sorted(
        (r for r in MEASURES if r.in_trec_eval and r.params != NO_PARAMS), key=lambda r: -len(r.name)
    )
    for row in rows:
        rest = token[len(row.name) + 1 :]
        if token.startswith(row.name + "_") and _PRINTED_PARAMETERS.fullmatch(rest):
            return f"{row.name}.{rest}"
    return None


def from_own(token: str) -> Any | None:
    """A row class's spelling (``gm_map(rel=2)``, ``relative_P@5``) → its object, None if not one."""
    match = _OWN.fullmatch(token)
    if match is None or match["name"] not in _rows_by_name():
        return None
    row = _rows_by_name()[match["name"]]
    if match["args"] is None and match["at"] is None and row.rel_format != "probs":
        return None  # a bare name is read as trec_eval's (an inferred measure's is its own: ``statAP``)
    why = scoreable(row)
    if why is not None:
        raise UsageError(why)
    kwargs: dict[str, Any] = {}
    if match["args"]:
        try:
            call = ast.parse(f"f({match['args']})", mode="eval").body
            if not isinstance(call, ast.Call) or call.args:
                raise ValueError("arguments must be named")
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        except (SyntaxError, ValueError) as exc:
            raise UsageError(
                f"{token!r}: cannot read the parameters ({exc}); e.g. {row.name}(rel=2)"
            ) from None
    if match["at"] is not None:
        try:
            kwargs["cutoff"] = ast.literal_eval(match["at"])
        except (SyntaxError, ValueError):
            raise UsageError(f"{token!r}: the value after @ must be a number") from None
    cls = row_class(row.name)
    unknown = set(kwargs) - set(cls.SUPPORTED_PARAMS)
    if unknown:
        raise UsageError(
            f"{token!r}: {row.name} has no parameter {', '.join(sorted(unknown))}; it takes "
            f"{', '.join(cls.SUPPORTED_PARAMS)}"
        )
    value = kwargs.get("cutoff", kwargs.get("params"))
    located = _located(token, row, value, kwargs.get("rel", 1), kwargs.get("judged_only", False))
    return canonical(row, value, located.level, located.judged_only)


def with_settings(measure: Any, level: int, judged_only: bool = False) -> Any:
    """The same table measure at relevance ``level`` (trec_eval ``-l``) and with ``-J`` when ``judged_only``."""
    located = locate(measure)
    if located is None:
        raise UsageError(f"{measure} is not a measure of the table")
    return canonical(located.row, located.value, level, judged_only)


def spellings() -> list[str]:
    """Every spelling a measure can be named by, for suggestions: trec_eval names and ir_measures names."""
    names = [row.name for row in MEASURES if row.in_trec_eval and scoreable(row) is None]
    names += sorted({row.ir for row in MEASURES if row.ir})
    return names
