"""The metric registry: one :class:`Metric` per CLI name, for the search and the reports.

Each metric declares its facts once (CLI name, direction, monotonicity,
additivity, what it needs, citation); the search's pruning, the ``--metric``
help, the configuration's ``metric`` check and the report's ``utility`` key are
derived from :data:`METRICS`.  Adding a metric is one function and one
:func:`register_metric` call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.utility._arx import arx_loss
from veil.utility._entropy import conditional_entropy, kl_divergence, non_uniform_entropy
from veil.utility._inputs import check_k
from veil.utility._terms import arx_loss_terms, height_terms, iloss_terms, precision_terms
from veil.utility._metrics import (
    average_class_size,
    classification_metric,
    discernibility,
    height,
    iloss,
    precision,
)

__all__ = ["Metric", "METRICS", "get_metric", "utility_report", "register_metric", "unregister_metric",
           "registered_metric", "metric_help"]

Weights = Mapping[str, float] | Sequence[float] | None


@dataclass(frozen=True)
class Metric:
    """A utility metric as the search and the reports see it.

    Attributes
    ----------
    name : str
        The CLI name (``--metric NAME``), the key in :data:`METRICS` and in
        :func:`utility_report`'s result.
    description : str
        One line for ``--help`` and the report.
    lower_is_better : bool
        Whether a smaller :meth:`value` means more utility.  :meth:`loss` is
        always to be minimised.
    monotone : bool
        The loss never decreases under generalization *while the same records
        stay suppressed* (``classes.generalize(coarser)`` of a table): a search
        may use it to bound a node's successors when the suppressed set is
        fixed.
    monotone_with_suppression : bool
        The loss never decreases along the lattice even when each node
        suppresses its own violating classes (fewer suppressed records at a
        coarser node can lower every record-based loss).  Only ``height``.
    bounded_by_unsuppressed : bool
        The loss of a node's table *without* suppression is a lower bound for
        the node with its suppression and for every generalization of it
        (monotone, and suppressing a record never lowers the loss): the
        lattice search prunes with it.
    additive : bool
        The loss of a table without suppression is a sum of one term per QI
        that depends only on that QI's level (and suppression only adds): the
        lattice search precomputes every node's bound from those terms
        (:meth:`terms` where the metric gives them, else measured on
        one-attribute generalizations).
    needs_label : bool
        Needs ``label``: a class-label attribute present in ``classes.sensitive``.
    needs_k : bool
        Needs the ``k`` of k-anonymity.
    reference : str
        The paper and definition.
    """

    name: str
    description: str
    lower_is_better: bool
    monotone: bool
    needs_label: bool = False
    needs_k: bool = False
    monotone_with_suppression: bool = False
    bounded_by_unsuppressed: bool = False
    additive: bool = False
    reference: str = ""
    _value: Callable[..., float | None] = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    _loss: Callable[[float], float] | None = field(default=None, repr=False, compare=False)
    _terms: Callable[..., Any] | None = field(default=None, repr=False, compare=False)

    def _arguments(self, label: str | None, k: int | None) -> None:
        if self.needs_label and label is None:
            raise ParameterError(
                f"The {self.name!r} metric needs a class label: pass 'label', the name of an attribute "
                "built into the class table as a sensitive attribute."
            )
        if self.needs_k:
            if k is None:
                raise ParameterError(f"The {self.name!r} metric needs the 'k' of k-anonymity. Got None instead.")
            check_k(k, f"the {self.name!r} metric")

    def value(
        self, classes: ClassTable, *, label: str | None = None, weights: Weights = None,
        k: int | None = None, original: ClassTable | None = None,
    ) -> float | None:
        """The metric's own figure (as reported), or ``None`` where it is undefined.

        Raises
        ------
        ParameterError
            A needed ``label`` or ``k`` is missing or invalid.
        """
        self._arguments(label, k)
        result = self._value(classes, label=label, weights=weights, k=k, original=original)
        return None if result is None else float(result)

    def loss(
        self, classes: ClassTable, *, label: str | None = None, weights: Weights = None,
        k: int | None = None,
    ) -> float:
        """A number to minimise: the value, or its loss form for a higher-is-better metric.

        ``precision`` gives :math:`1 - \\mathrm{Prec}`; an undefined value
        (``avg-class-size`` of a fully suppressed table) gives ``inf``, the
        worst.  Never NaN.
        """
        value = self.value(classes, label=label, weights=weights, k=k)
        if value is None:
            return math.inf
        return self._loss(value) if self._loss is not None else value

    @property
    def has_terms(self) -> bool:
        """Whether :meth:`terms` gives the additive terms (else the search measures them)."""
        return self._terms is not None

    def terms(self, classes: ClassTable, i: int, levels: Sequence[int], *, weights: Weights = None) -> Any:
        """QI ``i``'s term of :meth:`loss` at each of ``levels``, on a table without suppression
        beyond ``classes``'s, up to a constant: a float array, or ``None`` when the metric does
        not declare its terms (:mod:`veil.utility._terms`).

        For an additive metric, ``loss(classes.generalize(node))`` equals
        ``loss(classes)`` plus, over the QIs, ``terms(classes, i, [node[i]]) - terms(classes, i, [classes.levels[i]])``
        (up to rounding) for every node at least as general as ``classes`` that suppresses
        no further record.
        """
        if self._terms is None:
            return None
        return self._terms(classes, i, levels, weights=weights)


def _kl(classes: ClassTable, *, label: str | None, original: ClassTable | None, **_: object) -> float:
    return kl_divergence(original, classes, sensitive=label)


_ALL = (
    Metric(
        "height", "Sum of the QIs' generalization levels", lower_is_better=True, monotone=True,
        monotone_with_suppression=True, bounded_by_unsuppressed=True, additive=True,
        reference="Samarati, IEEE TKDE 13(6), 2001",
        _value=lambda c, **_: height(c), _terms=height_terms,
    ),
    Metric(
        "precision", "Sweeney's precision Prec (1 = original data); loss is 1 - Prec",
        lower_is_better=False, monotone=True, bounded_by_unsuppressed=True, additive=True,
        reference="Sweeney, IJUFKS 10(5), 2002, Definition 11",
        _value=lambda c, **_: precision(c), _loss=lambda v: 1.0 - v, _terms=precision_terms,
    ),
    Metric(
        "loss", "ILoss: weighted share of each attribute's domain the released values cover",
        lower_is_better=True, monotone=True, bounded_by_unsuppressed=True, additive=True,
        reference="Xiao & Tao, SIGMOD 2006, Section 6",
        _value=lambda c, *, weights, **_: iloss(c, weights=weights), _terms=iloss_terms,
    ),
    Metric(
        "discernibility", "Sum of squared class sizes plus |D| per suppressed record",
        lower_is_better=True, monotone=True, bounded_by_unsuppressed=True,
        reference="Bayardo & Agrawal, ICDE 2005, Section 3",
        _value=lambda c, **_: discernibility(c),
    ),
    Metric(
        "avg-class-size", "Average class size divided by k (1 is ideal)",
        lower_is_better=True, monotone=True, needs_k=True,
        reference="LeFevre, DeWitt & Ramakrishnan, ICDE 2006, Section 5",
        _value=lambda c, *, k, **_: average_class_size(c, k),
    ),
    Metric(
        "entropy", "Non-uniform entropy: bits to recover the original values",
        lower_is_better=True, monotone=True, bounded_by_unsuppressed=True, additive=True,
        reference="Gionis & Tassa, IEEE TKDE 21(2), 2009",
        _value=lambda c, **_: non_uniform_entropy(c),
    ),
    Metric(
        "classification", "Share of records suppressed or outside their class's majority label",
        lower_is_better=True, monotone=True, needs_label=True, bounded_by_unsuppressed=True,
        reference="Iyengar, KDD 2002, Section 3.2",
        _value=lambda c, *, label, **_: classification_metric(c, label),
    ),
    Metric(
        "infogain", "Label entropy left given the released QIs, bits (information not captured)",
        lower_is_better=True, monotone=True, needs_label=True,
        reference="Fung, Wang & Yu, ICDE 2005, Section 3",
        _value=lambda c, *, label, **_: conditional_entropy(c, label),
    ),
    Metric(
        "kl", "KL divergence (bits) from the original to the anonymized max-entropy estimate",
        lower_is_better=True, monotone=False,
        reference="Kifer & Gehrke, SIGMOD 2006, Sections 3-4",
        _value=_kl,
    ),
    Metric(
        "arx-loss", "ARX's Loss: geometric mean over QIs of 1 + (leaves - 1)/(|domain| - 1), suppressed = 1, minus 1",
        lower_is_better=True, monotone=True, bounded_by_unsuppressed=True, additive=True,
        reference="ARX (Prasser & Kohlmayer), MetricMDNMLoss with the geometric mean; Iyengar, KDD 2002, Section 3.1",
        _value=lambda c, *, weights, **_: arx_loss(c, weights=weights),
        _loss=math.log1p,  # log(1 + Loss) is a sum over QIs (see arx_loss): same order, additive bounds
        _terms=arx_loss_terms,
    ),
)

_REGISTRY: dict[str, Metric] = {}

#: The metrics by CLI name (a live view of the registry): height, precision,
#: loss, discernibility, avg-class-size, entropy, classification, infogain,
#: kl, arx-loss.
METRICS: Mapping[str, Metric] = MappingProxyType(_REGISTRY)


def register_metric(metric: Metric) -> Metric:
    """Add a metric to the registry under ``metric.name`` (its ``--metric`` value).

    Raises
    ------
    ParameterError
        Not a :class:`Metric`, or its name is taken by another metric.
    """
    if not isinstance(metric, Metric):
        raise ParameterError(f"register_metric expects a Metric. Got {type(metric).__name__} instead.")
    if metric.name in _REGISTRY and _REGISTRY[metric.name] is not metric:
        raise ParameterError(f"The metric name {metric.name!r} is taken.")
    if metric.additive and not metric.bounded_by_unsuppressed:
        raise ParameterError(f"The metric {metric.name!r} is additive, so it must be bounded_by_unsuppressed too.")
    if metric.has_terms and not metric.additive:
        raise ParameterError(f"The metric {metric.name!r} declares per-attribute terms, so it must be additive.")
    _REGISTRY[metric.name] = metric
    return metric


def unregister_metric(metric: Metric) -> None:
    """Remove a metric from the registry (a no-op when it is absent)."""
    if _REGISTRY.get(metric.name) is metric:
        del _REGISTRY[metric.name]


@contextmanager
def registered_metric(metric: Metric) -> Iterator[Metric]:
    """Register ``metric`` for the duration of a ``with`` block (for tests and plug-ins)."""
    register_metric(metric)
    try:
        yield metric
    finally:
        unregister_metric(metric)


def metric_help(*, descriptions: bool = False) -> str:
    """The ``--metric`` values for the CLI help (with their one-line descriptions, one a line)."""
    if descriptions:
        return "\n".join(f"{m.name}: {m.description}" for m in _REGISTRY.values())
    return ", ".join(_REGISTRY)


for _metric in _ALL:
    register_metric(_metric)


def get_metric(name: str) -> Metric:
    """The metric called ``name`` (a key of :data:`METRICS`).

    Raises
    ------
    ParameterError
        An unknown name (the message lists the valid ones).

    Examples
    --------
    >>> get_metric("discernibility").lower_is_better
    True
    """
    try:
        return METRICS[name]
    except (KeyError, TypeError):
        options = ", ".join(repr(n) for n in METRICS)
        raise ParameterError(f"The metric must be one of {{{options}}}. Got {name!r} instead.") from None


def utility_report(
    classes: ClassTable,
    *,
    original: ClassTable | None = None,
    label: str | None = None,
    weights: Weights = None,
    k: int | None = None,
) -> dict[str, float | None]:
    """Every metric of :data:`METRICS` on one table, for a report's ``utility`` key.

    Parameters
    ----------
    classes : ClassTable
        The anonymized class table.
    original : ClassTable, optional
        The original table at level 0 for ``kl`` (default ``classes.base``).
    label : str, optional
        A class-label attribute in ``classes.sensitive``: enables
        ``classification`` and ``infogain`` and adds it to ``kl``'s joint
        distribution.
    weights : optional
        ILoss attribute weights (see :func:`~veil.utility.iloss`).
    k : int, optional
        Enables ``avg-class-size``.

    Returns
    -------
    dict of str to float or None
        Each metric's :meth:`Metric.value` (``precision`` is Prec, higher is
        better; the rest are losses), ``None`` where a metric does not apply
        (missing ``label`` or ``k``, no class for ``avg-class-size``).  Never NaN.
    """
    out: dict[str, float | None] = {}
    for name, metric in METRICS.items():
        if (metric.needs_label and label is None) or (metric.needs_k and k is None):
            out[name] = None
            continue
        out[name] = metric.value(classes, label=label, weights=weights, k=k, original=original)
    return out
