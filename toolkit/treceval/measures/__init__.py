"""trec_eval 10's measure table, in its order (the order every output line follows), and its nicknames.

Measures that need another judgment format (preferences, ``-R prefs``; judgment groups, ``-R qrels_jg``) are
listed so that their names are legal, as in trec_eval; computing one with a qrels file fails as trec_eval fails
(exit 4), since the drop-in reads qrels only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit.treceval.measures import gain, ranked, sets
from toolkit.treceval.measures.base import (
    DOUBLE_CUTOFFS,
    DOUBLE_PARAMS,
    GEOMETRIC,
    LONG,
    LONG_CUTOFFS,
    NOTHING,
    NUM_Q,
    NUM_REL,
    PAIR_PARAMS,
    RUNID,
    STRING,
    SUM,
    MeasureDef,
    ResRels,
    Settings,
)
from toolkit.treceval.measures.sets import MeasureFailure

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def _other_format(name: str, rel_format: str) -> Any:
    def calc(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
        raise MeasureFailure(
            f"measure {name!r} needs {rel_format} judgments (trec_eval -R {rel_format}); the drop-in reads "
            "qrels only"
        )

    return calc


def _prefs(name: str, value: str = "double", average: str = "mean") -> MeasureDef:
    return MeasureDef(name, _other_format(name, "prefs"), value=value, average=average, rel_format="prefs")


def _jg(name: str, params: str = "none", defaults: tuple[Any, ...] = ()) -> MeasureDef:
    return MeasureDef(name, _other_format(name, "qrels_jg"), params, defaults, rel_format="qrels_jg")


TABLE: tuple[MeasureDef, ...] = (
    MeasureDef("runid", sets.calc_runid, value=RUNID, per_topic=False, average=NOTHING, uses_res_rels=False),
    MeasureDef("num_q", sets.calc_num_q, value=LONG, per_topic=False, average=NUM_Q, uses_res_rels=False),
    MeasureDef("num_ret", sets.calc_num_ret, value=LONG, average=SUM),
    MeasureDef("num_rel", sets.calc_num_rel, value=LONG, average=NUM_REL),
    MeasureDef("num_rel_ret", sets.calc_num_rel_ret, value=LONG, average=SUM),
    MeasureDef("map", ranked.calc_map),
    MeasureDef("gm_map", ranked.calc_gm_map, per_topic=False, average=GEOMETRIC),
    MeasureDef("Rprec", ranked.calc_Rprec),
    MeasureDef("bpref", ranked.calc_bpref),
    MeasureDef("recip_rank", ranked.calc_recip_rank),
    MeasureDef("iprec_at_recall", sets.calc_iprec_at_recall, DOUBLE_CUTOFFS, RECALL_LEVELS),
    MeasureDef("P", ranked.calc_P, LONG_CUTOFFS, CUTOFFS),
    MeasureDef("relstring", ranked.calc_relstring, DOUBLE_PARAMS, (10.0,), value=STRING, average=NOTHING),
    MeasureDef("recall", ranked.calc_recall, LONG_CUTOFFS, CUTOFFS),
    MeasureDef("infAP", ranked.calc_infAP),
    MeasureDef("gm_bpref", ranked.calc_gm_bpref, per_topic=False, average=GEOMETRIC),
    MeasureDef("Rprec_mult", sets.calc_Rprec_mult, DOUBLE_CUTOFFS, R_MULTIPLES),
    MeasureDef("utility", sets.calc_utility, DOUBLE_PARAMS, (1.0, -1.0, 0.0, 0.0)),
    MeasureDef("11pt_avg", sets.calc_11pt_avg, DOUBLE_PARAMS, RECALL_LEVELS),
    MeasureDef("binG", ranked.calc_binG),
    MeasureDef("G", gain.calc_G, PAIR_PARAMS),
    MeasureDef("dcg", gain.calc_dcg, PAIR_PARAMS, param_group="ndcg"),
    MeasureDef("ideal_dcg", gain.calc_ideal_dcg, PAIR_PARAMS, param_group="ndcg"),
    MeasureDef("ndcg", gain.calc_ndcg, PAIR_PARAMS, param_group="ndcg"),
    MeasureDef("ndcg_rel", gain.calc_ndcg_rel, PAIR_PARAMS),
    MeasureDef("Rndcg", gain.calc_Rndcg, PAIR_PARAMS),
    MeasureDef("ndcg_cut", gain.calc_ndcg_cut, LONG_CUTOFFS, CUTOFFS),
    MeasureDef("map_cut", ranked.calc_map_cut, LONG_CUTOFFS, CUTOFFS),
    MeasureDef("relative_P", ranked.calc_relative_P, LONG_CUTOFFS, CUTOFFS),
    MeasureDef("success", ranked.calc_success, LONG_CUTOFFS, (1, 5, 10)),
    MeasureDef("set_P", sets.calc_set_P),
    MeasureDef("set_relative_P", sets.calc_set_relative_P),
    MeasureDef("set_recall", sets.calc_set_recall),
    MeasureDef("set_map", sets.calc_set_map),
    MeasureDef("set_F", sets.calc_set_F, DOUBLE_PARAMS, (1.0,)),
    MeasureDef("num_nonrel_judged_ret", sets.calc_num_nonrel_judged_ret, value=LONG, average=SUM),
    _prefs("prefs_num_prefs_poss", LONG, SUM),
    _prefs("prefs_num_prefs_ful", LONG, SUM),
    _prefs("prefs_num_prefs_ful_ret", LONG, SUM),
    _prefs("prefs_simp"),
    _prefs("prefs_pair"),
    _prefs("prefs_avgjg"),
    _prefs("prefs_avgjg_Rnonrel"),
    _prefs("prefs_simp_ret"),
    _prefs("prefs_pair_ret"),
    _prefs("prefs_avgjg_ret"),
    _prefs("prefs_avgjg_Rnonrel_ret"),
    _prefs("prefs_simp_imp"),
    _prefs("prefs_pair_imp"),
    _prefs("prefs_avgjg_imp"),
    _jg("map_avgjg"),
    _jg("P_avgjg", LONG_CUTOFFS, CUTOFFS),
    _jg("Rprec_mult_avgjg", DOUBLE_CUTOFFS, R_MULTIPLES),
    MeasureDef("yaap", ranked.calc_yaap),
    MeasureDef("rbp", gain.calc_rbp, PAIR_PARAMS),
    MeasureDef("rbp_resid", gain.calc_rbp_resid, PAIR_PARAMS),
    MeasureDef("unj", ranked.calc_unj, LONG_CUTOFFS, (5, 10, 20)),
)

BY_NAME: dict[str, MeasureDef] = {m.name: m for m in TABLE}

_OFFICIAL: tuple[str, ...] = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map")
_OFFICIAL += ("Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall")
    + ("set_relative_P", "set_map", "set_F"),
    "all_trec": _OFFICIAL
    + ("relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg")
    + ("relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G")
    + ("set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")
    + ("prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret")
    + ("prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")
    + ("prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}

__all__ = ["BY_NAME", "NICKNAMES", "TABLE", "MeasureDef", "MeasureFailure"]
