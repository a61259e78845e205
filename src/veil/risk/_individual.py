"""Individual re-identification risk with sampling weights (Benedetti & Franconi; sdcMicro's ``indivRisk``).

A survey is a sample; each record carries a sampling weight :math:`w_i`, the
number of population units it stands for.  For the class :math:`k` of a
record (its combination of quasi-identifier values):

* :math:`f_k`, the records of the sample in the class;
* :math:`F_k = \\sum_{i \\in k} w_i`, the class's estimated population size;
* :math:`r_k`, the probability that a match on the QIs is correct, the mean of
  :math:`1/F` under the negative-binomial posterior of the population size
  :math:`F` given :math:`f_k` (Benedetti & Franconi 1998; Franconi & Polettini
  2004), with :math:`p_k = f_k / F_k`:

  .. math::

      r_k = E[1/F \\mid f_k] = \\sum_{h \\ge 0} \\frac{1}{f_k + h}
            \\binom{f_k + h - 1}{h} p_k^{f_k} (1 - p_k)^h
          = \\frac{p_k}{f_k}\\, {}_2F_1(1, 1; f_k + 1; 1 - p_k).

Closed forms: :math:`f_k = 1`: :math:`\\frac{p}{1-p}\\log\\frac1p`;
:math:`f_k = 2`: :math:`\\frac{p}{1-p} - (\\frac{p}{1-p})^2\\log\\frac1p`;
:math:`f_k > 2`: ``method="exact"`` the series above (sdcMicro sums an
alternating series of the same value; veil evaluates the hypergeometric form,
which stays finite for any :math:`f_k`), ``method="approx"``
:math:`p/(f_k - (1 - p))` (sdcMicro's default).  Where :math:`F_k = f_k`
(every weight 1: the sample is the population) :math:`r_k = 1/f_k`.

Global risk (sdcMicro's ``measure_risk``): the expected number of
re-identifications :math:`ER = \\sum_i r_i`, its share :math:`ER/n` (which is
the mean risk), and the highest risk.  Household risk: a household is
re-identified when any member is, :math:`r^h_i = 1 - \\prod_{j \\in h(i)} (1 - r_j)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_real
from veil.classes import factorize_keys, pack_codes
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, SchemaError

__all__ = ["IndividualRisk", "individual_risk", "risk_from_frequencies", "HISTOGRAM_EDGES", "record_classes"]

#: The histogram's bins: ten of width 0.1 over [0, 1] (the last closed).
HISTOGRAM_EDGES = tuple(round(0.1 * i, 1) for i in range(11))


def risk_from_frequencies(fk: np.ndarray, big_fk: np.ndarray, *, method: str = "approx") -> np.ndarray:
    """The individual risk :math:`r_k` of classes of sample size ``fk`` and weighted size ``big_fk``.

    Parameters
    ----------
    fk : array of int, each >= 1
    big_fk : array of float, each >= fk
    method : {"approx", "exact"}
        How classes with :math:`f_k > 2` are computed (see the module docstring).

    Returns
    -------
    numpy.ndarray of float64

    Examples
    --------
    >>> risk_from_frequencies(np.array([2, 1]), np.array([360.0, 215.0])).round(8).tolist()
    [0.00542452, 0.02509644]
    """
    from scipy.special import hyp2f1

    method = check_choice("method", method, "individual_risk", ("approx", "exact"))
    f = np.asarray(fk, dtype=np.float64)
    p = f / np.asarray(big_fk, dtype=np.float64)
    out = np.empty_like(p)
    population = p >= 1.0  # F = f: the sample is the population
    q = np.where(population, 0.5, p)  # any value strictly inside (0, 1) where the formula is not used
    odds, log_inv = q / (1.0 - q), -np.log(q)
    one, two, more = f == 1, f == 2, f > 2
    out[one] = (odds * log_inv)[one]
    out[two] = (odds - odds ** 2 * log_inv)[two]
    if method == "approx":
        out[more] = (q / (f - (1.0 - q)))[more]
    else:  # E[1/F | f] = p/f 2F1(1, 1; f+1; 1-p), the Euler transform of p^f/f 2F1(f, f; f+1; 1-p)
        out[more] = (q / f * hyp2f1(1.0, 1.0, f + 1.0, 1.0 - q))[more]
    out[population] = 1.0 / f[population]
    return out


@dataclass(frozen=True, eq=False)
class IndividualRisk:
    """Per-record and global individual risk of a (weighted) sample.

    Attributes
    ----------
    quasi_identifiers : tuple of str
    fk : numpy.ndarray of int64
        Per record (input order): sample size of its class.
    Fk : numpy.ndarray of float64
        Per record: sum of the weights of its class (``fk`` unweighted).
    risk : numpy.ndarray of float64
        Per record: :math:`r_k`.
    weighted : bool
        Weights were given (else every weight is 1 and ``risk = 1/fk``).
    method : str
    household_risk : numpy.ndarray of float64 or None
        Per record: the risk of its household, when a household id was given.
    """

    quasi_identifiers: tuple[str, ...]
    fk: np.ndarray
    Fk: np.ndarray
    risk: np.ndarray
    weighted: bool
    method: str
    household_risk: np.ndarray | None = None

    @property
    def n_records(self) -> int:
        return len(self.risk)

    @property
    def expected_reidentifications(self) -> float:
        """:math:`ER = \\sum_i r_i`."""
        return float(self.risk.sum())

    def histogram(self) -> dict[str, list[Any]]:
        """Records per risk bin: ``{"edges": [0, 0.1, ..., 1], "counts": [...]}`` (risks above 1 in the last)."""
        counts, _ = np.histogram(np.clip(self.risk, 0.0, 1.0), bins=np.asarray(HISTOGRAM_EDGES))
        return {"edges": list(HISTOGRAM_EDGES), "counts": [int(c) for c in counts]}

    def to_dict(self) -> dict[str, Any]:
        """The ``individual_risk`` object of ``veil risk --json``."""
        n = self.n_records
        er = self.expected_reidentifications
        return {
            "mean": er / n if n else 0.0,
            "max": float(self.risk.max()) if n else 0.0,
            "expected_reidentifications": er,
            "share": er / n if n else 0.0,
            "histogram": self.histogram(),
            "weighted": self.weighted,
            "method": self.method,
        }

    def household_dict(self) -> dict[str, Any] | None:
        """The ``household_risk`` object: mean, max, expected re-identifications (sum over records) and share."""
        if self.household_risk is None:
            return None
        n = self.n_records
        er = float(self.household_risk.sum())
        return {"mean": er / n if n else 0.0, "max": float(self.household_risk.max()) if n else 0.0,
                "expected_reidentifications": er, "share": er / n if n else 0.0}

    def per_record(self) -> pd.DataFrame:
        """One line per record in input order: ``row`` (1-based), ``fk``, ``Fk``, ``risk``."""
        return pd.DataFrame({"row": np.arange(1, self.n_records + 1), "fk": self.fk, "Fk": self.Fk,
                             "risk": self.risk})


def record_classes(dataset: Dataset, quasi_identifiers: Sequence[str]) -> np.ndarray:
    """Each record's class (int64, numbered from 0 in order of first appearance): records alike
    in every QI's value (missing values alike) share one.  One pass over the codes."""
    encodings = dataset.encode_all(list(quasi_identifiers))
    columns = [e.codes for e in encodings]
    radices = [max(e.n_values, 1) for e in encodings]
    key = pack_codes(columns, radices)
    if key is None:  # the key space overflows int64: renumber column by column
        key = np.zeros(dataset.n_records, dtype=np.int64)
        for codes, radix in zip(columns, radices):
            key = factorize_keys(key * radix + codes)[0]
    return factorize_keys(np.asarray(key, dtype=np.int64))[0]


def _row_of(bad: np.ndarray) -> int:
    return int(np.argmax(bad)) + 1


def _blank(raw: pd.Series) -> np.ndarray:
    """Whether each cell is missing, or text of blanks only."""
    missing = raw.isna().to_numpy(dtype=bool)
    if pd.api.types.is_numeric_dtype(raw.dtype):
        return missing
    text = raw if isinstance(raw.dtype, pd.StringDtype) else raw.astype("string")
    return missing | (text.str.strip() == "").to_numpy(dtype=bool, na_value=True)


def sampling_weights(dataset: Dataset, column: str) -> np.ndarray:
    """The column ``column`` as sampling weights: numbers, each at least 1.

    Raises
    ------
    ColumnNotFoundError, SchemaError
        No such column; a missing, non-numeric or non-finite value, or one under 1
        (naming the first offending row, 1 for the first record).
    """
    if column not in dataset.columns:
        raise ColumnNotFoundError(f"The weight column {column!r} is not in the table.")
    raw = dataset.columns_of([column])[column]
    values = (raw.to_numpy(dtype=np.float64, na_value=np.nan) if pd.api.types.is_numeric_dtype(raw.dtype)
              else pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan))
    missing = _blank(raw)
    if missing.any():
        raise SchemaError(f"The weight column {column!r} has a missing value at row {_row_of(missing)}; "
                          "every record needs its sampling weight.")
    bad = ~np.isfinite(values)
    if bad.any():
        raise SchemaError(f"The weight column {column!r} is not numeric at row {_row_of(bad)}; "
                          "sampling weights are numbers of at least 1.")
    bad = values < 1.0
    if bad.any():
        what = "zero" if values[np.argmax(bad)] == 0 else ("negative" if values[np.argmax(bad)] < 0 else "under 1")
        raise SchemaError(f"The weight column {column!r} is {what} at row {_row_of(bad)}; a sampling weight is the "
                          "number of population units a record stands for, at least 1.")
    return values


def _households(dataset: Dataset, column: str) -> np.ndarray:
    """Each record's household (int64 codes); a blank id is refused with its row."""
    if column not in dataset.columns:
        raise ColumnNotFoundError(f"The household column {column!r} is not in the table.")
    raw = dataset.columns_of([column])[column]
    blank = _blank(raw)
    if blank.any():
        raise SchemaError(f"The household column {column!r} is blank at row {_row_of(blank)}; "
                          "every record needs its household id.")
    return pd.factorize(raw)[0].astype(np.int64)


def household_risk(risk: np.ndarray, households: np.ndarray) -> np.ndarray:
    """Per record, :math:`1 - \\prod_{j \\in h} (1 - r_j)` over its household ``h`` (sums of logs)."""
    with np.errstate(divide="ignore"):
        logs = np.log1p(-np.minimum(risk, 1.0))
    total = np.bincount(households, weights=logs)
    return 1.0 - np.exp(total[households])


def individual_risk(
    data: Any,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    weight: str | None = None,
    household: str | None = None,
    method: str = "approx",
    qual: float = 1.0,
) -> IndividualRisk:
    """Individual re-identification risk per record, with sampling weights (sdcMicro's ``measure_risk``).

    Parameters
    ----------
    data : Dataset or DataFrame
    quasi_identifiers : sequence of str, optional
        Default: the dataset's.
    weight : str, optional
        The sampling-weight column (numbers >= 1).  Without it every weight
        is 1: the sample is the population and :math:`r_k = 1/f_k`.
    household : str, optional
        The household (cluster) id column: adds ``household_risk``.
    method : {"approx", "exact"}
        For classes with :math:`f_k > 2` (see the module docstring).
    qual : float in (0, inf)
        sdcMicro's final correction factor (risk multiplied by it), default 1.

    Returns
    -------
    IndividualRisk

    Raises
    ------
    SchemaError, ColumnNotFoundError
        No QIs, no records, an unknown column, a bad weight or a blank household id.

    References
    ----------
    Benedetti & Franconi, NTTS 1998; Franconi & Polettini, PSD 2004, LNCS
    3050, 262-272; Templ, Kowarik & Meindl, JSS 67(4), 2015 (sdcMicro).

    Examples
    --------
    >>> frame = pd.DataFrame({"a": [1, 1, 2], "w": [10, 30, 5]})
    >>> r = individual_risk(frame, quasi_identifiers=["a"], weight="w")
    >>> r.fk.tolist(), r.Fk.tolist()
    ([2, 2, 1], [40.0, 40.0, 5.0])
    """
    method = check_choice("method", method, "individual_risk", ("approx", "exact"))
    qual = check_real("qual", qual, "individual_risk", low=0.0, closed="neither")
    dataset, qis = _as_dataset(data, quasi_identifiers)
    weights = sampling_weights(dataset, weight) if weight is not None else None
    homes = _households(dataset, household) if household is not None else None
    cls = record_classes(dataset, qis)
    sizes = np.bincount(cls)
    totals = sizes.astype(np.float64) if weights is None else np.bincount(cls, weights=weights)
    per_class = risk_from_frequencies(sizes, totals, method=method) * qual
    risk = per_class[cls]
    hh = household_risk(risk, homes) if homes is not None else None
    return IndividualRisk(qis, sizes[cls].astype(np.int64), totals[cls], risk, weights is not None, method, hh)


def _as_dataset(data: Any, quasi_identifiers: Sequence[str] | None) -> tuple[Dataset, tuple[str, ...]]:
    """The dataset and its QIs, checked: at least one QI, each a column, at least one record."""
    if isinstance(data, pd.DataFrame):
        if not quasi_identifiers:
            raise SchemaError("individual_risk needs the quasi-identifiers of a DataFrame; "
                              "pass quasi_identifiers=[...].")
        data = Dataset.from_pandas(data, quasi_identifiers=list(quasi_identifiers))
    if not isinstance(data, Dataset):
        raise TypeError(f"individual_risk expects a Dataset or a pandas DataFrame. Got {type(data).__name__} instead.")
    qis = tuple(quasi_identifiers or data.quasi_identifiers)
    if not qis:
        raise SchemaError("individual_risk needs at least one quasi-identifier.")
    for name in qis:
        if name not in data.columns:
            raise ColumnNotFoundError(f"Column {name!r} is not in the table; its columns are: "
                                      f"{', '.join(data.columns)}.")
    if data.n_records == 0:
        raise SchemaError("The table has no records; there is nothing to analyse.")
    return data, qis
