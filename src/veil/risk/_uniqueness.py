"""Population uniqueness estimated from a sample: Zayatz, Pitman, SNB and Dankar's rule.

All three models read only the sample's *frequency of frequencies*
:math:`f_i` (the number of classes of size :math:`i`), the sample size
:math:`n`, and the sampling fraction :math:`\\pi = n/N`.  They estimate how
many records of the population are unique on the quasi-identifiers.  They are
numerical and can fail (no solution, a solution outside its domain): each
estimate carries a ``valid`` flag, and a failed one is ``None``, never NaN.

Two cases are exact and short-circuit the models: no sample uniques
(:math:`f_1 = 0`) gives 0 population uniques for every model (as in ARX),
and :math:`\\pi = 1` (the sample is the population) gives :math:`f_1`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._validation import check_int, check_real
from veil.errors import ParameterError
from veil.risk._common import as_classes
from veil.risk._estimators import (
    UniquenessEstimate,
    _failed,
    _frequencies,
    pitman_uniques,
    shlosser_population_classes,
    snb_uniques,
    zayatz_uniques,
)

__all__ = [
    "UniquenessEstimate",
    "PopulationUniqueness",
    "population_uniqueness",
    "MAX_POPULATION_SIZE",
    "pitman_uniques",
    "zayatz_uniques",
    "snb_uniques",
    "shlosser_population_classes",
]

MODELS = ("pitman", "zayatz", "snb")

#: The largest population size :math:`N` (given, or implied as :math:`n/\pi` by a
#: sampling fraction) the uniqueness models accept: 2**53, the largest range in
#: which float64 holds every integer, since the estimators compute in float64
#: (checked against 60-digit references up to :math:`N = 2^{53}`).  A smaller
#: fraction is refused; beyond it :math:`q^2` soon underflows in the Shlosser
#: estimate, and :math:`n/\pi` overflows altogether near 1e-308.
MAX_POPULATION_SIZE: int = 2**53


def _at_least(value: float) -> str:
    """``value`` rounded *up* to 3 significant digits, for a lower bound in a message."""
    if value <= 0:
        return "0"
    scale = 10.0 ** (math.floor(math.log10(value)) - 2)
    shown = math.ceil(value / scale) * scale
    return f"{shown:.3g}" if float(f"{shown:.3g}") >= value else f"{value:.17g}"


def population_from_fraction(n: int, fraction: Any, name: str, owner: str) -> int:
    """:math:`N = \\max(\\mathrm{round}(n/\\pi), n)` for a sample of ``n`` records, ``fraction`` validated.

    Raises
    ------
    ParameterError
        ``fraction`` is not a float in (0, 1], or so small that :math:`n/\\pi`
        exceeds :data:`MAX_POPULATION_SIZE`.
    """
    pi = check_real(name, fraction, owner, low=0.0, high=1.0, closed="right")
    implied = n / pi  # a float: inf rather than an OverflowError for a subnormal fraction
    if implied > MAX_POPULATION_SIZE:
        raise ParameterError(
            f"The {name!r} parameter of {owner} is too small for {n} records: the population it implies "
            f"(n / fraction = {implied:.3g}) must be at most 2**53 = {MAX_POPULATION_SIZE}, the largest the "
            f"uniqueness models compute exactly, so the fraction must be at least {_at_least(n / MAX_POPULATION_SIZE)}. "
            f"Got {pi!r} instead."
        )
    return max(int(round(implied)), n)


# ---------------------------------------------------------------------- Dankar
@dataclass(frozen=True)
class PopulationUniqueness:
    """Population uniques estimated from a sample by every model, and Dankar's choice.

    Attributes
    ----------
    sample_size : int
        :math:`n`, the sample's records (suppressed ones excluded).
    population_size : int
        :math:`N`.
    sampling_fraction : float
        :math:`\\pi = n/N`.
    sample_uniques : int
        :math:`f_1`.
    pitman, zayatz, snb : UniquenessEstimate
    dankar : UniquenessEstimate
        The estimate Dankar et al.'s rule picks.
    model_used : str or None
        The model behind ``dankar`` (``"pitman"``, ``"zayatz"``, ``"snb"``), or
        ``"none"`` when there are no sample uniques or ``"sample"`` when
        :math:`\\pi = 1`; ``None`` when every candidate failed.
    observed : float or None
        The true fraction of population uniques, when the population is known.
    population_classes : float or None
        :math:`\\hat K`, the estimated number of non-empty population classes
        (Haas et al.'s Shlosser-type estimator, the one SNB uses).  With no
        sample uniques or :math:`\\pi = 1` it is the number of sample classes.
    """

    sample_size: int
    population_size: int
    sampling_fraction: float
    sample_uniques: int
    pitman: UniquenessEstimate
    zayatz: UniquenessEstimate
    snb: UniquenessEstimate
    dankar: UniquenessEstimate
    model_used: str | None
    observed: float | None = None
    population_classes: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pitman": self.pitman.fraction,
            "zayatz": self.zayatz.fraction,
            "snb": self.snb.fraction,
            "dankar": self.dankar.fraction,
            "model_used": self.model_used,
            "valid": {m: getattr(self, m).valid for m in ("pitman", "zayatz", "snb", "dankar")},
            "sampling_fraction": self.sampling_fraction,
            "population_size": self.population_size,
            "population_classes": self.population_classes,
        }
        if self.observed is not None:
            out["observed"] = self.observed
        return out


def _dankar(pitman: UniquenessEstimate, zayatz: UniquenessEstimate, snb: UniquenessEstimate,
            sampling_fraction: float) -> tuple[UniquenessEstimate, str | None]:
    if sampling_fraction <= 0.1:
        chosen = pitman if pitman.valid else zayatz
    elif snb.valid and zayatz.valid:
        chosen = zayatz if zayatz.uniques < snb.uniques else snb  # type: ignore[operator]
    elif snb.valid:
        chosen = snb
    else:
        chosen = zayatz
    if not chosen.valid:
        return _failed("dankar", "every candidate model failed"), None
    return UniquenessEstimate("dankar", chosen.uniques, chosen.fraction, True, "", dict(chosen.parameters)), chosen.model


def _uniqueness_from_counts(counts: np.ndarray, big_n: int) -> PopulationUniqueness:
    sizes, freq = _frequencies(counts)
    n = int(np.dot(sizes, freq)) if len(sizes) else 0
    f1 = int(freq[sizes == 1].sum()) if len(sizes) else 0
    pi = n / big_n if big_n else 1.0
    if n == 0 or f1 == 0 or big_n == n:
        value = float(f1)
        exact = {m: UniquenessEstimate(m, value, value / big_n if big_n else 0.0, True) for m in MODELS + ("dankar",)}
        used = "none" if f1 == 0 else "sample"
        classes = shlosser_population_classes(sizes, freq, pi) if n else None
        return PopulationUniqueness(n, big_n, pi, f1, exact["pitman"], exact["zayatz"], exact["snb"],
                                    exact["dankar"], used, population_classes=classes)
    zayatz = zayatz_uniques(sizes, freq, n, big_n)
    pitman = pitman_uniques(sizes, freq, n, big_n)
    snb = snb_uniques(sizes, freq, n, big_n)
    dankar, used = _dankar(pitman, zayatz, snb, pi)
    classes = shlosser_population_classes(sizes, freq, pi)
    return PopulationUniqueness(n, big_n, pi, f1, pitman, zayatz, snb, dankar, used,
                                population_classes=classes if math.isfinite(classes) else None)


def population_uniqueness(
    classes: Any, *, sampling_fraction: float | None = None, population_size: int | None = None,
) -> PopulationUniqueness:
    """Estimate the population uniques of a sample with Pitman, Zayatz, SNB and Dankar's rule.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
        The sample (its class sizes are all that is read).
    sampling_fraction : float in (0, 1], optional
        :math:`\\pi = n/N`.  Give this or ``population_size``.
    population_size : int, optional
        :math:`N \\ge n`.

    Returns
    -------
    PopulationUniqueness
        Every model's estimate (``None`` with ``valid=False`` where a model
        failed) and the one Dankar's rule picks, with ``model_used``.

    Raises
    ------
    ParameterError
        Neither or both of ``sampling_fraction`` and ``population_size``; a
        fraction outside (0, 1]; a population smaller than the sample or
        (given or implied as :math:`n/\\pi`) larger than
        :data:`MAX_POPULATION_SIZE` (2**53).

    Notes
    -----
    Dankar et al.'s decision rule, as in ARX: when :math:`\\pi \\le 0.1` use
    Pitman (falling back to Zayatz when Pitman fails); otherwise use the
    smaller of Zayatz and SNB (Zayatz alone when SNB fails).  :math:`N` is
    :math:`\\mathrm{round}(n/\\pi)`.

    References
    ----------
    F. K. Dankar, K. El Emam, A. Neisa and T. Roffey, "Estimating the
    re-identification risk of clinical data sets", BMC Medical Informatics and
    Decision Making 12:66, 2012.
    N. Hoshino, J. Official Statistics 17(4), 2001 (Pitman).
    L. Zayatz, U.S. Census Bureau report RR-91/08, 1991.
    G. Chen and S. Keller-McNulty, J. Official Statistics 14(1), 1998 (SNB).

    Examples
    --------
    >>> from veil.datasets import load_din_table
    >>> result = population_uniqueness(load_din_table(), sampling_fraction=1.0)
    >>> result.dankar.uniques, result.model_used
    (6.0, 'sample')
    """
    table = as_classes(classes, owner="population_uniqueness")
    return _uniqueness_from_counts(table.counts, _population(int(table.counts.sum()), sampling_fraction, population_size))


def _population(n: int, sampling_fraction: float | None, population_size: int | None) -> int:
    """:math:`N` from exactly one of the sampling fraction and the population size (at least ``n``)."""
    if (sampling_fraction is None) == (population_size is None):
        raise ParameterError(
            "population_uniqueness needs exactly one of sampling_fraction and population_size."
        )
    if sampling_fraction is not None:
        big_n = population_from_fraction(n, sampling_fraction, "sampling_fraction", "population_uniqueness")
    else:
        big_n = check_int("population_size", population_size, "population_uniqueness", low=1, high=MAX_POPULATION_SIZE)
        if big_n < n:
            raise ParameterError(
                f"The 'population_size' parameter of population_uniqueness must be at least the sample "
                f"size ({n}). Got {big_n} instead."
            )
    return big_n
