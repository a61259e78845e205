"""``veil.anonymize``: the main job, from a dataset and privacy models to a verified release.

Steps: build the class table once; search the generalization lattice for the
transformation with the least information loss that satisfies every model
within the suppression limit (:mod:`veil.algorithms.lattice`); apply it to the
rows; shuffle the output rows (so the order does not reveal which input
record became which output record); **re-verify** every model from scratch
on the output table; reconcile the row counts; report.  An output that fails
its own requested model raises :class:`~veil.errors.VerificationError`: it
is never returned or written.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from veil.algorithms._recoding import Recoding
from veil.algorithms.lattice import SearchResult, search
from veil.classes import SUPPRESSED, ClassTable
from veil.dataset import MISSING, Dataset
from veil.errors import HierarchyError, InfeasibleError, ParameterError, VerificationError
from veil.models import KAnonymity, PrivacyModel
from veil.utility import METRICS
from veil.schema import Role

__all__ = ["anonymize", "AnonymizationResult", "verify", "ALGORITHMS"]

#: The anonymization algorithms :func:`anonymize` runs, by name.  ``lattice``
#: (the default) is the optimal full-domain search; ``datafly`` a greedy
#: full-domain heuristic; ``mondrian`` multidimensional local recoding;
#: ``tds`` top-down specialization (HDTDS, for LKC-privacy and classification);
#: ``mdav`` microaggregation of numeric quasi-identifiers.
ALGORITHMS = ("lattice", "datafly", "mondrian", "tds", "mdav")

#: Utility metrics that need no hierarchy (computed on the released classes of
#: a local recoding); the full-domain metrics need one level per attribute.
_RECODING_METRICS = ("discernibility", "avg-class-size", "classification")
#: Utility figures local-recoding algorithms compute themselves: report name ->
#: key of ``Recoding.details`` (Mondrian's NCP, MDAV's SSE/SST).
_RECODING_FIGURES = {"ncp": "ncp", "sse_sst": "information_loss"}

#: Metrics whose loss never goes down when records are suppressed, so the loss
#: of a node's unsuppressed table bounds the loss of every later node.
#: The registry's ``bounded_by_unsuppressed`` fact (:data:`veil.utility.METRICS`).
_BOUNDED_BY_UNSUPPRESSED = frozenset(
    name for name, spec in METRICS.items() if spec.bounded_by_unsuppressed
)


@dataclass
class AnonymizationResult:
    """What :func:`anonymize` returns.

    Attributes
    ----------
    data : pandas.DataFrame
        The released table (QIs generalized, suppressed records ``*``, rows
        shuffled unless asked otherwise).
    transformation : dict of str to int
        The chosen level per quasi-identifier.
    classes : ClassTable
        The search's class table at the chosen node, violating classes suppressed.
    verified : ClassTable
        The class table rebuilt from ``data`` for the verification.
    search : SearchResult
    report : dict
        The JSON report (see ``docs/anonymization.md``).
    """

    data: pd.DataFrame
    transformation: dict[str, int]
    classes: ClassTable
    verified: ClassTable
    search: SearchResult
    report: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return self.report


def _k_of(models: Sequence[PrivacyModel]) -> int | None:
    ks = [m.k for m in models if isinstance(m, KAnonymity)]
    return max(ks) if ks else None


def verify(
    data: pd.DataFrame,
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    label: str | None = None,
) -> ClassTable:
    """Rebuild the class table from released rows and check every model on it.

    The QIs are read as the released labels (flat hierarchies): the check
    does not trust the search.  Records with ``*`` in every QI are the
    suppressed ones.

    Raises
    ------
    VerificationError
        A model fails on the released table.
    """
    sensitive = list(dataset.sensitive)
    if label is not None and label not in sensitive:
        sensitive.append(label)
    kinds = {name: dataset.schema.kind(name).value for name in sensitive if name in dataset.schema}
    # the input's value order (ordered t-closeness); the missing-value label is
    # added back by the encoding itself
    domains = {name: [str(v) for v in dataset.encode(name).labels if str(v) != MISSING] for name in sensitive}
    released = Dataset.from_pandas(
        data, quasi_identifiers=dataset.quasi_identifiers, sensitive=sensitive, kinds=kinds,
        domains=domains,
        missing=dataset.missing,
    )
    hierarchies = {name: dataset.hierarchies[name] for name in sensitive if name in dataset.hierarchies}
    classes = ClassTable.from_dataset(released, hierarchies=hierarchies)
    if len(data) < dataset.n_records:
        # suppressed records were dropped: judge distributions against the whole input
        # table, suppressed records included, exactly as the search did
        for name in sensitive:
            hist = classes.sensitive[name]
            original = dataset.encode(name)
            counts = np.bincount(original.codes, minlength=original.n_values)
            position = pd.Index(original.labels).get_indexer(hist.labels)
            overall = np.where(position >= 0, counts[np.maximum(position, 0)], 0).astype(np.int64)
            if overall.sum() != dataset.n_records:  # a value only the input has: widen the domain
                raise VerificationError(f"The released values of {name!r} do not match the input's.")
            classes.sensitive[name] = replace(hist, overall=overall)
    failed = [m for m in models if not m.check(classes)]
    if failed:
        names = ", ".join(m.name for m in failed)
        raise VerificationError(
            f"The anonymized table fails its own requested model(s): {names}. This is a bug in veil; "
            "nothing was written. Please report it with the configuration."
        )
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
    progress: Callable[[int, int], None] | None = None,
    algorithm: str = "lattice",
    options: Mapping[str, Any] | None = None,
) -> AnonymizationResult:
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
        Seed of the shuffle, for reproducible output.
    drop_suppressed : bool, default False
        Drop suppressed records instead of keeping them with ``*``.
    progress : callable, optional
        ``progress(done, total)`` during the search.
    algorithm : str, default "lattice"
        One of :data:`ALGORITHMS`.  ``lattice`` finds the optimum of
        ``metric``; the others are heuristics (see ``docs/algorithms/``).
        Local-recoding algorithms (``mondrian``, ``tds``, ``mdav``) report an
        empty ``transformation`` and their own facts under ``recoding``.
    options : mapping, optional
        Extra keyword arguments of the chosen algorithm (e.g. ``{"strict":
        False}`` for Mondrian, ``{"score": "infogain"}`` for TDS).

    Returns
    -------
    AnonymizationResult

    Raises
    ------
    HierarchyError
        A quasi-identifier has no hierarchy.
    ParameterError
        Bad parameters (``k`` larger than the table, unknown metric, ...).
    InfeasibleError
        No transformation satisfies the models within the suppression limit.
    VerificationError
        The output failed its own re-check (a bug; nothing is returned).
    """
    from veil.models import evaluate
    from veil.risk import assess
    from veil.utility import METRICS, get_metric, utility_report

    start = time.perf_counter()
    models = list(models)
    if not models:
        raise ParameterError("At least one privacy model is needed to anonymize (e.g. KAnonymity(k=5)).")
    qis = dataset.quasi_identifiers
    if not qis:
        raise ParameterError("The dataset declares no quasi-identifiers; there is nothing to anonymize.")
    missing = [q for q in qis if q not in dataset.hierarchies]
    if missing and algorithm in ("lattice", "datafly"):
        raise HierarchyError(
            f"No hierarchy is given for the quasi-identifier(s) {', '.join(map(repr, missing))}; "
            "give one per QI (a file, or a builder such as intervals or masking)."
        )
    k = _k_of(models)
    if k is not None and k > dataset.n_records:
        raise ParameterError(
            f"k={k} is larger than the table ({dataset.n_records} records): no class can be that large."
        )
    metric_spec = get_metric(metric)
    sensitive = list(dataset.sensitive)
    if label is not None:
        if label in qis:
            raise ParameterError(f"The class label {label!r} is a quasi-identifier; choose another attribute.")
        if label not in dataset.columns:
            raise ParameterError(f"The class label {label!r} is not a column of the table.")
        if label not in sensitive:
            sensitive.append(label)
    base = ClassTable.from_dataset(dataset, sensitive=sensitive)

    def loss(classes: ClassTable) -> float:
        return metric_spec.loss(classes, label=label, weights=weights, k=k)

    low = [int((min_levels or {}).get(q, 0)) for q in qis]
    high = [int((max_levels or {}).get(q, h.height)) for q, h in zip(qis, base.hierarchies)]
    for name in list(min_levels or {}) + list(max_levels or {}):
        if name not in qis:
            raise ParameterError(f"A level bound is given for {name!r}, which is not a quasi-identifier.")
    options = dict(options or {})
    recoding: Recoding | None = None
    result: SearchResult | None = None
    if algorithm in ("lattice", "datafly"):
        if options:
            raise ParameterError(
                f"The {algorithm} algorithm takes no options. Got {', '.join(map(repr, options))}."
            )
        if algorithm == "lattice":
            result = search(
                base, models, loss=loss, metric_name=metric,
                monotone_metric=metric_spec.bounded_by_unsuppressed,
                suppression_limit=suppression_limit, min_levels=low, max_levels=high, progress=progress,
            )
        else:
            from veil.algorithms.datafly import datafly

            result = datafly(
                base, models, loss=loss, suppression_limit=suppression_limit,
                min_levels=low, max_levels=high, progress=progress,
            )
        data = result.classes.apply(dataset, drop_suppressed=drop_suppressed)
        suppressed = int(result.classes.suppressed)
        newly_suppressed = suppressed - result.classes.input_suppressed
        transformation = dict(zip(qis, (int(x) for x in result.node)))
        search_report = {
            "algorithm": result.algorithm,
            "nodes_total": result.nodes_total,
            "nodes_checked": result.nodes_checked,
            "seconds": round(result.seconds, 6),
        }
    elif algorithm in ALGORITHMS:
        if min_levels or max_levels:
            raise ParameterError(f"Level bounds apply to full-domain algorithms, not to {algorithm!r}.")
        recoding = _recode(algorithm, dataset, models, suppression_limit=suppression_limit,
                           label=label, k=k, options=options)
        data = recoding.data
        star = np.ones(len(data), dtype=np.bool_)
        for name in qis:
            star &= data[name].astype(str).to_numpy() == SUPPRESSED
        suppressed = int(star.sum())
        newly_suppressed = suppressed - int(base.input_suppressed)
        if newly_suppressed > np.floor(suppression_limit * (dataset.n_records - base.input_suppressed) + 1e-9):
            raise VerificationError(
                f"The {algorithm} algorithm suppressed {newly_suppressed} records, more than the "
                f"suppression limit allows. This is a bug in veil; nothing was written."
            )
        if drop_suppressed:
            data = data.loc[~star].reset_index(drop=True)
        transformation = {}
        search_report = {
            "algorithm": recoding.algorithm,
            "nodes_total": None,
            "nodes_checked": None,
            "seconds": round(recoding.seconds, 6),
        }
    else:
        raise ParameterError(f"The 'algorithm' parameter must be one of {', '.join(ALGORITHMS)}. Got {algorithm!r} instead.")
    if shuffle:
        order = np.random.default_rng(seed).permutation(len(data))
        data = data.iloc[order].reset_index(drop=True)
    dropped = dataset.n_records - len(data)
    if dropped != (suppressed if drop_suppressed else 0):  # dropping drops input-suppressed rows too
        raise VerificationError(
            f"Row counts do not reconcile: {dataset.n_records} in, {len(data)} out, {suppressed} suppressed."
        )
    if len(data):
        verified = verify(data, dataset, models, label=label)
    else:  # every record was suppressed and dropped: check the all-'*' table it stands for
        everything = data.reindex(range(dataset.n_records)).copy()
        for name in dataset.columns:
            everything[name] = dataset.frame[name].to_numpy()
        for name in qis:
            everything[name] = SUPPRESSED
        verified = verify(everything, dataset, models, label=label)
    risk_before = assess(base, qi_subsets_max_size=0).to_dict()
    risk_after = assess(verified, qi_subsets_max_size=0).to_dict()
    achieved = evaluate(verified).to_dict()
    if result is not None:
        utility = utility_report(result.classes, original=base, label=label, weights=weights, k=k)
    else:
        utility = {name: None for name in METRICS}
        for name in _RECODING_METRICS:
            spec = METRICS[name]
            if (spec.needs_label and label is None) or (spec.needs_k and k is None):
                continue
            utility[name] = spec.value(verified, label=label, weights=weights, k=k, original=None)
        for name, key in _RECODING_FIGURES.items():  # the algorithm's own utility figure
            if key in recoding.details:  # type: ignore[union-attr]
                utility[name] = float(recoding.details[key])  # type: ignore[union-attr]
    report = {
        "transformation": transformation,
        "records": dataset.n_records,
        "records_out": len(data),
        "suppressed": int(suppressed),
        "suppressed_dropped": int(dropped),
        "input_suppressed": int(base.input_suppressed),
        "suppression_limit": suppression_limit,
        "models": [m.name for m in models],
        "metric": metric,
        "achieved": achieved,
        "utility": utility,
        "risk_before": risk_before,
        "risk_after": risk_after,
        "search": search_report,
        "output_order": {"shuffled": bool(shuffle), "seed": seed},
        "verified": True,
        "seconds_total": 0.0,
    }
    if recoding is not None:
        report["recoding"] = {
            "algorithm": recoding.algorithm,
            "groups": int(recoding.groups),
            "details": dict(recoding.details),
        }
    report["seconds_total"] = round(time.perf_counter() - start, 6)
    search_result = result if result is not None else SearchResult(
        node=(), classes=verified, loss=float("nan"), nodes_total=0, nodes_checked=0,
        seconds=recoding.seconds, algorithm=recoding.algorithm,  # type: ignore[union-attr]
    )
    classes = result.classes if result is not None else verified
    return AnonymizationResult(data, transformation, classes, verified, search_result, report)


def _recode(
    algorithm: str,
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    suppression_limit: float,
    label: str | None,
    k: int | None,
    options: dict[str, Any],
) -> Recoding:
    """Run a local-recoding algorithm (its module is imported only when asked for)."""
    try:
        if algorithm == "mondrian":
            from veil.algorithms.mondrian import mondrian

            return mondrian(dataset, models, suppression_limit=suppression_limit, **options)
        if algorithm == "tds":
            from veil.algorithms.tds import top_down_specialization

            if label is None:
                raise ParameterError("The tds algorithm needs a class label (label=...) to score specializations.")
            return top_down_specialization(dataset, models, label=label, **options)
        from veil.algorithms.microaggregation import mdav

        if k is None:
            raise ParameterError("The mdav algorithm needs a k-anonymity model (it forms groups of at least k).")
        return mdav(dataset, list(dataset.quasi_identifiers), k=k, **options)
    except TypeError as exc:
        raise ParameterError(f"Bad option for the {algorithm} algorithm: {exc}") from None
