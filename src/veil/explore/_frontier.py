"""The Pareto frontier of a set of points, each objective minimised or maximised."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from veil.errors import ParameterError

__all__ = ["pareto_frontier"]


def pareto_frontier(values: np.ndarray, *, maximize: Sequence[bool]) -> np.ndarray:
    """Which points no other point dominates.

    A point *a* dominates *b* when *a* is at least as good as *b* on every
    objective and strictly better on one.  Points with a NaN objective are
    never on the frontier (and dominate nothing); equal points are all on it.

    Parameters
    ----------
    values : array of float, shape (n_points, n_objectives)
    maximize : sequence of bool, one per objective
        ``True`` where larger is better (an accuracy), ``False`` where smaller
        is (a risk, a loss).

    Returns
    -------
    numpy.ndarray of bool, shape (n_points,)

    Examples
    --------
    >>> import numpy as np
    >>> risk_and_loss = np.array([[0.5, 0.1], [0.2, 0.3], [0.5, 0.4], [0.1, 0.9]])
    >>> pareto_frontier(risk_and_loss, maximize=[False, False]).tolist()
    [True, True, False, True]
    """
    points = np.asarray(values, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != len(maximize):
        raise ParameterError(
            f"The frontier needs an (n_points, {len(maximize)}) array of objectives. Got shape {points.shape} instead."
        )
    signs = np.where(np.asarray(maximize, dtype=np.bool_), -1.0, 1.0)
    cost = points * signs  # every objective minimised
    valid = ~np.isnan(cost).any(axis=1)
    frontier = valid.copy()
    good = cost[valid]
    index = np.flatnonzero(valid)
    for chunk in range(0, len(good), 512):  # bounded memory: (chunk, n, m) comparisons at a time
        block = good[chunk:chunk + 512]
        no_worse = (good[None, :, :] <= block[:, None, :]).all(axis=2)
        better = (good[None, :, :] < block[:, None, :]).any(axis=2)
        frontier[index[chunk:chunk + 512]] = ~(no_worse & better).any(axis=1)
    return frontier
