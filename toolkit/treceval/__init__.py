"""``trec-toolkit trec_eval``: a drop-in for trec_eval 10 — its options, its numbers, its bytes.

trec_eval is the reference every IR researcher trusts, and scripts parse its output. This package reproduces
trec_eval 10.0 (NIST, usnistgov/trec_eval) for TREC runs and qrels: the same option parsing
(``options``), the same file reading (``toolkit.formats.as_trec_eval``), the same measures computed with the
same double arithmetic (``measures``: a port of each ``m_*.c``), the same evaluation loop, averages and
exit codes (``evaluate``); ``toolkit.reports.trec_eval`` prints the lines. pytrec_eval is not used here: it
embeds trec_eval 9.x, whose iprec_at_recall/11pt_avg cutoffs, ``-c`` handling and float32 score comparison
differ from 10, and it lacks rbp, rbp_resid and unj.

    from toolkit.treceval import parse_options, trec_eval
    result = trec_eval(parse_options(["-q", "-m", "all_trec", "qrels.test", "results.test"]))
    result.lines, result.error        # OutputLine rows in print order; the error trec_eval stops with

Where trec_eval 10 itself is wrong (``num_rel`` under ``-c`` ignores ``-l``; a qrels topic missing from the run
stops it without ``-c``) the drop-in does the same; where it crashes or reads garbage it stops with a clear
error. docs/trec_eval.md lists every such case and how ``trec-toolkit score`` differs.
"""

from toolkit.treceval.errors import TrecEvalError
from toolkit.treceval.evaluate import OutputLine, TrecEvalResult, evaluate, trec_eval
from toolkit.treceval.options import Options, parse_options

#: The trec_eval release reproduced.
TREC_EVAL_VERSION = "10.0-rc3"

__all__ = [
    "TREC_EVAL_VERSION",
    "Options",
    "OutputLine",
    "TrecEvalError",
    "TrecEvalResult",
    "evaluate",
    "parse_options",
    "trec_eval",
]
