"""The graphical model of AIM's noisy marginals, fitted with numpy: mirror descent on a junction tree.

The model is the Markov random field :math:`P(x) \\propto \\exp \\sum_c \\theta_c(x_c)`
with one log-potential per measured clique c.  It minimises the negative
Gaussian log-likelihood of the measurements (Private-PGM, McKenna, Sheldon &
Miklau 2019; the authors' AIM code weights each term by 1/σ_i instead):

.. math:: L(\\mu) = \\sum_i \\frac{1}{2\\sigma_i^2} \\lVert \\mu_{c_i} - y_i \\rVert_2^2

over the marginals μ (counts) of the model, by entropic mirror descent on the
potentials (:math:`\\theta \\leftarrow \\theta - \\alpha \\nabla_\\mu L`), the
marginals of each step given exactly by belief propagation on the junction
tree (:mod:`veil.dp.synthesis._junction`).  The step size α starts at
:math:`\\min_i \\sigma_i^2 / N` (the inverse of the loss's curvature per record)
and adapts by backtracking: α halves until the step lowers the loss by at
least half its first-order prediction, then the step is kept and α grows by 10%.
The total N is the inverse-variance mean of the measurements' sums.

Sampling (:func:`sample_model`) is exact for the model: the columns in the
reverse of the elimination order, each given the columns it was eliminated
with (a clique of the tree), the counts of every group of rows rounded by
largest remainder, as the reference's ``synthetic_data`` does.  Fitting and
sampling are post-processing of the noisy measurements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from veil.dp.synthesis._fit import allocate
from veil.dp.synthesis._junction import JunctionTree, align, calibrate, clique_marginal, junction_tree, sum_to

__all__ = ["Measurement", "Model", "estimate_total", "fit_model", "sample_model"]

#: The most halvings of the step in one iteration.
_BACKTRACK = 40
#: Each measurement's squared error is divided by 2σ^_POWER: 2, the Gaussian log-likelihood
#: (the reference's code divides by 2σ; on Adult 1/σ² lowers AIM's workload error, see the docs).
_POWER = 2


@dataclass(frozen=True, slots=True)
class Measurement:
    """A noisy marginal: ``y`` (counts over ``clique``, increasing columns) with Gaussian noise ``sigma``."""

    clique: tuple[int, ...]
    y: np.ndarray
    sigma: float


@dataclass(frozen=True, slots=True)
class Model:
    """The fitted model: its junction ``tree``, log-``potentials`` per measured clique, calibrated
    ``beliefs`` (counts per maximal clique), the ``total`` and the step size reached."""

    tree: JunctionTree
    potentials: dict[tuple[int, ...], np.ndarray]
    beliefs: list[np.ndarray] = field(repr=False)
    total: float
    step: float

    def marginal(self, clique: Sequence[int]) -> np.ndarray:
        """The model's counts over ``clique`` (any columns, increasing)."""
        return clique_marginal(self.tree, self.beliefs, tuple(clique))

    @property
    def cliques(self) -> list[tuple[int, ...]]:
        return list(self.potentials)


def estimate_total(measurements: Sequence[Measurement]) -> float:
    """The inverse-variance mean of the measurements' sums (at least 1)."""
    sums = np.array([m.y.sum() for m in measurements])
    var = np.array([m.sigma ** 2 * m.y.size for m in measurements])
    return float(max(1.0, np.sum(sums / var) / np.sum(1.0 / var)))


def _tree_potentials(tree: JunctionTree, potentials: dict, homes: dict) -> list[np.ndarray]:
    out = [np.zeros([tree.sizes[c] for c in cl]) for cl in tree.cliques]
    for cl, theta in potentials.items():
        home = homes[cl]
        out[home] = out[home] + align(theta, cl, tree.cliques[home], tree.sizes)
    return out


def _marginals(tree: JunctionTree, beliefs: list[np.ndarray], homes: dict) -> dict:
    return {cl: sum_to(beliefs[h], tree.cliques[h], cl) for cl, h in homes.items()}


def _loss(mu: dict, measurements: Sequence[Measurement]) -> tuple[float, dict]:
    loss, grad = 0.0, {cl: np.zeros_like(m) for cl, m in mu.items()}
    for m in measurements:
        diff = mu[m.clique] - m.y
        scale = m.sigma ** _POWER
        loss += float(diff.ravel() @ diff.ravel()) / (2.0 * scale)
        grad[m.clique] += diff / scale
    return loss, grad


def fit_model(sizes: Sequence[int], measurements: Sequence[Measurement], *, iters: int,
              warm: Model | None = None, tree: JunctionTree | None = None) -> Model:
    """Fit the model to ``measurements`` by ``iters`` steps of mirror descent, starting from the
    potentials of ``warm`` (zero for a clique it does not have)."""
    cliques = list(dict.fromkeys(m.clique for m in measurements))
    tree = tree or junction_tree(sizes, cliques)
    total = estimate_total(measurements)
    theta = {cl: np.zeros([sizes[c] for c in cl]) for cl in cliques}
    if warm is not None:
        theta.update({cl: p for cl, p in warm.potentials.items() if cl in theta})
    step = min(m.sigma ** _POWER for m in measurements) / total  # (a converged warm start's step can be tiny)
    step = max(step, warm.step) if warm is not None else step
    homes = {cl: tree.home(cl) for cl in cliques}
    beliefs = calibrate(tree, _tree_potentials(tree, theta, homes), total)
    mu = _marginals(tree, beliefs, homes)
    loss, grad = _loss(mu, measurements)
    for _ in range(iters):
        for _ in range(_BACKTRACK):  # halve the step until it lowers the loss enough
            trial = {cl: theta[cl] - step * grad[cl] for cl in cliques}
            beliefs2 = calibrate(tree, _tree_potentials(tree, trial, homes), total)
            mu2 = _marginals(tree, beliefs2, homes)
            loss2, grad2 = _loss(mu2, measurements)
            predicted = sum(float(np.sum(grad[cl] * (mu[cl] - mu2[cl]))) for cl in cliques)
            if loss - loss2 >= 0.5 * predicted and loss2 <= loss:
                theta, beliefs, mu, loss, grad, step = trial, beliefs2, mu2, loss2, grad2, step * 1.1
                break
            step *= 0.5
        else:
            break  # no step lowers the loss: converged to the precision of the arithmetic
    return Model(tree, theta, beliefs, total, step)


def sample_model(model: Model, rows: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` records drawn from ``model`` (codes, one column per column of the model)."""
    tree = model.tree
    out = np.zeros((rows, len(tree.sizes)), dtype=np.int64)
    for col, clique in reversed(list(zip(tree.elimination, tree.steps))):
        parents = tuple(c for c in clique if c != col)
        joint = np.moveaxis(model.marginal(clique), clique.index(col), -1)
        probs = joint.reshape(-1, tree.sizes[col])
        norm = probs.sum(axis=1, keepdims=True)
        probs = np.where(norm > 0, probs / np.where(norm > 0, norm, 1.0), 1.0 / tree.sizes[col])
        given = np.ravel_multi_index(tuple(out[:, list(parents)].T), [tree.sizes[c] for c in parents]) \
            if parents else np.zeros(rows, dtype=np.int64)
        out[:, col] = allocate(rng, probs, given)
    return out
