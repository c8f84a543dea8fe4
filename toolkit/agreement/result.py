"""Result records of an agreement analysis: frozen, and honest about what could not be computed.

Every number that can be undefined is a ``Value`` (or an ``Interval``) carrying either the number or the reason
it is missing. A kappa of two assessors who each gave every item the same grade is not 0 and not NaN: chance
agreement is total and the statistic does not exist. Reporting the reason keeps such a campaign from looking
like one with poor (or perfect) agreement.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Value:
    """A number, or ``None`` together with the reason it is undefined (never both, never neither)."""

    value: float | None
    reason: str | None = None

    def __post_init__(self) -> None:
        if (self.value is None) == (self.reason is None):
            raise ValueError("Value needs exactly one of value and reason")
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(f"Value must be finite, got {self.value!r}; give a reason instead")

    @classmethod
    def undefined(cls, reason: str) -> Value:
        return cls(None, reason)

    @property
    def defined(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class Interval:
    """A confidence interval ``[low, high]``, or the reason there is none."""

    low: float | None
    high: float | None
    reason: str | None = None

    def __post_init__(self) -> None:
        bounds_missing = self.low is None or self.high is None
        if bounds_missing != (self.reason is not None):
            raise ValueError("Interval needs both bounds, or a reason and no bounds")

    @classmethod
    def undefined(cls, reason: str) -> Interval:
        return cls(None, None, reason)

    def pair(self) -> list[float] | None:
        return None if self.low is None or self.high is None else [self.low, self.high]


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa under one weighting, with the analytic (asymptotic) and the topic-bootstrap 95% CIs.

    ``weights`` is ``unweighted``, ``linear`` or ``quadratic``; weighted disagreement uses the label *values*
    (|i - j| or (i - j)², which for 0..3 is the usual index weighting).
    """

    weights: str
    estimate: Value
    se: Value
    ci95: Interval
    ci95_bootstrap: Interval
    #: topic resamples where kappa was undefined and which the bootstrap CI therefore leaves out.
    bootstrap_dropped: int = 0


@dataclass(frozen=True)
class Binarised:
    """Agreement after mapping grades to relevant (grade ≥ ``threshold``) or not.

    ``overlap`` is Voorhees' overlap: |both relevant| / |either relevant|.
    """

    threshold: int
    kappa: Kappa
    overlap: Value
    both_relevant: int
    either_relevant: int


@dataclass(frozen=True)
class TopicAgreement:
    """One pair's agreement on the shared items of one topic."""

    query_id: str
    n: int
    percent_agreement: Value
    unweighted: Value
    linear: Value
    quadratic: Value


@dataclass(frozen=True)
class PairAgreement:
    """Two assessors on the items both judged. ``confusion[i][j]``: items ``a`` graded ``labels[i]`` and ``b``
    graded ``labels[j]``."""

    a: str
    b: str
    n: int
    n_topics: int
    percent_agreement: Value
    unweighted: Kappa
    linear: Kappa
    quadratic: Kappa
    binarised: tuple[Binarised, ...]
    confusion: tuple[tuple[int, ...], ...]
    per_topic: tuple[TopicAgreement, ...]

    def kappa(self, weights: str) -> Kappa:
        return {"unweighted": self.unweighted, "linear": self.linear, "quadratic": self.quadratic}[weights]


@dataclass(frozen=True)
class FleissResult:
    """Fleiss' kappa over the items judged by exactly ``raters_per_item`` assessors.

    Fleiss' kappa needs the same number of ratings on every item; the group with the most items is used (ties:
    the larger number of raters) and the others are counted in ``items_excluded``.
    """

    estimate: Value
    n_items: int
    raters_per_item: int | None
    items_excluded: int


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha over all assessors and items (missing judgments allowed)."""

    nominal: Value
    ordinal: Value
    interval: Value
    n_items: int
    n_pairable: int


@dataclass(frozen=True)
class GradeDistribution:
    """How often one assessor used each label (over all their judgments, shared or not)."""

    assessor: str
    n: int
    counts: tuple[int, ...]


@dataclass(frozen=True)
class AgreementResult:
    """Everything ``agree`` computes; render it with ``toolkit.reports`` (``agreement_document``)."""

    labels: tuple[int, ...]
    seed: int
    bootstrap: int
    assessors: tuple[str, ...]
    n_judgments: int
    n_items: int
    pairs: tuple[PairAgreement, ...]
    fleiss: FleissResult
    krippendorff: AlphaResult
    distributions: tuple[GradeDistribution, ...]
    versions: Mapping[str, str] = field(default_factory=dict)

    @property
    def nothing_to_compare(self) -> str | None:
        """Why there is no agreement at all to report — no item graded by two assessors — or None."""
        if any(p.n for p in self.pairs):
            return None
        people = f"{len(self.assessors)} assessor{'s' if len(self.assessors) != 1 else ''}"
        items = f"{self.n_items} graded item{'s' if self.n_items != 1 else ''}"
        return f"no item has grades from two assessors ({people}, {items})"
