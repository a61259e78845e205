"""One call for a perturbed release of numeric columns, with its information loss and disclosure risk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_int, check_real
from veil.algorithms.perturbation._measures import disclosure_risk, information_loss
from veil.algorithms.perturbation._methods import additive_noise, correlated_noise, rank_swap
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

__all__ = ["Perturbation", "perturb", "numeric_values", "METHODS", "NOT_DIFFERENTIAL_PRIVACY"]

#: The methods of :func:`perturb`.
METHODS = ("noise", "correlated-noise", "rank-swap", "mdav")

#: What every perturbed release says about itself.
NOT_DIFFERENTIAL_PRIVACY = ("Not differential privacy: perturbation makes values uncertain; its disclosure risk "
                            "is measured after the fact (record linkage, interval disclosure), not bounded. "
                            "For differentially private answers use `veil query`.")


@dataclass(frozen=True, eq=False)
class Perturbation:
    """A perturbed release: the rows (input order), the method and what it cost and left at risk."""

    data: pd.DataFrame
    method: str
    columns: tuple[str, ...]
    parameters: dict[str, Any]
    information_loss: dict[str, Any]
    disclosure_risk: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``veil perturb --json`` object (no seed)."""
        return {"method": self.method, "columns": list(self.columns), "parameters": dict(self.parameters),
                "information_loss": dict(self.information_loss), "disclosure_risk": dict(self.disclosure_risk),
                "differential_privacy": False, "note": NOT_DIFFERENTIAL_PRIVACY, **self.details}


def numeric_values(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """The columns as an (n × m) float array.

    Raises
    ------
    ColumnNotFoundError, SchemaError
        A column not in the table; a missing, non-numeric or infinite value (naming the column and
        the first offending row, 1 for the first record).
    """
    out = np.empty((len(frame), len(columns)))
    for j, name in enumerate(columns):
        if name not in frame.columns:
            raise ColumnNotFoundError(f"Column {name!r} is not in the table; its columns are: "
                                      f"{', '.join(map(str, frame.columns))}.")
        raw = frame[name]
        values = (raw.to_numpy(dtype=np.float64, na_value=np.nan) if pd.api.types.is_numeric_dtype(raw.dtype)
                  else pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan))
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.argmax(bad))
            missing = pd.isna(raw.iloc[row]) or str(raw.iloc[row]).strip() == ""
            raise SchemaError(f"Column {name!r} is {'missing a value' if missing else 'not numeric'} at row "
                              f"{row + 1}; only numeric columns without missing values can be perturbed.")
        out[:, j] = values
    return out


def _parameters(method: str, noise: float, delta: float, p: float, k: int, n: int) -> dict[str, Any]:
    if method == "noise":
        return {"noise": check_real("noise", noise, "perturb", low=0.0, closed="neither")}
    if method == "correlated-noise":
        return {"delta": check_real("delta", delta, "perturb", low=0.0, high=1.0, closed="neither")}
    if method == "rank-swap":
        return {"p": check_real("p", p, "perturb", low=0.0, high=100.0, closed="right")}
    return {"k": check_int("k", k, "perturb", low=2, high=max(n, 2))}


def _perturbed(data: Any, frame: pd.DataFrame, names: list[str], x: np.ndarray, method: str,
               parameters: dict[str, Any], rng: np.random.Generator) -> tuple[np.ndarray, dict[str, Any]]:
    """The released values of ``names`` by ``method``, and the method's own facts."""
    if method == "noise":
        return additive_noise(x, noise=parameters["noise"], rng=rng), {}
    if method == "correlated-noise":
        return correlated_noise(x, delta=parameters["delta"], rng=rng), {}
    if method == "rank-swap":
        return rank_swap(x, p=parameters["p"], rng=rng), {}
    from veil.algorithms.microaggregation import mdav

    table = data if isinstance(data, Dataset) else Dataset.from_pandas(frame)
    recoding = mdav(table, names, k=parameters["k"])
    return numeric_values(recoding.data, names), {"groups": int(recoding.groups)}


def perturb(data: Any, columns: Sequence[str], *, method: str, noise: float = 150.0, delta: float = 0.1,
            p: float = 5.0, k: int = 3, seed: int | None = None, interval_k: float = 0.05) -> Perturbation:
    """Perturb numeric ``columns`` of a table (sdcMicro's ``addNoise``, ``rankSwap``, ``microaggregation``).

    Parameters
    ----------
    data : DataFrame or Dataset
    columns : sequence of str
        Numeric columns, perturbed together.
    method : {"noise", "correlated-noise", "rank-swap", "mdav"}
    noise : float in (0, inf)
        ``noise``: the noise's standard deviation in percent of each column's (sdcMicro's 150).
    delta : float in (0, 1)
        ``correlated-noise``: sdcMicro's ``correlated2`` delta (0.1).
    p : float in (0, 100]
        ``rank-swap``: the largest rank distance, in percent of the records (5).
    k : int in [2, n]
        ``mdav``: the smallest group (3).
    seed : int, optional
        For a reproducible draw; never reported (it undoes the perturbation).
    interval_k : float
        The interval disclosure's width in standard deviations (sdcMicro's 0.05).

    Returns
    -------
    Perturbation
        Not differential privacy (:data:`NOT_DIFFERENTIAL_PRIVACY`).

    Raises
    ------
    ParameterError, ColumnNotFoundError, SchemaError

    References
    ----------
    Templ, *Statistical Disclosure Control for Microdata*, Springer 2017, ch. 3-4;
    see :mod:`veil.algorithms.perturbation._methods` and ``_measures``.

    Examples
    --------
    >>> frame = pd.DataFrame({"income": [10.0, 20.0, 30.0, 40.0], "age": [30, 40, 50, 60]})
    >>> result = perturb(frame, ["income"], method="rank-swap", p=50, seed=1)
    >>> sorted(result.data["income"].tolist())
    [10.0, 20.0, 30.0, 40.0]
    """
    method = check_choice("method", method, "perturb", METHODS)
    frame = data.frame if isinstance(data, Dataset) else data
    names = list(columns)
    if not names or len(set(names)) != len(names):
        raise ParameterError("perturb needs at least one column, each named once.")
    x = numeric_values(frame, names)
    parameters = _parameters(method, noise, delta, p, k, len(frame))
    z, details = _perturbed(data, frame, names, x, method, parameters, np.random.default_rng(seed))
    out = frame.copy()
    for j, name in enumerate(names):
        out[name] = z[:, j]
    return Perturbation(out, method, tuple(names), parameters, information_loss(x, z),
                        disclosure_risk(x, z, k=interval_k), details)
