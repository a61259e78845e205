"""Information loss and disclosure risk of perturbed numeric data (sdcMicro's ``dUtility`` / ``dRisk``).

With :math:`x` the original and :math:`z` the released values (n records, m
columns, :math:`s_j` the standard deviation of original column j):

* **IL1s** (Yancey, Winkler & Creecy 2002; sdcMicro ``dUtility(method="IL1s")``):
  :math:`\\sum_{i,j} |x_{ij} - z_{ij}| / (\\sqrt 2\\, s_j)`; veil also gives it per cell
  (divided by :math:`nm`).
* **Eigenvalue-based loss** (``dUtility(method="eigen")``): with
  :math:`\\lambda` and :math:`\\lambda'` the eigenvalues (descending) of the
  correlation matrices of :math:`x` and :math:`z`,
  :math:`\\sum_k |\\lambda_k - \\lambda'_k| / \\lambda_k`.
* **Interval disclosure** (``dRisk``, the SDID measure of Mateo-Sanz, Sebé &
  Domingo-Ferrer 2004): the share of records whose every original value lies in
  :math:`[z_{ij} - k s'_j, z_{ij} + k s'_j]` (:math:`s'_j` of the released
  column, ``k = 0.05``).
* **Distance-based record linkage** (Pagliuca & Seri 1999; Domingo-Ferrer &
  Torra 2001): each released record is linked to its nearest original record
  (Euclidean distance on the columns standardized by the original's means and
  standard deviations); the share of records linked to themselves.  Nearest
  neighbours by a k-d tree (``scipy.spatial.cKDTree``): no pair of records is
  enumerated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["information_loss", "disclosure_risk"]


def _sd(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0, ddof=1) if len(x) > 1 else np.zeros(x.shape[1])
    return np.where(sd > 0, sd, 1.0)  # a constant column: distances in its own unit


def information_loss(x: np.ndarray, z: np.ndarray) -> dict[str, Any]:
    """``{"il1s", "il1s_per_cell", "eigen"}`` of releasing ``z`` for ``x`` (see the module docstring)."""
    cells = np.abs(x - z) / (np.sqrt(2.0) * _sd(x))
    il1s = float(cells.sum())
    eigen = None
    if x.shape[1] > 1 and len(x) > 2:
        with np.errstate(invalid="ignore", divide="ignore"):
            a = np.sort(np.linalg.eigvalsh(np.corrcoef(x, rowvar=False)))[::-1]
            b = np.sort(np.linalg.eigvalsh(np.corrcoef(z, rowvar=False)))[::-1]
            value = float(np.sum(np.abs(a - b) / a))
        eigen = value if np.isfinite(value) else None
    elif x.shape[1] == 1:
        eigen = 0.0  # one column: its correlation matrix is [1] before and after
    return {"il1s": il1s, "il1s_per_cell": il1s / cells.size if cells.size else 0.0, "eigen": eigen}


def disclosure_risk(x: np.ndarray, z: np.ndarray, *, k: float = 0.05) -> dict[str, Any]:
    """``{"interval_disclosure", "record_linkage", "interval_k"}`` of releasing ``z`` for ``x``."""
    from scipy.spatial import cKDTree

    n = len(x)
    half = k * (z.std(axis=0, ddof=1) if n > 1 else np.zeros(z.shape[1]))
    inside = ((x >= z - half) & (x <= z + half)).all(axis=1)
    mean, sd = x.mean(axis=0), _sd(x)
    tree = cKDTree((x - mean) / sd)
    _, nearest = tree.query((z - mean) / sd, k=1)
    linked = np.asarray(nearest) == np.arange(n)
    return {"interval_disclosure": float(inside.mean()) if n else 0.0,
            "record_linkage": float(linked.mean()) if n else 0.0, "interval_k": k}
