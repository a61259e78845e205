"""Post-processing of noisy answers: it never touches the raw data, so it costs no privacy.

Any function of a DP output is DP with the same (ε, δ) (Dwork & Roth 2014,
Prop. 2.1), as long as it does not read the original table again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from veil._validation import check_real
from veil.errors import ParameterError

__all__ = ["round_counts", "clamp_nonnegative", "consistent_counts"]


def _finite(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"The {name!r} must be finite numbers.")
    return arr


def round_counts(values: Any) -> np.ndarray:
    """Round noisy counts to the nearest integer (ties to even), as int64."""
    return np.rint(_finite(values, "values")).astype(np.int64)


def clamp_nonnegative(values: Any) -> np.ndarray:
    """Replace negative noisy counts by 0."""
    return np.maximum(_finite(values, "values"), 0.0)


def consistent_counts(counts: Any, total: float, *, total_variance_ratio: float = 1.0) -> np.ndarray:
    """Adjust noisy part-counts so that they add up to a (noisy) total, by least squares.

    Parameters
    ----------
    counts : array of float
        The k noisy counts of disjoint parts.
    total : float
        The noisy total of all parts.
    total_variance_ratio : float in [0, inf)
        Var(total noise) / Var(one count's noise).  1 when the total was
        released with the same mechanism; 0 when the total is exact (public),
        which gives the orthogonal projection onto ``sum(x) = total``.

    Returns
    -------
    numpy.ndarray
        :math:`x = c + \\frac{t - \\sum c}{k + r}\\,\\mathbf 1` (r = the ratio),
        the generalized-least-squares estimate of the true counts given both
        releases.  With r = 0, :math:`\\sum x = t` exactly.

    Examples
    --------
    The lecture's exam (true 170 passed / 82 failed; noisy 167.7 / 83.4), with
    a public total of 252 students:

    >>> consistent_counts([167.7, 83.4], 252, total_variance_ratio=0).round(2).tolist()
    [168.15, 83.85]
    """
    c = _finite(counts, "counts").ravel()
    t = check_real("total", total, "consistent_counts")
    r = check_real("total_variance_ratio", total_variance_ratio, "consistent_counts", low=0.0)
    if c.size == 0:
        raise ParameterError("consistent_counts needs at least one count.")
    return c + (t - c.sum()) / (c.size + r)
