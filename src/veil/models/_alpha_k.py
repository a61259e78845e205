"""(α,k)-anonymity (Wong, Li, Fu & Wang, KDD 2006)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.models._base import PrivacyModel
from veil.models._facts import Param, RequirementKey, validate
from veil.models._distributions import exact_ratio, histogram

__all__ = ["AlphaKAnonymity"]


@dataclass(frozen=True)
class AlphaKAnonymity(PrivacyModel):
    """k-anonymity, and no sensitive value makes up more than ``alpha`` of a class.

    Parameters
    ----------
    sensitive : str
    alpha : float, in (0, 1]
        The largest allowed share of a sensitive value in a class.
    k : int, in [1, inf)
    values : tuple of str, optional
        The sensitive values to protect (Wong et al. protect one value); by
        default every value of the attribute.

    Notes
    -----
    .. math:: \\forall E:\\ |E| \\ge k \\ \\wedge\\ \\forall s \\in V:\\ \\frac{c_E(s)}{|E|} \\le \\alpha

    The achieved level is the pair ``{alpha, k}``: ``k`` the smallest class
    size and ``alpha`` the largest share of a protected value in a class (for
    every value: the share of the most frequent one), an exact ratio rounded once.

    Monotone under generalization (a merged class is larger, and its shares are
    weighted means of its parts').  Not monotone with suppression: a merged
    class may exceed ``alpha`` although one part did not, and be suppressed.

    References
    ----------
    R. C.-W. Wong, J. Li, A. W.-C. Fu, K. Wang, '(α,k)-anonymity: an enhanced
    k-anonymity model for privacy-preserving data publishing', KDD 2006, Definition 2.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"q": ["a"] * 4, "s": ["x", "x", "x", "y"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    >>> AlphaKAnonymity(sensitive="s", alpha=0.75, k=4).achieved_level(classes)
    {'alpha': 0.75, 'k': 4}
    """

    sensitive: str
    alpha: float
    k: int
    values: tuple[str, ...] | None = field(default=None)

    monotone_generalization: ClassVar[bool] = True
    class_local: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = False
    needs_sensitive: ClassVar[bool] = True
    reference: ClassVar[str] = "Wong, Li, Fu & Wang, KDD 2006, Definition 2"
    config_key: ClassVar[str] = "alpha-k-anonymity"
    label: ClassVar[str] = "({alpha:g},{k})-anonymity ({sensitive})"
    parameters: ClassVar[tuple[Param, ...]] = (Param("sensitive", "str"), Param("alpha", "float", low=0, high=1, closed="right"),
                                              Param("k", "int", low=1))
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("alpha", "alpha", "<=", "(alpha,k): largest value share", report_field="alpha", fixed={"k": 1}),
    )

    def __post_init__(self) -> None:
        validate(self)
        if self.values is not None:
            object.__setattr__(self, "values", tuple(str(v) for v in self.values))

    def shares(self, classes: ClassTable) -> np.ndarray:
        """Per class, the largest share of a protected value."""
        hist = histogram(classes, self.sensitive, "AlphaKAnonymity")
        if self.values is None:  # every value: each class's most frequent one (from the pairs, for many values)
            if hist.n_classes == 0 or hist.n_values == 0:
                return np.zeros(hist.n_classes)
            return exact_ratio(hist.class_top(), classes.counts)
        labels = [str(x) for x in hist.labels]
        missing = [v for v in self.values if v not in labels]
        if missing:
            raise ParameterError(
                f"AlphaKAnonymity: the protected value(s) {missing!r} are not values of {self.sensitive!r}."
            )
        counts = hist.columns([labels.index(v) for v in self.values])
        if counts.shape[0] == 0 or counts.shape[1] == 0:
            return np.zeros(counts.shape[0])
        return exact_ratio(counts.max(axis=1), classes.counts)

    def violating(self, classes: ClassTable) -> np.ndarray:
        return (classes.counts < self.k) | (self.shares(classes) > self.alpha)

    def achieved_level(self, classes: ClassTable) -> dict[str, float | int]:
        """``{"alpha": max share, "k": min class size}``."""
        if classes.n_classes == 0:
            return {"alpha": 0.0, "k": 0}
        return {"alpha": float(self.shares(classes).max()), "k": int(classes.counts.min())}
