"""The privacy–utility frontier: sweep anonymization parameters, mark and draw the Pareto frontier.

:func:`explore` runs one :func:`veil.anonymize` per point of a
:class:`SweepSpec` (k, l, t, suppression limits, algorithms) on one dataset,
reports each point's achieved privacy (k, l, t, highest prosecutor risk,
records at risk) and utility (the search metric, and Brickell & Shmatikov's
workload accuracy when a target is given), and marks the points no other
point beats on both (:func:`pareto_frontier`).  :func:`lattice_view` judges
every node of one configuration's generalization lattice;
:func:`exploration_figure` draws both.  See ``docs/explore.md``.
"""

from veil.explore._frontier import pareto_frontier
from veil.explore._lattice import FAILING, PRUNED, SATISFYING, LatticeView, lattice_view
from veil.explore._plot import POINTS_KEY, Drawing, chosen_point, exploration_figure, plotted_points, save_figure
from veil.explore._sweep import MAX_SWEEP_POINTS, Exploration, SweepSpec, explore, parse_values

__all__ = [
    "explore",
    "SweepSpec",
    "MAX_SWEEP_POINTS",
    "Exploration",
    "parse_values",
    "pareto_frontier",
    "lattice_view",
    "LatticeView",
    "SATISFYING",
    "FAILING",
    "PRUNED",
    "exploration_figure",
    "Drawing",
    "plotted_points",
    "chosen_point",
    "save_figure",
    "POINTS_KEY",
]
