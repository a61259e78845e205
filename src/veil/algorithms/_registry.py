"""The algorithm registry: one protocol, one result type, one place that names them.

An anonymization algorithm is a callable that takes a :class:`Problem` (the
dataset, its class table, the models, the suppression limit, the loss to
minimise, the algorithm's options) and returns an :class:`Outcome` (the
released rows, row-aligned with the input, and what the algorithm reports).
:func:`veil.anonymize`, the CLI ``--algorithm`` and the config ``algorithm:``
all resolve names through :data:`ALGORITHMS`; registering a new algorithm is
one :func:`register_algorithm` call, with no other edit.

Examples
--------
>>> sorted(ALGORITHMS)[:3]
['datafly', 'lattice', 'local-suppression']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from veil.algorithms._options import (LOCAL_SUPPRESSION_OPTIONS, MDAV_OPTIONS, MONDRIAN_OPTIONS, SAFEPUB_OPTIONS,
                                      TDS_OPTIONS, check_options)
from veil.algorithms._recoding import Recoding
from veil.algorithms.lattice import SearchResult
from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.models._facts import Param

__all__ = ["Problem", "Outcome", "AlgorithmSpec", "ALGORITHMS", "register_algorithm", "get_algorithm",
           "searched_outcome"]


@dataclass(frozen=True)
class Problem:
    """What an algorithm is given.

    Attributes
    ----------
    dataset : Dataset or None
        The rows, for algorithms that recode them in memory; ``None`` when
        an engine holds them (then only :attr:`AlgorithmSpec.search` runs).
    base : ClassTable
        The class table of the input (QIs and sensitive attributes, level 0).
    models : tuple of PrivacyModel
        Every model must hold on the output (including, with
        ``suppressed="keep"``, the suppressed group's model).
    suppression_limit : float
    loss : callable
        ``loss(classes)`` of the metric to minimise.
    metric : str
    monotone_metric : bool
        The metric's loss never goes down when records are suppressed.
    label : str or None
    k : int or None
        The largest k of the k-anonymity models.
    min_levels, max_levels : list of int
        Level bounds per QI (full-domain algorithms).
    options : dict
        The algorithm's own keyword options, checked against its declared ones
        (:meth:`AlgorithmSpec.check_options`) when the run is planned.
    progress : callable or None
    terms : callable or None
        ``terms(classes, i, levels)`` of an additive metric that declares them
        (:meth:`veil.utility.Metric.terms`, the run's weights bound): the lattice search
        reads its bounds from them.
    """

    dataset: Any
    base: ClassTable
    models: tuple[Any, ...]
    suppression_limit: float
    loss: Callable[[ClassTable], float]
    metric: str = "loss"
    monotone_metric: bool = False
    label: str | None = None
    k: int | None = None
    min_levels: list[int] = field(default_factory=list)
    max_levels: list[int] = field(default_factory=list)
    options: Mapping[str, Any] = field(default_factory=dict)
    progress: Callable[[int, int], None] | None = None
    terms: Callable[[ClassTable, int, Any], Any] | None = None
    max_nodes: int | None = None  # the lattice search's size bound (veil.algorithms._lattice_size)


@dataclass
class Outcome:
    """What an algorithm returns.

    Attributes
    ----------
    suppressed_rows : numpy.ndarray of bool
        Row-aligned: the suppressed records (a full-domain node may also
        generalize a class to ``*`` in every QI; that class is not suppressed).
        ``None``: the records with ``*`` in every QI.
    data : pandas.DataFrame or None
        Every input column, row-aligned with the input, QIs released,
        suppressed records ``*`` in every QI (the pipeline drops, blanks or
        keeps them, and shuffles).  ``None`` when only the class table was
        searched (:func:`searched_outcome`: an engine applies the node, or the
        in-memory pipeline builds the released rows from ``search.classes``).
    algorithm : str
    seconds : float
    transformation : dict of str to int
        The level per QI for a full-domain recoding, else empty.
    search : SearchResult or None
        The full-domain search's result (its class table at the node).
    recoding : Recoding or None
        A local recoding's facts (groups, details).
    nodes_total, nodes_checked : int or None
    """

    data: pd.DataFrame | None
    algorithm: str
    seconds: float
    transformation: dict[str, int] = field(default_factory=dict)
    search: SearchResult | None = None
    recoding: Recoding | None = None
    nodes_total: int | None = None
    nodes_checked: int | None = None
    suppressed_rows: np.ndarray | None = None


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered algorithm: its runner and its facts.

    Attributes
    ----------
    name : str
    run : callable
        ``run(problem) -> Outcome``.
    full_domain : bool
        Picks one level per QI (needs a hierarchy per QI, takes level bounds).
    takes_options : bool
        Accepts ``options``.
    search : callable or None
        ``search(problem) -> SearchResult`` on the class table alone (no
        rows): what a file-to-file engine runs before it applies the node
        itself.  Full-domain algorithms have one; ``run`` is then this
        search followed by the in-memory apply.
    options : tuple of Param
        The options it takes, declared (:mod:`veil.algorithms._options`):
        checked by :meth:`check_options`, listed by the CLI help and the docs,
        and the web form's fields.  An algorithm that takes options but
        declares none gets them unchecked.
    public_seed : bool
        Its ``seed`` only breaks ties (without one the algorithm is
        deterministic, so anyone with the input can replay it anyway): the
        report shows it in ``recoding.details``.  False (the default): the
        seed draws randomness the release's privacy rests on and never leaves.
    """

    name: str
    run: Callable[[Problem], Outcome]
    full_domain: bool = False
    takes_options: bool = True
    search: Callable[[Problem], SearchResult] | None = None
    options: tuple[Param, ...] = ()
    public_seed: bool = False

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``options`` checked against the declared ones and converted to their types.

        Raises
        ------
        ParameterError
            Options for an algorithm that takes none; an undeclared option or a bad value
            (:func:`veil.algorithms._options.check_options`'s one message shape).
        """
        if options and not self.takes_options:
            raise ParameterError(f"The {self.name} algorithm takes no options. Got {', '.join(map(repr, options))}.")
        if not self.options:
            return dict(options or {})
        return check_options(self.name, self.options, options)


#: Every algorithm :func:`veil.anonymize` can run, by name.
ALGORITHMS: dict[str, AlgorithmSpec] = {}


def register_algorithm(
    name: str, run: Callable[[Problem], Outcome], *, full_domain: bool = False, takes_options: bool = True,
    search: Callable[[Problem], SearchResult] | None = None, options: Sequence[Param] = (),
    public_seed: bool = False,
) -> AlgorithmSpec:
    """Register ``run`` under ``name`` (replacing an earlier one of that name).

    ``search``, for a full-domain algorithm, is its class-table-only half;
    ``options``, the options it takes, declared; ``public_seed``, whether
    its seed may be reported (see :class:`AlgorithmSpec`).
    """
    spec = AlgorithmSpec(name, run, full_domain, takes_options, search, tuple(options), public_seed)
    ALGORITHMS[name] = spec
    return spec


def get_algorithm(name: str) -> AlgorithmSpec:
    """The registered algorithm ``name``.

    Raises
    ------
    ParameterError
        No algorithm of that name.
    """
    spec = ALGORITHMS.get(name)
    if spec is None:
        raise ParameterError(
            f"The 'algorithm' parameter must be one of {', '.join(ALGORITHMS)}. Got {name!r} instead."
        )
    return spec


def searched_outcome(problem: Problem, result: SearchResult) -> Outcome:
    """The :class:`Outcome` of a full-domain search on the class table alone
    (``data`` is ``None``: whoever holds the rows applies the node)."""
    qis = problem.base.quasi_identifiers
    return Outcome(
        data=None, algorithm=result.algorithm, seconds=result.seconds,
        transformation=dict(zip(qis, (int(x) for x in result.node))), search=result,
        nodes_total=result.nodes_total, nodes_checked=result.nodes_checked,
    )


def _full_domain(search: Callable[[Problem], SearchResult]) -> Callable[[Problem], Outcome]:
    """The in-memory runner of a full-domain ``search``: search, and mark the suppressed rows.

    The rows are not recoded here (``data`` stays ``None``): the in-memory
    pipeline builds the released rows from the search's class table, already
    in their released order and only the published columns
    (:func:`veil.classes._release.release_rows`), one copy of the table instead
    of a recoded copy and then a shuffled one.
    """

    def run(problem: Problem) -> Outcome:
        result = search(problem)
        outcome = searched_outcome(problem, result)
        outcome.suppressed_rows = result.classes.row_classes() < 0
        return outcome

    return run


def _lattice(problem: Problem) -> SearchResult:
    from veil.algorithms.lattice import search

    return search(
        problem.base, list(problem.models), loss=problem.loss, metric_name=problem.metric,
        monotone_metric=problem.monotone_metric, suppression_limit=problem.suppression_limit,
        min_levels=problem.min_levels, max_levels=problem.max_levels, progress=problem.progress,
        terms=problem.terms, max_nodes=problem.max_nodes,
    )


def _datafly(problem: Problem) -> SearchResult:
    from veil.algorithms.datafly import datafly

    return datafly(
        problem.base, list(problem.models), loss=problem.loss, suppression_limit=problem.suppression_limit,
        min_levels=problem.min_levels, max_levels=problem.max_levels, progress=problem.progress,
    )


def _local(recoding: Recoding) -> Outcome:
    return Outcome(data=recoding.data, algorithm=recoding.algorithm, seconds=recoding.seconds, recoding=recoding)


def _call(name: str, run: Callable[..., Recoding], *args: Any, **kwargs: Any) -> Outcome:
    try:
        return _local(run(*args, **kwargs))
    except TypeError as exc:
        raise ParameterError(f"Bad option for the {name} algorithm: {exc}") from None


def _mondrian(problem: Problem) -> Outcome:
    from veil.algorithms.mondrian import mondrian

    return _call("mondrian", mondrian, problem.dataset, list(problem.models),
                 suppression_limit=problem.suppression_limit, **problem.options)


def _tds(problem: Problem) -> Outcome:
    from veil.algorithms.tds import top_down_specialization

    if problem.label is None:
        raise ParameterError("The tds algorithm needs a class label (label=...) to score specializations.")
    return _call("tds", top_down_specialization, problem.dataset, list(problem.models),
                 label=problem.label, **problem.options)


def _mdav(problem: Problem) -> Outcome:
    from veil.algorithms.microaggregation import mdav

    if problem.k is None:
        raise ParameterError("The mdav algorithm needs a k-anonymity model (it forms groups of at least k).")
    return _call("mdav", mdav, problem.dataset, list(problem.dataset.quasi_identifiers), k=problem.k, **problem.options)


def _local_suppression(problem: Problem) -> Outcome:
    from veil.algorithms.local_suppression import run_local_suppression

    return _local(run_local_suppression(problem))


register_algorithm("lattice", _full_domain(_lattice), full_domain=True, takes_options=False, search=_lattice)
register_algorithm("datafly", _full_domain(_datafly), full_domain=True, takes_options=False, search=_datafly)
register_algorithm("mondrian", _mondrian, options=MONDRIAN_OPTIONS, public_seed=True)  # tie-breaking only
register_algorithm("tds", _tds, options=TDS_OPTIONS)
register_algorithm("mdav", _mdav, options=MDAV_OPTIONS)
register_algorithm("local-suppression", _local_suppression, options=LOCAL_SUPPRESSION_OPTIONS)
register_algorithm("safepub", lambda p: __import__("veil.algorithms.safepub._run", fromlist=["x"]).run_safepub(p), full_domain=True,
                   options=SAFEPUB_OPTIONS)


def names() -> Sequence[str]:
    """The registered names, in registration order."""
    return tuple(ALGORITHMS)
