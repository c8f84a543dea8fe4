"""What a trec_eval measure is: its parameters, how it is computed, accumulated, averaged and printed.

Each measure of trec_eval 10's table (``measures.c``) is one ``MeasureDef``. The computation is a function of
the evaluation settings (``Settings``), one topic's ranked relevance list (``ResRels``, trec_eval's
``RES_RELS``) and the measure's parameters, returning one value per reported name — the same doubles trec_eval
computes, in the same order of operations. How the values are accumulated over topics, averaged and printed is
named by ``average`` and ``value`` so that one loop (``toolkit.treceval.evaluate``) serves every measure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: ``results_rel_list`` values of docs without a usable judgment (trec_eval.h).
RELVALUE_NONPOOL = -1
RELVALUE_UNJUDGED = -2

#: Floor of the geometric-mean measures (trec_eval.h ``MIN_GEO_MEAN``).
MIN_GEO_MEAN = 0.00001
#: infAP's smoothing constant (m_infap.c ``INFAP_EPSILON``).
INFAP_EPSILON = 0.00001

# How a measure takes parameters (``-m name.params``), after meas_init.c.
NO_PARAMS = "none"
LONG_CUTOFFS = "long_cutoffs"  # sorted, positive, distinct; one value per cutoff, named name_5
DOUBLE_CUTOFFS = "double_cutoffs"  # sorted, distinct; one value per cutoff, named name_0.20
DOUBLE_PARAMS = "double_params"  # as given; one value, named name_<params as typed>
PAIR_PARAMS = "pair_params"  # name=value list; one value, named name_<params as typed>

# How values are printed (meas_print_single.c / meas_print_final.c).
DOUBLE = "double"  # %6.4f
LONG = "long"  # %ld of (long) value
STRING = "string"  # relstring: per topic only, quoted
RUNID = "runid"  # the run tag, summary only

# How values are summarised over topics (meas_acc.c / meas_avg.c).
MEAN = "mean"  # sum / number of topics
SUM = "sum"  # the counts: num_ret, num_rel_ret, num_nonrel_judged_ret
GEOMETRIC = "geometric"  # exp(mean of the per-topic logs)
NUM_Q = "num_q"  # number of topics
NUM_REL = "num_rel"  # sum; under -c every qrels judgment > 0 (whatever -l says: trec_eval 10 does so)
NOTHING = "nothing"  # runid, relstring


@dataclass(frozen=True)
class Settings:
    """The evaluation options measures read (trec_eval's ``EPI``)."""

    relevance_level: int = 1
    complete: bool = False  # -c
    judged_only: bool = False  # -J
    max_docs: int = 2147483647  # -M (MAXLONG)
    num_docs_in_coll: int = 0  # -N


@dataclass
class ResRels:
    """One topic's judged ranking (trec_eval's ``RES_RELS``): relevance by rank and the qrels' level counts.

    ``rel_list[i]`` is the grade of the doc at rank i+1, or ``RELVALUE_NONPOOL`` / ``RELVALUE_UNJUDGED``;
    ``rel_levels`` maps a grade ≥ 0 to the number of qrels docs with it (reads past the end give 0).
    """

    num_ret: int
    num_rel: int
    num_rel_ret: int
    num_nonpool: int
    num_unjudged_in_pool: int
    num_rel_levels: int
    rel_levels: Mapping[int, int]
    rel_list: list[int]

    def level(self, grade: int) -> int:
        return self.rel_levels.get(grade, 0)


Calc = Callable[[Settings, ResRels, Sequence[Any]], list[Any]]
#: A vectorised kernel: (``toolkit.treceval.vector.Batch``, relevance level, parameters) → one array of
#: per-topic values per parameter (per printed name).
Kernel = Callable[[Any, int, Sequence[Any]], list[Any]]

#: ``MeasureDef.ir_when`` values: the ir_measures parameter must be given / must be left out.
GIVEN = "given"
ABSENT = "absent"


@dataclass(frozen=True)
class MeasureDef:
    """One measure: a row of trec_eval's measure table, or a measure trec_eval lacks computed the same way.

    ``calc`` is the reference (trec_eval's C code ported statement for statement, or for a measure trec_eval
    lacks a plain reading of its definition), ``kernel`` the same values for every topic at once where one
    exists; tests hold the kernel to ``calc`` and ``calc`` to trec_eval built from source.
    """

    name: str
    calc: Calc
    params: str = NO_PARAMS
    defaults: tuple[Any, ...] = ()
    value: str = DOUBLE
    per_topic: bool = True  # printed with -q (runid, num_q and the geometric means are not)
    average: str = MEAN
    uses_res_rels: bool = True  # builds the ranked relevance list (runid and num_q do not)
    #: measures sharing one parameter record in trec_eval (``dcg``, ``ideal_dcg`` and ``ndcg``)
    param_group: str | None = None
    #: the rel_info format the measure needs; the drop-in reads only ``qrels``
    rel_format: str = "qrels"
    #: ir_measures' name for this measure (``AP`` for ``map``), None when ir_measures has none
    ir: str | None = None
    #: the ir_measures parameter that carries trec_eval's one parameter (``cutoff``: ``P.5`` is ``P@5``)
    ir_param: str | None = None
    #: ir_measures parameters that single this row out: (name, value, ``GIVEN`` or ``ABSENT``) pairs
    ir_when: tuple[tuple[str, Any], ...] = ()
    #: the vectorised kernel (``toolkit.treceval.vector``), None when only ``calc`` computes the measure
    kernel: Kernel | None = None
    #: a row of trec_eval 10's own table (a ``-m`` name of the drop-in); False for a measure it lacks
    in_trec_eval: bool = True
    #: what the measure is, in a few words (the documentation's measure table)
    about: str = ""
