"""The plan of one anonymization, made once, and the search on the class table.

A :class:`Plan` holds what the user asked for (the models, the quasi-identifiers
and sensitive attributes, the algorithm, the suppression limit and mode, the
metric, the level bounds, the output order), checked before any row is read
(:func:`check_problem`: one message per rule, the same for every row back-end).
From the plan and a class table, :meth:`Plan.problem` makes the algorithm's
input (:class:`veil.algorithms.Problem`) and :func:`search` runs the algorithm
of the registry on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from veil.classes import ClassTable
from veil.errors import HierarchyError, ParameterError
from veil.models import KAnonymity, PrivacyModel
from veil.pipeline._suppressed import SuppressedGroup, search_models, sensitive_models

__all__ = ["Plan", "check_problem", "check_size", "largest_k", "search"]


def largest_k(models: Sequence[PrivacyModel]) -> int | None:
    """The largest ``k`` among the k-anonymity models, or ``None``."""
    ks = [m.k for m in models if isinstance(m, KAnonymity)]
    return max(ks) if ks else None


def _model_tuple(models: Any) -> tuple[PrivacyModel, ...]:
    """``models`` as a tuple, refusing what is not a sequence of privacy models (a single model, a string)."""
    if isinstance(models, PrivacyModel):
        raise ParameterError(f"The 'models' parameter must be a list of privacy models; wrap the single model "
                             f"in a list: [{type(models).__name__}(...)].")
    if isinstance(models, (str, bytes)) or not isinstance(models, Iterable):
        raise ParameterError(f"The 'models' parameter must be a list of privacy models such as [KAnonymity(k=5)]. "
                             f"Got {type(models).__name__} instead.")
    models = tuple(models)
    wrong = [m for m in models if not isinstance(m, PrivacyModel)]
    if wrong:
        raise ParameterError(f"The 'models' parameter must hold privacy models such as KAnonymity(k=5) "
                             f"(veil.models); it holds a {type(wrong[0]).__name__}.")
    return models


def _check_arguments(rest: Mapping[str, Any]) -> None:
    """The plan's plain arguments, each of its type and range (a veil error, not a deep TypeError)."""
    from veil._validation import check_int, check_real

    if "suppression_limit" in rest:
        check_real("suppression_limit", rest["suppression_limit"], "anonymize", low=0.0, high=1.0)
    if rest.get("seed") is not None:
        check_int("seed", rest["seed"], "anonymize", low=0)
        if rest.get("shuffle") is False:
            raise ParameterError("The 'seed' parameter of anonymize orders the shuffle of the output rows; with "
                                 "shuffle=False (--no-shuffle, output.shuffle: false) it would do nothing. Give one.")
    if rest.get("max_nodes") is not None:
        check_int("max_nodes", rest["max_nodes"], "anonymize", low=1)
    if "missing_sensitive" in rest:
        from veil.models._shown import check_missing_sensitive

        check_missing_sensitive(rest["missing_sensitive"])


def check_problem(
    models: Sequence[PrivacyModel],
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, Any],
    spec: Any,
    *,
    label: str | None = None,
    min_levels: Mapping[str, int] | None = None,
    max_levels: Mapping[str, int] | None = None,
    options: Mapping[str, Any] | None = None,
    columns: Sequence[str] | None = None,
) -> None:
    """Refuse a bad problem before any work (one message per rule).

    ``spec`` is the algorithm's :class:`~veil.algorithms.AlgorithmSpec`;
    ``columns``, when known before the rows are read, the table's columns
    (an engine checks its file's columns itself, naming the file).

    Raises
    ------
    ParameterError
        No model, no quasi-identifier, a label that is a QI or not a column,
        a level bound on a non-QI or for a local recoding, options an
        algorithm does not take.
    HierarchyError
        A quasi-identifier has no hierarchy and the algorithm needs one.
    """
    if not models:
        raise ParameterError("At least one privacy model is needed to anonymize (e.g. KAnonymity(k=5)).")
    qis = list(quasi_identifiers)
    if not qis:
        raise ParameterError("No quasi-identifier is declared; there is nothing to anonymize.")
    missing = [q for q in qis if q not in hierarchies]
    if missing and spec.full_domain:
        raise HierarchyError(
            f"No hierarchy is given for the quasi-identifier(s) {', '.join(map(repr, missing))}; "
            "give one per QI (a file, or a builder such as intervals or masking)."
        )
    if label is not None:
        if label in qis:
            raise ParameterError(f"The class label {label!r} is a quasi-identifier; choose another attribute.")
        if columns is not None and label not in columns:
            raise ParameterError(f"The class label {label!r} is not a column of the table.")
    for name in list(min_levels or {}) + list(max_levels or {}):
        if name not in qis:
            raise ParameterError(f"A level bound is given for {name!r}, which is not a quasi-identifier.")
    bound = sorted({m.released_by for m in models if getattr(m, "released_by", None)} - {spec.name})
    if bound:  # a model that only a given algorithm's random process achieves (dp: safepub)
        raise ParameterError(f"The models {', '.join(m.name for m in models)} hold only through the {bound[0]} "
                             f"algorithm, not {spec.name}; use --algorithm {bound[0]}.")
    spec.check_options(options)  # none for an algorithm that takes none; each declared one in its range
    if (min_levels or max_levels) and not spec.full_domain:
        raise ParameterError(f"Level bounds apply to full-domain algorithms, not to {spec.name!r}.")


def check_size(models: Sequence[PrivacyModel], n_records: int) -> None:
    """Refuse a ``k`` larger than the table (:class:`ParameterError`)."""
    k = largest_k(models)
    if k is not None and k > n_records:
        raise ParameterError(f"k={k} is larger than the table ({n_records} records): no class can be that large.")


@dataclass(frozen=True)
class Plan:
    """One anonymization as asked for, checked once; the same for every row back-end.

    Attributes
    ----------
    models : tuple of PrivacyModel
        The requested models (every one must hold on the output).
    quasi_identifiers : tuple of str
    sensitive : tuple of str
        The sensitive attributes, the class label appended (the class
        table keeps a histogram of each).
    algorithm : AlgorithmSpec
        From :data:`veil.algorithms.ALGORITHMS`.
    mode : {"blank", "drop", "keep"}
        What the release does with suppressed records.
    suppression_limit, metric, label, weights, min_levels, max_levels, options
        As for :func:`veil.anonymize`.
    shuffle : bool
    seed : int or None
        The shuffle's seed (reported, with a warning, when given).
    """

    models: tuple[PrivacyModel, ...]
    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...]
    algorithm: Any
    mode: str
    suppression_limit: float = 0.0
    metric: str = "loss"
    label: str | None = None
    weights: Mapping[str, float] | None = None
    min_levels: Mapping[str, int] = field(default_factory=dict)
    max_levels: Mapping[str, int] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    shuffle: bool = True
    seed: int | None = None
    max_nodes: int | None = None
    missing_sensitive: str = "value"

    @classmethod
    def make(
        cls,
        models: Sequence[PrivacyModel],
        *,
        quasi_identifiers: Sequence[str],
        sensitive: Sequence[str],
        hierarchies: Mapping[str, Any],
        algorithm: str = "lattice",
        mode: str,
        label: str | None = None,
        min_levels: Mapping[str, int] | None = None,
        max_levels: Mapping[str, int] | None = None,
        options: Mapping[str, Any] | None = None,
        columns: Sequence[str] | None = None,
        n_records: int | None = None,
        **rest: Any,
    ) -> Plan:
        """The plan, after :func:`check_problem` (and :func:`check_size` when ``n_records`` is known).

        ``rest`` holds the remaining fields (``suppression_limit``, ``metric``,
        ``weights``, ``shuffle``, ``seed``).
        """
        from veil.algorithms._registry import get_algorithm

        spec = get_algorithm(algorithm)
        models = _model_tuple(models)
        _check_arguments(rest)
        check_problem(models, quasi_identifiers, hierarchies, spec, label=label, min_levels=min_levels,
                      max_levels=max_levels, options=options, columns=columns)
        if n_records is not None:
            check_size(models, n_records)
        sens = list(dict.fromkeys(sensitive))
        if label is not None and label not in sens:
            sens.append(label)
        return cls(models=models, quasi_identifiers=tuple(quasi_identifiers), sensitive=tuple(sens), algorithm=spec,
                   mode=mode, label=label, min_levels=dict(min_levels or {}), max_levels=dict(max_levels or {}),
                   options=spec.check_options(options), **rest)

    @property
    def searched(self) -> tuple[PrivacyModel, ...]:
        """The models the search and the verification judge: the requested ones and,
        with ``keep``, the suppressed group's (:class:`SuppressedGroup`)."""
        if self.mode == "keep" and sensitive_models(self.models):
            return (*self.models, SuppressedGroup(tuple(sensitive_models(self.models))))
        return self.models

    @property
    def k(self) -> int | None:
        """The largest ``k`` of the k-anonymity models."""
        return largest_k(self.models)

    def problem(self, base: ClassTable, dataset: Any = None, progress: Any = None) -> Any:
        """The algorithm's input (:class:`veil.algorithms.Problem`) on the class table ``base``.

        ``dataset`` is ``None`` when an engine holds the rows.
        """
        from veil.algorithms._registry import Problem
        from veil.utility import get_metric

        check_size(self.models, base.n_records)
        metric_spec = get_metric(self.metric)
        label, weights, k = self.label, self.weights, self.k

        def loss(classes: ClassTable) -> float:
            return metric_spec.loss(classes, label=label, weights=weights, k=k)

        def terms(classes: ClassTable, i: int, levels: Any) -> Any:
            return metric_spec.terms(classes, i, levels, weights=weights)

        qis = base.quasi_identifiers
        models = search_models(self.models, base, mode=self.mode, missing=self.missing_sensitive,
                               suppression_limit=self.suppression_limit, full_domain=self.algorithm.full_domain)
        return Problem(
            models=models,
            dataset=dataset, base=base, suppression_limit=self.suppression_limit, loss=loss,
            metric=self.metric, monotone_metric=metric_spec.bounded_by_unsuppressed, label=label, k=k,
            min_levels=[int(self.min_levels.get(q, 0)) for q in qis],
            max_levels=[int(self.max_levels.get(q, h.height)) for q, h in zip(qis, base.hierarchies)],
            options=dict(self.options), progress=progress, terms=terms if metric_spec.has_terms else None,
            max_nodes=self.max_nodes,
        )


def search(plan: Plan, problem: Any) -> Any:
    """Run the plan's algorithm on ``problem``; its :class:`~veil.algorithms.Outcome`.

    With the rows in memory (``problem.dataset``) the algorithm runs whole
    (a local recoding needs the rows); without them only a full-domain
    algorithm's class-table search runs, and the row back-end applies the node.

    Raises
    ------
    ParameterError
        A local-recoding algorithm without the rows in memory.
    """
    from veil.algorithms._registry import searched_outcome

    spec = plan.algorithm
    if problem.dataset is not None:
        return spec.run(problem)
    if spec.search is None:
        raise ParameterError(
            f"The {spec.name} algorithm recodes rows in memory; a file-to-file engine runs the full-domain "
            "algorithms (lattice, datafly). Use the local engine for it."
        )
    return searched_outcome(problem, spec.search(problem))
