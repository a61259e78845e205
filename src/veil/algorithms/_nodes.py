"""The lattice of full-domain generalizations, and how one node is judged.

:class:`Lattice` (the nodes), :class:`Evaluator` (a node's class table, rolled
up from cached finer nodes, judged against the models with suppression),
:class:`NodeEvaluation` and :class:`SearchResult`, the suppression limit in
records and the loss bounds.  The search strategies that walk the lattice are
in :mod:`veil.algorithms.lattice`; Datafly uses the same evaluator.  The node grid
(a node's row, up-set and down-set) is :mod:`veil.algorithms._grid`; the bound that
refutes a node before its table is built, :mod:`veil.algorithms._pairs`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veil.utility import METRICS
from veil.classes import ClassTable
from veil.errors import InfeasibleError, ParameterError
from veil.algorithms._grid import NodeSets, node_index, over_grid, predecessors
from veil.algorithms._lattice_size import check_lattice_size
from veil.algorithms._pairs import pair_bound
from veil.models._base import PrivacyModel

__all__ = ["Lattice", "NodeEvaluation", "SearchResult", "Evaluator", "LossFunction", "ADDITIVE_METRICS",
           "limit_records", "needs_recheck", "prepare", "infeasible", "node_index", "predecessors", "NodeSets",
           "over_grid"]

#: Metrics whose unsuppressed loss is a sum of per-attribute terms that depend
#: only on that attribute's level (so the bound of every node is precomputed).
#: the registry's ``additive`` fact (:data:`veil.utility.METRICS`); a metric registered
#: later is read from the registry at search time (see ``lattice.search``)
ADDITIVE_METRICS = frozenset(name for name, m in METRICS.items() if m.additive)

LossFunction = Callable[[ClassTable], float]


@dataclass(frozen=True)
class Lattice:
    """The generalization lattice: level vectors between ``low`` and ``high``.

    Parameters
    ----------
    low, high : tuple of int
        The smallest and largest allowed level of each attribute.
    """

    low: tuple[int, ...]
    high: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.low) != len(self.high):
            raise ParameterError("The lattice needs one low and one high level per attribute.")
        for a, b in zip(self.low, self.high):
            if not 0 <= a <= b:
                raise ParameterError(f"Each minimum level must be in [0, maximum level]. Got {a} > {b}.")

    @property
    def size(self) -> int:
        n = 1
        for a, b in zip(self.low, self.high):
            n *= b - a + 1
        return n

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of levels of each attribute: the node list is this grid in C order."""
        return tuple(b - a + 1 for a, b in zip(self.low, self.high))

    def nodes(self) -> np.ndarray:
        """Every node, one row each (int16), in lexicographic order."""
        q = len(self.low)
        out = np.empty((self.size, q), dtype=np.int16)
        grid = out.reshape(self.shape + (q,))  # a view: attribute i's level varies along axis i
        for i, (a, b) in enumerate(zip(self.low, self.high)):
            grid[..., i] = np.arange(a, b + 1, dtype=np.int16).reshape([-1 if j == i else 1 for j in range(q)])
        return out


@dataclass(frozen=True)
class NodeEvaluation:
    """What one node gives: its suppressed table, whether it is a solution, its loss."""

    node: tuple[int, ...]
    #: None when the node was refuted from its attribute pairs (:mod:`veil.algorithms._pairs`): its
    #: table was not built, and ``suppressed_records`` is a lower bound, already over the limit
    classes: ClassTable | None
    satisfied: bool
    suppressed_records: int
    loss: float | None


@dataclass
class SearchResult:
    """The outcome of a search.

    Attributes
    ----------
    node : tuple of int
        The optimal level per quasi-identifier.
    classes : ClassTable
        The class table at that node with the violating classes suppressed.
    loss : float
        The metric's loss at the optimum.
    nodes_total, nodes_checked : int
        Lattice size, and nodes judged: their class table built, or refuted from the marginals of
        their attribute pairs (:mod:`veil.algorithms._pairs`; the lattice search's
        ``extra["nodes_refuted"]`` counts those).
    seconds : float
        Search time.
    algorithm : str
    """

    node: tuple[int, ...]
    classes: ClassTable
    loss: float
    nodes_total: int
    nodes_checked: int
    seconds: float
    algorithm: str = "lattice"
    extra: dict[str, Any] = field(default_factory=dict)


_NEVER = np.iinfo(np.int64).max

#: An attribute with at most this many values at level 0 stays at level 0 in the search's hub tables.
SMALL_DOMAIN = 8


class TableStore:
    """At most ``capacity`` class tables by node, the least recently used dropped first;
    the nodes are rows of one int16 matrix, so that the finer tables of a node are found
    with one comparison (:meth:`smallest_finer`; not kept when ``finer`` is False)."""

    def __init__(self, capacity: int, n_attributes: int, *, finer: bool = True) -> None:
        self.capacity = capacity
        self.finer = finer
        self.slots: OrderedDict[tuple[int, ...], int] = OrderedDict()  # node -> its row
        rows = capacity if finer else 0  # the levels and sizes are kept only to find finer tables
        self.keys = np.zeros((rows, n_attributes), dtype=np.int16)
        self.sizes = np.full(rows, _NEVER, dtype=np.int64)  # classes; empty rows: never picked
        self.tables: list[ClassTable | None] = [None] * capacity

    def get(self, node: tuple[int, ...]) -> ClassTable | None:
        slot = self.slots.get(node)
        if slot is None:
            return None
        self.slots.move_to_end(node)
        return self.tables[slot]

    def put(self, node: tuple[int, ...], table: ClassTable) -> None:
        if not self.capacity:
            return
        slot = len(self.slots) if len(self.slots) < self.capacity else self.slots.popitem(last=False)[1]
        self.slots[node] = slot
        if self.finer:
            self.keys[slot] = node
            self.sizes[slot] = table.n_classes
        self.tables[slot] = table

    def smallest_finer(self, node: tuple[int, ...]) -> ClassTable | None:
        """The stored table with the fewest classes among those at levels no higher than ``node``'s."""
        if not self.finer:
            raise ValueError("This store does not keep its nodes' levels (finer=False).")
        sizes = np.where((self.keys <= np.array(node, dtype=np.int16)).all(axis=1), self.sizes, _NEVER)
        slot = int(sizes.argmin())
        return None if sizes[slot] == _NEVER else self.tables[slot]


class Evaluator:
    """Builds node class tables (rolling up from cached finer nodes) and judges them."""

    def __init__(
        self,
        classes: ClassTable,
        models: Sequence[PrivacyModel],
        limit_records: int,
        loss: LossFunction,
        cache_size: int = 32,
        hub_limit: int = 128,
        refute: bool = True,
    ) -> None:
        self.base = classes
        self.models = list(models)
        self.limit = limit_records
        self.loss = loss
        q = len(classes.levels)
        # with no record to suppress, a node fails as soon as a pair of its attributes has a cell
        # smaller than the models allow.  The pairs are asked only then, and only when every model
        # sets such a floor: on Adult, at 5% they refuted 5 of the 184 nodes judged, and with
        # t-closeness (no floor) 6 of 28, each time costing more than they saved
        # (veil.algorithms._pairs)
        floors = [model.smallest_class for model in self.models]
        self.pairs = (pair_bound(classes, max(floors), limit_records)
                      if refute and limit_records == 0 and floors and min(floors) > 1 and classes.n_classes else None)
        self.refuted = 0  # nodes judged from their pairs, without a table (counted in ``checked`` too)
        self.cache = TableStore(cache_size, q, finer=False)  # asked for the very node only (see table)
        self.checked = 0
        # hub tables: the node capped at level 1 (or its minimum level) in every
        # attribute is finer than the node and usually has far fewer classes
        # than the base table, so most nodes are generalized from a hub.  An attribute
        # with a few values at level 0 stays there in every hub: it multiplies a hub's
        # classes by at most SMALL_DOMAIN, and one hub serves each of its levels
        self.hubs = TableStore(hub_limit, q)
        self.hub_cap = tuple(int(level) if h.n_values(0) <= SMALL_DOMAIN else max(int(level), 1)
                             for level, h in zip(classes.levels, classes.hierarchies))
        self.hub_limit = hub_limit
        self.hub_requests: dict[tuple[int, ...], int] = {}
        self.unsuppressed: tuple[np.ndarray, list[int], list[int]] | None = None  # (bounds, low, stride)

    def know_bounds(self, nodes: np.ndarray, bounds: np.ndarray) -> np.ndarray:
        """Take an additive metric's per-node bounds (:func:`veil.algorithms._bounds.loss_bounds`) as the loss of
        a node that suppresses nothing: that loss is the sum of the per-attribute terms
        the bound adds up, so the node's table is not measured.  Returns ``bounds``."""
        low, stride = node_index(nodes)
        self.unsuppressed = (bounds, low.tolist(), stride.tolist())  # lists: a node's row is summed in Python
        return bounds

    def exact_loss(self, result: NodeEvaluation) -> float:
        """``result``'s loss measured on its table (a loss taken from the bounds is equal up to
        rounding; the result a search returns reports the measured one)."""
        return float(result.loss if self.unsuppressed is None else self.loss(result.classes))  # type: ignore[arg-type]

    def table(self, node: tuple[int, ...]) -> ClassTable:
        """The unsuppressed class table of ``node`` (a tuple of valid levels, one per QI),
        rolled up from its hub (or the smallest finer one at hand) or the base.

        A cached node's table finer than ``node`` is not looked for: the searches judge
        coarser nodes before finer ones, so one was found for at most 7 of Adult's 64-2,456
        judged nodes per configuration (2026-11-27), and looking cost about 5 us a node."""
        cached = self.cache.get(node)
        if cached is not None:
            return cached
        source = self._hub(node)
        if source is None:
            source = self.base
            if any(a > b for a, b in zip(source.levels, node)):
                return source.generalize(node)
        table = source.roll_up(node)
        self.cache.put(node, table)
        return table

    def _hub(self, node: tuple[int, ...]) -> ClassTable | None:
        """The hub of ``node``, or the smallest finer one at hand, or None (use the base)."""
        if not self.hub_limit:
            return None
        key = tuple(a if a < c else c for a, c in zip(node, self.hub_cap))
        hub = self.hubs.get(key)
        if hub is not None:
            return hub
        # build a hub only when a second node asks for it: a hub used once
        # costs more than generalizing that node from a finer hub directly
        finer = self.hubs.smallest_finer(key) if len(self.hubs.slots) else None
        seen = self.hub_requests.get(key, 0)
        self.hub_requests[key] = seen + 1
        if not seen:
            return finer
        source = self.base if finer is None else finer
        hub = source.roll_up(key) if all(a <= b for a, b in zip(source.levels, key)) else source.generalize(key)
        if hub is not self.base:
            hub.retain()
        self.hubs.put(key, hub)
        return hub

    def violations(self, table: ClassTable, models: Sequence[PrivacyModel]) -> np.ndarray:
        """Classes of ``table`` that violate any of ``models`` (do not modify it: it may be a model's)."""
        if len(models) == 1:
            return np.asarray(models[0].violating(table), dtype=np.bool_)
        mask = np.zeros(table.n_classes, dtype=np.bool_)
        for model in models:
            mask |= model.violating(table)
        return mask

    def within_limit(self, table: ClassTable, mask: np.ndarray, models: Sequence[PrivacyModel]) -> bool:
        """Whether suppressing the classes of ``mask`` (those that violate ``models``) stays
        within the limit and leaves ``models`` met: :meth:`evaluate`'s verdict on ``table``
        with no other model, without building the suppressed table when no model needs it."""
        suppressed = int(table.counts[mask].sum()) + table.suppressed - table.input_suppressed
        if suppressed > self.limit:
            return False
        again = [model for model in models if needs_recheck(model)]
        if not again:
            return True
        result = table.suppress(mask)
        return all(model.check(result) for model in again)

    def evaluate(
        self,
        node: tuple[int, ...],
        *,
        need_loss: bool = True,
        models: Sequence[PrivacyModel] | None = None,
        table: ClassTable | None = None,
        prior: Sequence[PrivacyModel] = (),
        mask: np.ndarray | None = None,
        refute: bool = True,
    ) -> NodeEvaluation:
        """Judge ``node`` against every model (or only ``models``).

        An evaluation can be split in two on the same class table: ``prior``
        are models already asked, ``mask`` the classes they violate on
        ``table``; they are suppressed too and checked again after the
        suppression.  A node given with its ``table`` is not counted again.
        A node that its attribute pairs refute (:mod:`veil.algorithms._pairs`) fails without
        its table being built, unless ``refute`` is false (an exact count of its suppressed
        records is wanted).
        """
        if table is None:
            self.checked += 1
            if refute and self.pairs is not None and models is None:
                need = self.pairs.refutes(node)
                if need:
                    self.refuted += 1
                    return NodeEvaluation(node, None, False, need, None)
            table = self.table(node)
        judged = self.models if models is None else list(models)
        violating = self.violations(table, judged)
        if mask is not None:
            violating = violating | mask
        suppressed = table.suppressed - table.input_suppressed
        if violating.any():
            suppressed += int(table.counts[violating].sum())
        if suppressed > self.limit:
            return NodeEvaluation(node, table, False, suppressed, None)
        result = table.suppress(violating)
        for model in [*prior, *judged]:
            if needs_recheck(model) and not model.check(result):
                return NodeEvaluation(node, result, False, suppressed, None)
        if not need_loss:
            return NodeEvaluation(node, result, True, suppressed, None)
        if self.unsuppressed is not None and suppressed == 0:
            bounds, low, stride = self.unsuppressed
            loss = float(bounds[sum((a - b) * c for a, b, c in zip(node, low, stride))])
        else:
            loss = float(self.loss(result))
        return NodeEvaluation(node, result, True, suppressed, loss)


def needs_recheck(model: PrivacyModel) -> bool:
    """Whether ``model`` must be asked again once the classes it finds violating are suppressed.

    Not when it judges each class on its own (``class_local``: a class's verdict depends on
    that class and the whole table's totals, which suppression keeps) and its check is
    the default "no class violates": every class left passes it.
    """
    return not (model.class_local and type(model).check is PrivacyModel.check)


def limit_records(classes: ClassTable, suppression_limit: float) -> int:
    if not 0.0 <= suppression_limit <= 1.0:
        raise ParameterError(
            f"The 'suppression_limit' parameter must be a float in [0, 1]. Got {suppression_limit!r} instead."
        )
    eligible = classes.n_records - classes.input_suppressed
    return int(np.floor(suppression_limit * eligible + 1e-9))


def prepare(classes, models, min_levels, max_levels, max_nodes: int | None = None, *, enumerated: bool = True):
    """The lattice between the level bounds, after checking them, the models and, when the
    search ``enumerated`` its nodes, its size (:func:`veil.algorithms._lattice_size.check_lattice_size`:
    refused before any node is made; Datafly's greedy walk visits a few nodes whatever the size)."""
    heights = tuple(h.height for h in classes.hierarchies)
    low = tuple(min_levels) if min_levels is not None else tuple(0 for _ in heights)
    high = tuple(max_levels) if max_levels is not None else heights
    if len(low) != len(heights) or len(high) != len(heights):
        raise ParameterError("min_levels and max_levels need one level per quasi-identifier.")
    for name, h, a, b in zip(classes.quasi_identifiers, heights, low, high):
        if not 0 <= a <= b <= h:
            raise ParameterError(
                f"The levels of {name!r} must satisfy 0 <= min <= max <= {h}. Got min {a}, max {b}."
            )
    if not models:
        raise ParameterError("At least one privacy model is needed to anonymize.")
    if enumerated:
        check_lattice_size(classes.quasi_identifiers, low, high, max_nodes)
    return Lattice(low, high)


def infeasible(evaluator: Evaluator, lattice: Lattice, limit: int) -> InfeasibleError:
    top = tuple(lattice.high)
    best = evaluator.evaluate(top, need_loss=False, refute=False)
    need = best.suppressed_records
    return InfeasibleError(
        f"No transformation satisfies the privacy models with at most {limit} suppressed records. "
        f"The most general transformation {dict(zip(evaluator.base.quasi_identifiers, top))} would "
        f"need to suppress {need} records; raise the suppression limit, relax the models or "
        f"allow higher levels.",
        best={"node": top, "suppressed_records": need},
    )
