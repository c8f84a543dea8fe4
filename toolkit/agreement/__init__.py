"""Inter-assessor agreement: Cohen's kappa per pair, Fleiss' kappa, Krippendorff's alpha → ``AgreementResult``.

Heavy libraries (numpy, statsmodels, krippendorff) are imported inside the functions that use them.
"""

from toolkit.agreement.agree import agree, agreement_summary
from toolkit.agreement.judgments import JudgmentSource, Rating, load_judgments, read_judgments_tsv
from toolkit.agreement.result import (
    AgreementResult,
    AlphaResult,
    Binarised,
    FleissResult,
    GradeDistribution,
    Interval,
    Kappa,
    PairAgreement,
    TopicAgreement,
    Value,
)

__all__ = [
    "AgreementResult",
    "AlphaResult",
    "Binarised",
    "FleissResult",
    "GradeDistribution",
    "Interval",
    "JudgmentSource",
    "Kappa",
    "PairAgreement",
    "Rating",
    "TopicAgreement",
    "Value",
    "agree",
    "agreement_summary",
    "load_judgments",
    "read_judgments_tsv",
]
