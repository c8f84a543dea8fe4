"""The measures, declared once: trec_eval 10's table in its order (the order every output line follows), its
nicknames, and the measures it lacks that are computed the same way (``BEYOND``).

A row (``MeasureDef``) carries the trec_eval name, the ir_measures name and which ir_measures parameter holds
trec_eval's parameter, how parameters are read, how values are printed and averaged, the reference port
(``calc``) and, where one exists, the vectorised kernel (``kernel``). Everything else is derived from it: the
drop-in's ``-m`` names, ``score``'s measure names and the trec_eval names it prints, which measures the
toolkit's ir_measures provider serves (``toolkit.scoring.provider``), the generated tests and the measure
table of docs/scoring.md.

Measures that need another judgment format (preferences, ``-R prefs``; judgment groups, ``-R qrels_jg``) are
listed so that their names are legal, as in trec_eval; computing one with a qrels file fails as trec_eval fails
(exit 4), since the drop-in reads qrels only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit.treceval import vector
from toolkit.treceval.measures import beyond, gain, ranked, sets
from toolkit.treceval.measures.base import (
    ABSENT,
    DOUBLE_CUTOFFS,
    DOUBLE_PARAMS,
    GEOMETRIC,
    GIVEN,
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
    MeasureDef(
        "runid",
        sets.calc_runid,
        value=RUNID,
        per_topic=False,
        average=NOTHING,
        uses_res_rels=False,
        about="the run's tag (not a value)",
    ),
    MeasureDef(
        "num_q",
        sets.calc_num_q,
        value=LONG,
        per_topic=False,
        average=NUM_Q,
        uses_res_rels=False,
        ir="NumQ",
        kernel=vector._num_q,
        about="topics evaluated",
    ),
    MeasureDef(
        "num_ret",
        sets.calc_num_ret,
        value=LONG,
        average=SUM,
        ir="NumRet",
        ir_when=(("rel", ABSENT),),
        kernel=vector._num_ret,
        about="docs retrieved",
    ),
    MeasureDef(
        "num_rel",
        sets.calc_num_rel,
        value=LONG,
        average=NUM_REL,
        ir="NumRel",
        kernel=vector._num_rel,
        about="relevant docs in the qrels",
    ),
    MeasureDef(
        "num_rel_ret",
        sets.calc_num_rel_ret,
        value=LONG,
        average=SUM,
        ir="NumRet",
        ir_when=(("rel", GIVEN),),
        kernel=vector._num_rel_ret,
        about="relevant docs retrieved",
    ),
    MeasureDef("map", ranked.calc_map, ir="AP", kernel=vector._map, about="average precision"),
    MeasureDef(
        "gm_map",
        ranked.calc_gm_map,
        per_topic=False,
        average=GEOMETRIC,
        kernel=vector._gm_map,
        about="geometric mean over topics of AP floored at 1e-5",
    ),
    MeasureDef("Rprec", ranked.calc_Rprec, ir="Rprec", kernel=vector._rprec, about="precision after R docs"),
    MeasureDef("bpref", ranked.calc_bpref, ir="Bpref", kernel=vector._bpref, about="binary preference"),
    MeasureDef(
        "recip_rank",
        ranked.calc_recip_rank,
        ir="RR",
        kernel=vector._recip_rank,
        about="reciprocal rank",
    ),
    MeasureDef(
        "iprec_at_recall",
        sets.calc_iprec_at_recall,
        DOUBLE_CUTOFFS,
        RECALL_LEVELS,
        ir="IPrec",
        ir_param="recall",
        kernel=vector._iprec_at_recall,
        about="interpolated precision at a recall level",
    ),
    MeasureDef(
        "P",
        ranked.calc_P,
        LONG_CUTOFFS,
        CUTOFFS,
        ir="P",
        ir_param="cutoff",
        kernel=vector._precision,
        about="precision at k",
    ),
    MeasureDef(
        "relstring",
        ranked.calc_relstring,
        DOUBLE_PARAMS,
        (10.0,),
        value=STRING,
        average=NOTHING,
        about="the grades of the top docs as text",
    ),
    MeasureDef(
        "recall",
        ranked.calc_recall,
        LONG_CUTOFFS,
        CUTOFFS,
        ir="R",
        ir_param="cutoff",
        kernel=vector._recall,
        about="recall at k",
    ),
    MeasureDef("infAP", ranked.calc_infAP, ir="infAP", about="inferred AP (sampled pools)"),
    MeasureDef(
        "gm_bpref",
        ranked.calc_gm_bpref,
        per_topic=False,
        average=GEOMETRIC,
        about="geometric mean over topics of bpref floored at 1e-5",
    ),
    MeasureDef(
        "Rprec_mult",
        sets.calc_Rprec_mult,
        DOUBLE_CUTOFFS,
        R_MULTIPLES,
        about="precision after a multiple of R docs",
    ),
    MeasureDef(
        "utility",
        sets.calc_utility,
        DOUBLE_PARAMS,
        (1.0, -1.0, 0.0, 0.0),
        about="a·rel ret + b·nonrel ret + c·nonrel unret + d·rel unret",
    ),
    MeasureDef(
        "11pt_avg",
        sets.calc_11pt_avg,
        DOUBLE_PARAMS,
        RECALL_LEVELS,
        kernel=vector._11pt_avg,
        about="mean interpolated precision at 11 recall levels",
    ),
    MeasureDef("binG", ranked.calc_binG, about="binary G"),
    MeasureDef("G", gain.calc_G, PAIR_PARAMS, about="normalised cumulative gain with a rank penalty"),
    MeasureDef("dcg", gain.calc_dcg, PAIR_PARAMS, param_group="ndcg", about="discounted cumulative gain"),
    MeasureDef(
        "ideal_dcg",
        gain.calc_ideal_dcg,
        PAIR_PARAMS,
        param_group="ndcg",
        about="DCG of the ideal ranking",
    ),
    MeasureDef(
        "ndcg",
        gain.calc_ndcg,
        PAIR_PARAMS,
        param_group="ndcg",
        ir="nDCG",
        kernel=vector._ndcg,
        about="normalised DCG over the whole ranking",
    ),
    MeasureDef("ndcg_rel", gain.calc_ndcg_rel, PAIR_PARAMS, about="nDCG averaged over the relevant docs"),
    MeasureDef("Rndcg", gain.calc_Rndcg, PAIR_PARAMS, about="nDCG after R docs"),
    MeasureDef(
        "ndcg_cut",
        gain.calc_ndcg_cut,
        LONG_CUTOFFS,
        CUTOFFS,
        ir="nDCG",
        ir_param="cutoff",
        kernel=vector._ndcg_cut,
        about="nDCG at k",
    ),
    MeasureDef(
        "map_cut",
        ranked.calc_map_cut,
        LONG_CUTOFFS,
        CUTOFFS,
        ir="AP",
        ir_param="cutoff",
        kernel=vector._map_cut,
        about="AP over the top k",
    ),
    MeasureDef(
        "relative_P",
        ranked.calc_relative_P,
        LONG_CUTOFFS,
        CUTOFFS,
        kernel=vector._relative_p,
        about="precision at k over min(k, R)",
    ),
    MeasureDef(
        "success",
        ranked.calc_success,
        LONG_CUTOFFS,
        (1, 5, 10),
        ir="Success",
        ir_param="cutoff",
        kernel=vector._success,
        about="a relevant doc in the top k",
    ),
    MeasureDef("set_P", sets.calc_set_P, ir="SetP", kernel=vector._set_p, about="precision of the set"),
    MeasureDef(
        "set_relative_P",
        sets.calc_set_relative_P,
        ir="SetP",
        ir_when=(("relative", True),),
        about="set precision over min(retrieved, R)",
    ),
    MeasureDef(
        "set_recall",
        sets.calc_set_recall,
        ir="SetR",
        kernel=vector._set_recall,
        about="recall of the set",
    ),
    MeasureDef("set_map", sets.calc_set_map, ir="SetAP", about="set precision × set recall"),
    MeasureDef(
        "set_F",
        sets.calc_set_F,
        DOUBLE_PARAMS,
        (1.0,),
        ir="SetF",
        ir_param="beta",
        about="F of the set",
    ),
    MeasureDef(
        "num_nonrel_judged_ret",
        sets.calc_num_nonrel_judged_ret,
        value=LONG,
        average=SUM,
        kernel=vector._num_nonrel_judged_ret,
        about="retrieved docs judged non-relevant",
    ),
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
    MeasureDef("yaap", ranked.calc_yaap, about="yet another AP (Robertson)"),
    MeasureDef("rbp", gain.calc_rbp, PAIR_PARAMS, about="rank-biased precision"),
    MeasureDef("rbp_resid", gain.calc_rbp_resid, PAIR_PARAMS, about="rbp's residual"),
    MeasureDef(
        "unj",
        ranked.calc_unj,
        LONG_CUTOFFS,
        (5, 10, 20),
        about="unjudged docs in the top k, over k",
    ),
)

#: Measures trec_eval lacks, computed on the same relevance lists (``beyond``); ``name`` is internal here,
#: the ir_measures spelling is what people write.
BEYOND: tuple[MeasureDef, ...] = (
    MeasureDef(
        "RR@k",
        beyond.calc_recip_rank_cut,
        LONG_CUTOFFS,
        (),
        ir="RR",
        ir_param="cutoff",
        kernel=beyond.recip_rank_cut,
        in_trec_eval=False,
        about="reciprocal rank within the top k",
    ),
    MeasureDef(
        "ERR",
        beyond.calc_err,
        LONG_CUTOFFS,
        (),
        ir="ERR",
        ir_param="cutoff",
        kernel=beyond.err,
        in_trec_eval=False,
        about="expected reciprocal rank (gdeval's grade scale 0–4)",
    ),
    # Inferred measures: estimated from a sampled pool's qrels with inclusion probabilities (five columns), by
    # ``toolkit.scoring.inferred``, with a variance and an interval; a ranked relevance list has no
    # probabilities, so the calc only says where they are computed.
    MeasureDef(
        "statAP",
        _other_format("statAP", "probs"),
        rel_format="probs",
        in_trec_eval=False,
        about="AP estimated from a sampled pool (Pavlu & Aslam 2007; an estimate, with an interval)",
    ),
    MeasureDef(
        "infNDCG",
        _other_format("infNDCG", "probs"),
        LONG_CUTOFFS,
        (),
        rel_format="probs",
        in_trec_eval=False,
        about="nDCG@k estimated from a sampled pool (Yilmaz, Kanoulas & Aslam 2008; an estimate, with an interval)",
    ),
)

#: Every measure: trec_eval's table, then the measures it lacks.
MEASURES: tuple[MeasureDef, ...] = TABLE + BEYOND

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

__all__ = ["BEYOND", "BY_NAME", "MEASURES", "NICKNAMES", "TABLE", "MeasureDef", "MeasureFailure"]
