"""l-diversity: distinct, entropy and recursive (c,l) (Machanavajjhala et al. 2007)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable, ClassValueCounts, SensitiveHistogram
from veil.errors import ParameterError
from veil.models._distributions import SensitiveAttributeModel, exact_ratio
from veil.models._facts import Param, RequirementKey

__all__ = ["DistinctLDiversity", "EntropyLDiversity", "RecursiveCLDiversity", "class_entropies", "distinct_values",
           "recursive_ratios"]

_REFERENCE = (
    "A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam, "
    "'l-diversity: privacy beyond k-anonymity', ACM TKDD 1(1), 2007"
)

#: Relative tolerance of the entropy comparison ``H(E) >= log l`` (entropies are
#: sums of logarithms and cannot be compared exactly; the tolerance is far below
#: the gap between two different entropies of classes of realistic size).
ENTROPY_RTOL = 1e-12


@dataclass(frozen=True)
class _LDiversity(SensitiveAttributeModel):
    """What the three instantiations share: all are monotone under generalization
    (Machanavajjhala et al., Theorem 4.1), and none can ask for more distinct
    values than the table holds."""

    monotone_generalization: ClassVar[bool] = True

    def _require_attainable(self, classes: ClassTable, l: float) -> None:
        owner = type(self).__name__
        distinct = int((self.histogram(classes).overall > 0).sum())
        if l > distinct * (1 + ENTROPY_RTOL):  # an l read back from an entropy (exp H) may exceed it by rounding
            raise ParameterError(
                f"{owner}(l={l:g}) cannot be met on {self.sensitive!r}: the table has only {distinct} "
                f"distinct value(s) of it, and a class can never hold more; choose l <= {distinct}."
            )


def class_entropies(counts: "np.ndarray | ClassValueCounts") -> np.ndarray:
    """Shannon entropy (natural log) of each class of a count matrix or of its pairs (0 for an empty class).

    Computed as :math:`\\log n - \\frac{1}{n}\\sum_v c_v \\log c_v`, with ``0 log 0 = 0``; the
    terms :math:`c_v \\log c_v` are added one by one in value order, so a matrix and its pairs
    give the same doubles.
    """
    if isinstance(counts, ClassValueCounts):
        c = counts.counts.astype(np.float64)
        clogc = counts.class_float_sums(c * np.log(c))  # added in value order, within each class
        n = counts.class_sizes().astype(np.float64)
    else:
        matrix = np.asarray(counts, dtype=np.float64)
        n = matrix.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(matrix > 0, matrix * np.log(np.where(matrix > 0, matrix, 1.0)), 0.0)
        clogc = np.cumsum(terms, axis=1)[:, -1] if terms.shape[1] else np.zeros(len(terms))  # left to right
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.where(n > 0, np.log(np.where(n > 0, n, 1.0)) - clogc / np.where(n > 0, n, 1.0), 0.0)
    return np.maximum(h, 0.0)


def distinct_values(hist: SensitiveHistogram) -> np.ndarray:
    """Distinct values per class (int64)."""
    return hist.distinct()


@dataclass(frozen=True)
class DistinctLDiversity(_LDiversity):
    """Every class holds at least ``l`` distinct values of the sensitive attribute.

    Parameters
    ----------
    sensitive : str
        The sensitive attribute.
    l : int, in [1, inf)
        The smallest number of distinct sensitive values per class.

    Raises
    ------
    ParameterError
        At evaluation, when ``l`` exceeds the number of distinct values of the
        attribute in the whole table (it cannot be met by any transformation).

    Notes
    -----
    .. math:: \\forall E:\\ |\\{ s : c_E(s) > 0 \\}| \\ge l

    Monotone under generalization (a merged class holds every value of its
    parts) and with suppression: whether a class satisfies the model does not
    depend on the other classes, and a merged class satisfies it as soon as
    one of its parts does, so a coarser node never suppresses more records.

    References
    ----------
    Machanavajjhala et al., ACM TKDD 1(1), 2007, Section 4.1 (distinct l-diversity,
    the "simplest" instantiation discussed after Definition 4.1).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable, ClassValueCounts, SensitiveHistogram
    >>> frame = pd.DataFrame({"zip": ["476**"] * 3 + ["4790*"] * 2,
    ...                       "disease": ["flu", "flu", "cancer", "flu", "hiv"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["disease"])
    >>> DistinctLDiversity(sensitive="disease", l=2).check(classes)
    True
    """

    l: int

    monotone_with_suppression: ClassVar[bool] = True
    reference: ClassVar[str] = _REFERENCE + ", Section 4.1 (distinct l-diversity)"
    config_key: ClassVar[str] = "distinct-l-diversity"
    label: ClassVar[str] = "distinct {l}-diversity ({sensitive})"
    parameters: ClassVar[tuple[Param, ...]] = SensitiveAttributeModel.parameters + (Param("l", "int", low=1),)
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("l", "l", ">=", "distinct l-diversity", report_field="distinct_l", aliases=("distinct_l",)),
    )

    @property
    def smallest_class(self) -> int:
        """``l``: a class of fewer records cannot hold ``l`` distinct values."""
        return self.l

    def distinct(self, classes: ClassTable) -> np.ndarray:
        """Distinct sensitive values per class."""
        return distinct_values(self.histogram(classes))

    def violating(self, classes: ClassTable) -> np.ndarray:
        self._require_attainable(classes, self.l)
        return self.distinct(classes) < self.l

    def achieved_level(self, classes: ClassTable) -> int:
        """The smallest number of distinct values in a class (0 when no class is left)."""
        d = self.distinct(classes)
        return int(d.min()) if len(d) else 0


@dataclass(frozen=True)
class EntropyLDiversity(_LDiversity):
    """The entropy of the sensitive values in every class is at least ``log l``.

    Parameters
    ----------
    sensitive : str
        The sensitive attribute.
    l : float, in [1, inf)
        The effective number of values required; ``l`` may be real.

    Notes
    -----
    .. math:: \\forall E:\\ H(E) = -\\sum_s p_E(s) \\ln p_E(s) \\ \\ge\\ \\ln l

    Natural logarithm; the base does not change which tables satisfy the
    model (both sides scale alike), but it fixes how the entropy is reported.
    The achieved level is the real number :math:`l^* = \\exp(\\min_E H(E))`,
    **not** truncated to an int.  The comparison allows a relative tolerance of
    :data:`ENTROPY_RTOL` (entropies are sums of logarithms; a class of two
    equally frequent values has entropy ``ln 2`` up to rounding).

    Monotone under generalization without suppression (entropy is concave, so a
    merged class has at least the smallest entropy of its parts; Machanavajjhala
    et al., Theorem 4.1), but **not** with suppression: a merged class may have
    less entropy than its most diverse part and then be suppressed.

    References
    ----------
    Machanavajjhala et al., ACM TKDD 1(1), 2007, Definition 4.2 (entropy l-diversity).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable, ClassValueCounts, SensitiveHistogram
    >>> frame = pd.DataFrame({"zip": ["a"] * 4, "disease": ["flu", "flu", "hiv", "hiv"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["disease"])
    >>> round(EntropyLDiversity(sensitive="disease", l=2).achieved_level(classes), 12)
    2.0
    """

    l: float

    reference: ClassVar[str] = _REFERENCE + ", Definition 4.2 (entropy l-diversity, natural log)"
    config_key: ClassVar[str] = "entropy-l-diversity"
    label: ClassVar[str] = "entropy {l:g}-diversity ({sensitive})"
    parameters: ClassVar[tuple[Param, ...]] = SensitiveAttributeModel.parameters + (Param("l", "float", low=1),)
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("entropy_l", "l", ">=", "entropy l-diversity (real)", report_field="entropy_l",
                       aliases=("l_entropy",)),
    )

    @property
    def smallest_class(self) -> int:
        """``floor(l)``: a class of fewer records holds at most ``floor(l) - 1`` distinct values, so its
        entropy is at most ``ln(floor(l) - 1)``, below ``ln l`` by more than the tolerance."""
        return int(math.floor(self.l))

    def entropies(self, classes: ClassTable) -> np.ndarray:
        """Entropy (natural log) of each class."""
        hist = self.histogram(classes)
        return class_entropies(hist.counts if hist.is_dense else hist.pairs)

    def violating(self, classes: ClassTable) -> np.ndarray:
        self._require_attainable(classes, self.l)
        bound = math.log(self.l)
        return self.entropies(classes) < bound - ENTROPY_RTOL * max(bound, 1.0)

    def achieved_level(self, classes: ClassTable) -> float:
        """:math:`\\exp(\\min_E H(E))` (0.0 when no class is left)."""
        h = self.entropies(classes)
        return float(math.exp(h.min())) if len(h) else 0.0


@dataclass(frozen=True)
class RecursiveCLDiversity(_LDiversity):
    """The most frequent sensitive value of every class is not too frequent.

    With the counts of a class sorted in descending order
    :math:`r_{(1)} \\ge r_{(2)} \\ge \\dots \\ge r_{(m)}`, the class satisfies
    recursive (c,l)-diversity when :math:`r_{(1)} < c \\sum_{i=l}^{m} r_{(i)}`
    (``strict=True``, Machanavajjhala et al.) or
    :math:`r_{(1)} \\le c \\sum_{i=l}^{m} r_{(i)}` (``strict=False``, as the
    seed notes write it).  A class with fewer than ``l`` distinct values has an
    empty tail and fails.

    Parameters
    ----------
    sensitive : str
        The sensitive attribute.
    c : float, in (0, inf)
        The constant.
    l : int, in [1, inf)
        The position where the tail starts.
    strict : bool, default True
        ``<`` (the paper) or ``<=`` (the seed).

    Notes
    -----
    The level reported by :meth:`achieved_level` is, for this ``l``,
    :math:`c^* = \\max_E r_{(1)}(E) / \\sum_{i \\ge l} r_{(i)}(E)` (``inf`` when a
    class has fewer than ``l`` distinct values).  With ``strict=False`` the
    table satisfies the model exactly when ``c >= c*``; with ``strict=True``
    ``c*`` is an infimum and the table needs ``c > c*``.  The comparison uses
    the ratio of the integer counts rounded once, so ``c == c*`` is decided exactly.

    Example by hand: the class ``{10, 1, 1}`` has :math:`r_{(1)} = 10` and,
    for ``l = 2``, a tail of ``1 + 1 = 2``: ``c* = 5`` (sorting ascending by
    mistake gives ``1 / (1 + 10) ``, nonsense).

    Monotone under generalization without suppression (Machanavajjhala et al.,
    Theorem 4.1), not with suppression (a merged class may fail although one of
    its parts satisfies the model).

    References
    ----------
    Machanavajjhala et al., ACM TKDD 1(1), 2007, Definition 4.3 (recursive
    (c,l)-diversity); seed 003, Definition 2.5.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable, ClassValueCounts, SensitiveHistogram
    >>> frame = pd.DataFrame({"zip": ["a"] * 12, "s": ["x"] * 10 + ["y", "z"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["s"])
    >>> RecursiveCLDiversity(sensitive="s", c=5, l=2).achieved_level(classes)
    5.0
    >>> RecursiveCLDiversity(sensitive="s", c=5, l=2).check(classes)
    False
    >>> RecursiveCLDiversity(sensitive="s", c=5, l=2, strict=False).check(classes)
    True
    """

    c: float
    l: int
    strict: bool = True

    reference: ClassVar[str] = _REFERENCE + ", Definition 4.3 (recursive (c,l)-diversity)"
    config_key: ClassVar[str] = "recursive-cl-diversity"
    label: ClassVar[str] = "recursive ({c:g},{l})-diversity ({sensitive})"  # name adds the form (< or <=)
    parameters: ClassVar[tuple[Param, ...]] = SensitiveAttributeModel.parameters + (
        Param("c", "float", low=0, closed="neither"), Param("l", "int", low=1), Param("strict", "bool"),
    )
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("c", "c", "<=", "recursive (c,l): smallest c at --recursive-l", report_field="recursive_c",
                       fixed={"l": 2}),
    )

    @property
    def smallest_class(self) -> int:
        """``l``: a class of fewer records has fewer than ``l`` distinct values, an empty tail."""
        return self.l

    def ratios(self, classes: ClassTable) -> np.ndarray:
        """Per class :math:`r_{(1)} / \\sum_{i \\ge l} r_{(i)}` (``inf`` for an empty tail)."""
        hist = self.histogram(classes)
        return recursive_ratios(hist.counts if hist.is_dense else hist.pairs, self.l)

    def violating(self, classes: ClassTable) -> np.ndarray:
        self._require_attainable(classes, self.l)
        ratio = self.ratios(classes)
        return ratio >= self.c if self.strict else ratio > self.c

    def achieved_level(self, classes: ClassTable) -> float:
        """:math:`c^*` for this ``l`` (see Notes); 0.0 when no class is left."""
        ratio = self.ratios(classes)
        return float(ratio.max()) if len(ratio) else 0.0

    @property
    def name(self) -> str:
        op = "<" if self.strict else "<="
        return f"recursive ({self.c:g},{self.l})-diversity ({self.sensitive}, r1 {op} c*tail)"


def recursive_ratios(counts: "np.ndarray | ClassValueCounts", l: int) -> np.ndarray:
    """Per row of a count matrix (or class of its pairs), :math:`r_{(1)} / \\sum_{i \\ge l} r_{(i)}`
    with counts sorted in **descending** order; ``inf`` when the tail is empty."""
    if isinstance(counts, ClassValueCounts):
        return _pair_ratios(counts, l)
    counts = np.asarray(counts, dtype=np.int64)
    if counts.shape[0] == 0:
        return np.zeros(0)
    ordered = -np.sort(-counts, axis=1)  # descending: r_(1) first
    top = ordered[:, 0] if ordered.shape[1] else np.zeros(len(ordered), np.int64)
    tail = ordered[:, l - 1 :].sum(axis=1) if ordered.shape[1] >= l else np.zeros(len(ordered), np.int64)
    ratio = exact_ratio(top, tail)
    return np.where(tail == 0, np.inf, ratio)


def _pair_ratios(pairs: ClassValueCounts, l: int) -> np.ndarray:
    """:func:`recursive_ratios` of pairs: each class's counts ranked by one sort of the pairs."""
    if pairs.n_classes == 0:
        return np.zeros(0)
    ranked = pairs.counts[np.lexsort((-pairs.counts, pairs.classes))]  # the classes stay in their order
    rank = np.arange(pairs.n_pairs, dtype=np.int64) - pairs.starts.take(pairs.classes)
    first = rank == 0
    top = np.zeros(pairs.n_classes, dtype=np.int64)
    top[pairs.classes[first]] = ranked[first]
    tail = pairs.class_sums(np.where(rank >= l - 1, ranked, 0))
    ratio = exact_ratio(top, tail)
    return np.where(tail == 0, np.inf, ratio)
