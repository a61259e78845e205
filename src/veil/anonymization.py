"""``veil.anonymize``: the main job, from a dataset and privacy models to a verified release.

The steps, each a named function below (``docs/architecture.md`` draws them):

1. **plan**: check the problem, decide each column's treatment through the
   release policy (:class:`veil.pipeline.ReleasePolicy`: identifiers dropped,
   unlisted columns withheld, published columns scanned for identifiers) and
   build the class table once;
2. **search**: run the algorithm named (:data:`veil.algorithms.ALGORITHMS`);
   with ``suppressed="keep"`` the suppressed group must meet the sensitive
   models too, and the search accounts for it;
3. **apply**: the chosen transformation on the rows, the suppressed records
   dropped, blanked or kept, only the published columns, the rows shuffled by
   OS randomness (a seed only on request: it would undo the shuffle);
4. **verify**: every model re-checked from scratch on the released table;
   an output that fails its own requested model raises
   :class:`~veil.errors.VerificationError` and is never returned.

Writing (and the second, independent verification of the written file) is
:func:`veil.release.run_config`'s, through :class:`veil.pipeline.Outputs`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from veil.algorithms.lattice import SearchResult
from veil.classes import SUPPRESSED, ClassTable
from veil.dataset import MISSING, Dataset
from veil.errors import HierarchyError, InfeasibleError, ParameterError, VerificationError
from veil.models import KAnonymity, PrivacyModel
from veil.pipeline._policy import ColumnTreatment, ReleasePolicy, suppressed_mode
from veil.pipeline._report import SEED_WARNING, release_report
from veil.pipeline._rows import blank_rows, take_rows
from veil.pipeline._suppressed import SuppressedGroup, sensitive_models
from veil.utility import METRICS

__all__ = ["anonymize", "AnonymizationResult", "verify", "ALGORITHMS", "largest_k", "SEED_WARNING"]

#: The anonymization algorithms :func:`anonymize` runs, by name (the registry
#: :data:`veil.algorithms.ALGORITHMS` may hold more).
ALGORITHMS = ("lattice", "datafly", "mondrian", "tds", "mdav")

#: Metrics whose loss never goes down when records are suppressed, so the loss
#: of a node's unsuppressed table bounds the loss of every later node.
#: The registry's ``bounded_by_unsuppressed`` fact (:data:`veil.utility.METRICS`), read at
#: search time so that a metric registered later is judged by its own fact.
BOUNDED_BY_UNSUPPRESSED = frozenset(name for name, spec in METRICS.items() if spec.bounded_by_unsuppressed)
_BOUNDED_BY_UNSUPPRESSED = BOUNDED_BY_UNSUPPRESSED  # old private name, kept for one release

@dataclass
class AnonymizationResult:
    """What :func:`anonymize` returns.

    Attributes
    ----------
    data : pandas.DataFrame
        The released table: the published columns only, QIs generalized,
        suppressed records per the ``suppressed`` mode, rows shuffled unless
        asked otherwise.
    transformation : dict of str to int
        The chosen level per quasi-identifier (empty for local recodings).
    classes : ClassTable
        The search's class table at the chosen node, violating classes suppressed.
    verified : ClassTable
        The class table rebuilt from ``data`` for the verification.
    search : SearchResult
    report : dict
        The JSON report (see ``docs/anonymization.md``).
    source_rows : numpy.ndarray
        For each released row, the input row it came from.  Kept in memory
        for the verification of the written file; never written.
    columns : list of ColumnTreatment
        Every input column's role and treatment.
    suppressed_mode : str
        ``drop``, ``blank`` or ``keep``.
    """

    data: pd.DataFrame
    transformation: dict[str, int]
    classes: ClassTable
    verified: ClassTable
    search: SearchResult
    report: dict[str, Any] = field(default_factory=dict)
    source_rows: np.ndarray | None = field(default=None, repr=False)
    columns: list[ColumnTreatment] = field(default_factory=list)
    suppressed_mode: str = "blank"

    def to_dict(self) -> dict[str, Any]:
        return self.report


def largest_k(models: Sequence[PrivacyModel]) -> int | None:
    """The largest ``k`` among the k-anonymity models, or ``None``."""
    ks = [m.k for m in models if isinstance(m, KAnonymity)]
    return max(ks) if ks else None


_k_of = largest_k  # old private name, kept for one release


def _star_rows(data: pd.DataFrame, qis: Sequence[str]) -> np.ndarray:
    star = np.ones(len(data), dtype=np.bool_)
    for name in qis:
        star &= data[name].astype(str).to_numpy() == SUPPRESSED
    return star


def verify(
    data: pd.DataFrame,
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    label: str | None = None,
    suppressed: str = "blank",
    suppressed_rows: np.ndarray | None = None,
) -> ClassTable:
    """Rebuild the class table from released rows and check every model on it.

    The QIs are read as the released labels (flat hierarchies): the check
    does not trust the search.  Records with ``*`` in every QI are the
    suppressed ones: with ``suppressed="keep"`` they are published with
    their sensitive values and, as one group, must meet every model that
    reads a sensitive attribute; otherwise they are left out of the check
    and the distributions are judged against the whole input.

    ``suppressed_rows`` marks the suppressed rows of ``data`` when known
    (default: the rows with ``*`` in every QI; a full-domain node can also
    generalize a class to ``*`` everywhere without suppressing it).

    Raises
    ------
    VerificationError
        A model fails on the released table.
    """
    qis = dataset.quasi_identifiers
    sensitive = list(dataset.sensitive)
    if label is not None and label not in sensitive and label in data.columns:
        sensitive.append(label)
    if suppressed != "keep":
        mask = _star_rows(data, qis) if suppressed_rows is None else np.asarray(suppressed_rows, dtype=np.bool_)
        if mask.any():  # nothing to leave out: the rows as they are (never modified)
            data = take_rows(data, np.flatnonzero(~mask))
    if len(data) == 0:  # every record was suppressed: check the all-'*' table it stands for
        data = dataset.frame.copy()
        for name in qis:
            data[name] = SUPPRESSED
    classes = _released_classes(data, dataset, sensitive)
    checked = list(models)
    if suppressed == "keep" and sensitive_models(models):
        checked.append(SuppressedGroup(tuple(sensitive_models(models))))
    failed = [m for m in checked if not m.check(classes)]
    if failed:
        names = ", ".join(m.name for m in failed)
        raise VerificationError(
            f"The anonymized table fails its own requested model(s): {names}. This is a bug in veil; "
            "nothing was written. Please report it with the configuration."
        )
    return classes


def _released_classes(data: pd.DataFrame, dataset: Dataset, sensitive: Sequence[str]) -> ClassTable:
    """The class table of released rows, the QIs as flat labels; distributions
    judged against the whole input (suppressed records included)."""
    kinds = {name: dataset.schema.kind(name).value for name in sensitive if name in dataset.schema}
    # the input's value order (ordered t-closeness); the missing-value label is
    # added back by the encoding itself
    domains = {name: [str(v) for v in dataset.encode(name).labels if str(v) != MISSING] for name in sensitive}
    released = Dataset.from_pandas(
        data, quasi_identifiers=dataset.quasi_identifiers, sensitive=sensitive, kinds=kinds,
        domains=domains, missing=dataset.missing,
    )
    hierarchies = {name: dataset.hierarchies[name] for name in sensitive if name in dataset.hierarchies}
    classes = ClassTable.from_dataset(released, hierarchies=hierarchies)
    if len(data) < dataset.n_records:
        for name in sensitive:
            hist = classes.sensitive[name]
            original = dataset.encode(name)
            counts = np.bincount(original.codes, minlength=original.n_values)
            position = pd.Index(original.labels).get_indexer(hist.labels)
            overall = np.where(position >= 0, counts[np.maximum(position, 0)], 0).astype(np.int64)
            if overall.sum() != dataset.n_records:  # a value only the input has: widen the domain
                raise VerificationError(f"The released values of {name!r} do not match the input's.")
            classes.sensitive[name] = replace(hist, overall=overall)
    return classes


def anonymize(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    suppression_limit: float = 0.0,
    metric: str = "loss",
    label: str | None = None,
    weights: Mapping[str, float] | None = None,
    min_levels: Mapping[str, int] | None = None,
    max_levels: Mapping[str, int] | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    drop_suppressed: bool = False,
    progress: Callable[[str, int | None, int | None], None] | None = None,
    algorithm: str = "lattice",
    options: Mapping[str, Any] | None = None,
    suppressed: str | None = None,
    keep_unlisted: bool = False,
    allow_identifiers: Sequence[str] = (),
    policy: ReleasePolicy | None = None,
) -> AnonymizationResult:
    # long: the public entry point: its numpydoc docstring documents every parameter; the body is the five named steps
    """Anonymize ``dataset`` so that it satisfies every model, with the least loss.

    Parameters
    ----------
    dataset : Dataset
        The table, its schema (quasi-identifiers, sensitive attributes) and a
        hierarchy for every quasi-identifier.
    models : sequence of PrivacyModel
        Every model must hold on the output.
    suppression_limit : float in [0, 1]
        The largest share of records that may be suppressed (``*`` in every QI).
    metric : str
        The utility metric to minimise, a key of :data:`veil.utility.METRICS`.
    label : str, optional
        The class attribute for the ``classification`` and ``infogain`` metrics.
    weights : mapping, optional
        ILoss weights per attribute.
    min_levels, max_levels : mapping of str to int, optional
        Bounds on each attribute's level.
    shuffle : bool, default True
        Shuffle the output rows, so their order does not link them to input rows.
    seed : int, optional
        Seed of the shuffle, for a reproducible order.  Default: OS
        randomness.  A seed undoes the shuffle for whoever knows it: the
        report then says so (``output_order.seed`` and a warning).
    drop_suppressed : bool, default False
        The old name of ``suppressed="drop"``.
    progress : callable, optional
        ``progress(phase, done, total)`` at each phase (``encode``,
        ``search`` with nodes checked out of the total, ``apply``,
        ``verify``); see :mod:`veil.progress`.  Default: no reports.
    algorithm : str, default "lattice"
        A name of :data:`veil.algorithms.ALGORITHMS`.  ``lattice`` finds the
        optimum of ``metric``; the others are heuristics (see
        ``docs/algorithms/``).  Local-recoding algorithms (``mondrian``,
        ``tds``, ``mdav``) report an empty ``transformation`` and their own
        facts under ``recoding``.
    options : mapping, optional
        Extra keyword arguments of the chosen algorithm.
    suppressed : {"blank", "drop", "keep"}, default "blank"
        What the release does with suppressed records: ``blank`` publishes
        them with ``*`` in every QI and every sensitive attribute; ``drop``
        leaves them out; ``keep`` publishes their sensitive values, and the
        suppressed group must then meet every model that reads a sensitive
        attribute (the search accounts for it).
    keep_unlisted : bool, default False
        Publish columns with no declared role unchanged (else they are withheld).
    allow_identifiers : sequence of str
        Published columns the identifier scan may flag, allowed by name.
    policy : ReleasePolicy, optional
        The whole column policy (overrides ``keep_unlisted`` and ``allow_identifiers``).

    Returns
    -------
    AnonymizationResult

    Raises
    ------
    HierarchyError
        A quasi-identifier has no hierarchy.
    ParameterError
        Bad parameters (``k`` larger than the table, unknown metric, ...).
    IdentifierLeakError
        A published column looks like a direct identifier (see :class:`~veil.pipeline.ReleasePolicy`).
    InfeasibleError
        No transformation satisfies the models within the suppression limit.
    VerificationError
        The output failed its own re-check (a bug; nothing is returned).
    """
    from veil.algorithms._registry import get_algorithm
    from veil.progress import no_progress, search_progress

    start = time.perf_counter()
    phase = progress or no_progress
    models = list(models)
    policy = policy or ReleasePolicy(keep_unlisted=keep_unlisted, allow_identifiers=tuple(allow_identifiers))
    mode = suppressed_mode(suppressed, drop_suppressed=drop_suppressed)
    spec = get_algorithm(algorithm)
    _check_problem(dataset, models, spec, label, min_levels, max_levels, options)
    columns = policy.columns(dataset)
    published = [c.name for c in columns if c.treatment != "dropped"]
    # quasi-identifiers are generalized and judged by the models; every column published as it is is scanned
    policy.check_identifiers(dataset.frame, [c.name for c in columns if c.treatment not in ("dropped", "generalized")])
    phase("encode", None, None)
    problem = _problem(dataset, models, mode, suppression_limit=suppression_limit, metric=metric, label=label,
                       weights=weights, min_levels=min_levels, max_levels=max_levels, options=options,
                       progress=search_progress(phase))
    phase("search", None, None)
    outcome = spec.run(problem)
    phase("apply", None, None)
    star = outcome.suppressed_rows
    if star is None:  # a local recoding: the records with '*' in every QI
        star = _star_rows(outcome.data, dataset.quasi_identifiers)
    _check_suppression(outcome, star, problem, mode)
    data, source_rows = _publish(outcome.data, star, dataset, mode, published, shuffle=shuffle, seed=seed)
    phase("verify", None, None)
    verified = verify(data, dataset, models, label=label, suppressed=mode, suppressed_rows=star[source_rows])
    columns = [replace(c, level=outcome.transformation.get(c.name)) for c in columns]
    report = release_report(dataset, models, problem, outcome, verified, data, star, mode, columns,
                            weights=weights, shuffle=shuffle, seed=seed)
    report["seconds_total"] = round(time.perf_counter() - start, 6)
    search_result = outcome.search or SearchResult(
        node=(), classes=verified, loss=float("nan"), nodes_total=0, nodes_checked=0,
        seconds=outcome.seconds, algorithm=outcome.algorithm,
    )
    classes = outcome.search.classes if outcome.search is not None else verified
    return AnonymizationResult(data, outcome.transformation, classes, verified, search_result, report,
                               source_rows, columns, mode)


def _check_problem(dataset, models, spec, label, min_levels, max_levels, options) -> None:
    """Refuse a bad problem before any work (one message per rule)."""
    if not models:
        raise ParameterError("At least one privacy model is needed to anonymize (e.g. KAnonymity(k=5)).")
    qis = dataset.quasi_identifiers
    if not qis:
        raise ParameterError("The dataset declares no quasi-identifiers; there is nothing to anonymize.")
    missing = [q for q in qis if q not in dataset.hierarchies]
    if missing and spec.full_domain:
        raise HierarchyError(
            f"No hierarchy is given for the quasi-identifier(s) {', '.join(map(repr, missing))}; "
            "give one per QI (a file, or a builder such as intervals or masking)."
        )
    k = largest_k(models)
    if k is not None and k > dataset.n_records:
        raise ParameterError(
            f"k={k} is larger than the table ({dataset.n_records} records): no class can be that large."
        )
    if label is not None:
        if label in qis:
            raise ParameterError(f"The class label {label!r} is a quasi-identifier; choose another attribute.")
        if label not in dataset.columns:
            raise ParameterError(f"The class label {label!r} is not a column of the table.")
    for name in list(min_levels or {}) + list(max_levels or {}):
        if name not in qis:
            raise ParameterError(f"A level bound is given for {name!r}, which is not a quasi-identifier.")
    if options and not spec.takes_options:
        raise ParameterError(f"The {spec.name} algorithm takes no options. Got {', '.join(map(repr, options))}.")
    if (min_levels or max_levels) and not spec.full_domain:
        raise ParameterError(f"Level bounds apply to full-domain algorithms, not to {spec.name!r}.")


def _problem(dataset, models, mode, *, suppression_limit, metric, label, weights, min_levels, max_levels,
             options, progress):
    """The algorithm's input: the class table once, the loss, the bounds and, with
    ``keep``, the suppressed group's model."""
    from veil.algorithms._registry import Problem
    from veil.utility import get_metric

    metric_spec = get_metric(metric)
    k = largest_k(models)
    sensitive = list(dataset.sensitive)
    if label is not None and label not in sensitive:
        sensitive.append(label)
    base = ClassTable.from_dataset(dataset, sensitive=sensitive)
    qis = dataset.quasi_identifiers
    searched = list(models)
    if mode == "keep" and sensitive_models(models):
        searched.append(SuppressedGroup(tuple(sensitive_models(models))))

    def loss(classes: ClassTable) -> float:
        return metric_spec.loss(classes, label=label, weights=weights, k=k)

    return Problem(
        dataset=dataset, base=base, models=tuple(searched), suppression_limit=suppression_limit, loss=loss,
        metric=metric, monotone_metric=metric_spec.bounded_by_unsuppressed, label=label, k=k,
        min_levels=[int((min_levels or {}).get(q, 0)) for q in qis],
        max_levels=[int((max_levels or {}).get(q, h.height)) for q, h in zip(qis, base.hierarchies)],
        options=dict(options or {}), progress=progress,
    )


def _check_suppression(outcome, star: np.ndarray, problem, mode: str) -> None:
    """The suppression limit, and (``keep``) the suppressed group, for algorithms
    whose search does not account for them."""
    base = problem.base
    newly = int(star.sum()) - int(base.input_suppressed)
    limit = np.floor(problem.suppression_limit * (base.n_records - base.input_suppressed) + 1e-9)
    if newly > limit:
        raise VerificationError(
            f"The {outcome.algorithm} algorithm suppressed {newly} records, more than the "
            f"suppression limit allows. This is a bug in veil; nothing was written."
        )
    group = [m for m in problem.models if isinstance(m, SuppressedGroup)]
    if group and outcome.search is None:
        try:
            verify(outcome.data, problem.dataset, group[0].models, label=None, suppressed="keep")
        except VerificationError:
            raise InfeasibleError(
                f"The records the {outcome.algorithm} algorithm suppressed do not meet "
                f"{group[0].name.removeprefix('suppressed group: ')} as one group, so they cannot be published "
                "with their sensitive values; use suppressed: blank or drop."
            ) from None


def _publish(data, star, dataset, mode, published, *, shuffle, seed):
    """The released rows: suppressed ones dropped, blanked or kept; the published
    columns only; shuffled.  Returns the table and each row's input row."""
    rows = np.flatnonzero(~star) if mode == "drop" else np.arange(len(data))
    if shuffle:
        rows = rows[np.random.default_rng(seed).permutation(len(rows))]  # seed None: OS entropy
    out = take_rows(data.loc[:, list(published)], rows)  # one take per column, drop and shuffle together
    if mode == "blank" and star.any():
        blank = star[rows]
        for name in dataset.sensitive:
            if name in out.columns:
                out[name] = blank_rows(out[name], blank, SUPPRESSED)
    return out, rows
