"""``veil.anonymize``: the main job, from a dataset and privacy models to a verified release.

The steps (``docs/architecture.md`` draws them), each a step of the one pipeline:

1. **plan** (:class:`veil.pipeline.Plan`): check the problem, decide each column's treatment through the
   release policy (:class:`veil.pipeline.ReleasePolicy`: identifiers dropped,
   unlisted columns withheld, published columns scanned for identifiers) and
   build the class table once;
2. **search** (:func:`veil.pipeline.run`): run the algorithm named (:data:`veil.algorithms.ALGORITHMS`);
   with ``suppressed="keep"`` the suppressed group must meet the sensitive
   models too, and the search accounts for it;
3. **apply** (:class:`veil.pipeline.MemoryRows`): the chosen transformation on the rows, the suppressed records
   dropped, blanked or kept, only the published columns, the rows shuffled by
   OS randomness (a seed only on request: it would undo the shuffle);
4. **verify** (:func:`verify`, below): every model re-checked from scratch on the released table;
   an output that fails its own requested model raises
   :class:`~veil.errors.VerificationError` and is never returned.

The steps are the one pipeline's (:func:`veil.pipeline.run`, the same path
:func:`veil.engines.anonymize_file` takes through an engine); this module is
its in-memory entry point.  Writing (and the second, independent verification
of the written file) is :func:`veil.release.run_config`'s, through
:class:`veil.pipeline.Outputs`.
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
from veil.classes._build import build, code_counts
from veil.dataset import MISSING, Dataset
from veil.errors import ParameterError, VerificationError
from veil.models import PrivacyModel
from veil.pipeline._memory import MemoryRows
from veil.pipeline._plan import Plan, largest_k
from veil.pipeline._policy import ColumnTreatment, ReleasePolicy, suppressed_mode
from veil.pipeline._report import SEED_WARNING
from veil.pipeline._run import run
from veil.pipeline._suppressed import SuppressedGroup, check_models, sensitive_models, suppressed_rows
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


_k_of = largest_k  # old private name, kept for one release (largest_k lives in veil.pipeline._plan)
_star_rows = suppressed_rows  # verify's name for veil.pipeline._suppressed.suppressed_rows


def verify(
    data: pd.DataFrame,
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    label: str | None = None,
    suppressed: str = "blank",
    suppressed_rows: np.ndarray | None = None,
    weights: np.ndarray | None = None,
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

    ``weights`` gives each row of ``data`` the number of released rows it
    stands for (the written file's rows counted by their cells, batch by
    batch: :func:`veil.pipeline.verify_written`); default one each.

    Raises
    ------
    VerificationError
        A model fails on the released table.
    """
    qis = dataset.quasi_identifiers
    sensitive = list(dataset.sensitive)
    if label is not None and label not in sensitive and label in data.columns:
        sensitive.append(label)
    left_out = None  # the suppressed rows: out of the classes, counted as suppressed (never modified)
    if suppressed != "keep":
        left_out = _star_rows(data, qis) if suppressed_rows is None else np.asarray(suppressed_rows, dtype=np.bool_)
    if weights is None:  # one record per row: the rows not left out, counted without a mask copy
        remaining = len(data) - (0 if left_out is None else int(np.count_nonzero(left_out)))
    else:
        counts = np.asarray(weights, dtype=np.int64)
        remaining = int(counts.sum() if left_out is None else counts[~left_out].sum())
    if remaining == 0:
        # every record was suppressed: check the all-'*' table it stands for
        data, weights, left_out = dataset.frame.copy(), None, None
        for name in qis:
            data[name] = SUPPRESSED
    classes = _released_classes(data, dataset, sensitive, weights, left_out)
    checked = list(models)
    if suppressed == "keep" and sensitive_models(models):
        checked.append(SuppressedGroup(tuple(sensitive_models(models))))
    check_models(checked, classes)
    return classes


def _released_classes(data: pd.DataFrame, dataset: Dataset, sensitive: Sequence[str],
                      weights: np.ndarray | None = None, left_out: np.ndarray | None = None) -> ClassTable:
    """The class table of released rows (``weights``: each row's count; ``left_out``: the
    suppressed rows, default ``*`` in every QI), the QIs as flat labels; distributions
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
    # a QI released as a categorical is read from its own codes (what its encoding would read), not re-encoded
    qis = released.columns_of(dataset.quasi_identifiers)
    classes = build(released, hierarchies=hierarchies, weights=weights, suppressed_rows=left_out, columns=qis)
    if classes.n_records - classes.suppressed < dataset.n_records:
        for name in sensitive:
            hist = classes.sensitive[name]
            original = dataset.encode(name)
            counts = code_counts(original.codes, original.n_values)
            if original.missing_code >= 0 and MISSING not in hist.labels:
                # missing values only in records left out: the input's domain has them (coded last)
                hierarchy = None if hist.hierarchy is None else hist.hierarchy.with_value(MISSING)
                hist = replace(hist, labels=np.append(hist.labels, np.array([MISSING], dtype=object)),
                               counts=np.column_stack([hist.counts, np.zeros(len(hist.counts), np.int64)]),
                               hierarchy=hierarchy)
            position = pd.Index(original.labels).get_indexer(hist.labels)
            if (position < 0).any():  # a value of the suppressed rows alone (their blanked '*'): not in any class
                if hist.counts[:, position < 0].any():
                    raise VerificationError(f"A released value of {name!r} is not one of the input's.")
                kept = position >= 0
                hist, position = replace(hist, labels=hist.labels[kept], counts=hist.counts[:, kept]), position[kept]
            overall = np.where(position >= 0, counts[np.maximum(position, 0)], 0).astype(np.int64)
            if overall.sum() != dataset.n_records:  # a value only the input has: widen the domain
                raise VerificationError(f"The released values of {name!r} do not match the input's.")
            classes.sensitive[name] = replace(hist, overall=overall)
    return classes


# long because it is the public entry point with a full numpydoc docstring (parameters, returns,
# raises, examples); the body only makes the plan and runs the one pipeline (veil.pipeline.run)
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
    max_nodes: int | None = None,
) -> AnonymizationResult:
    # long: the public entry point: its numpydoc docstring documents every parameter; the body makes the plan and runs the pipeline
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
    max_nodes : int >= 1, optional
        The largest generalization lattice the ``lattice`` search enumerates (default 10,000,000;
        ``docs/algorithms/lattice.md``): a larger one is refused before any work.

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
    start = time.perf_counter()
    if not isinstance(dataset, Dataset):
        raise ParameterError(f"The 'dataset' parameter of anonymize must be a veil Dataset (Dataset.from_pandas or "
                             f"Dataset.read). Got {type(dataset).__name__} instead.")
    policy = policy or ReleasePolicy(keep_unlisted=keep_unlisted, allow_identifiers=tuple(allow_identifiers))
    mode = suppressed_mode(suppressed, drop_suppressed=drop_suppressed)
    plan = Plan.make(
        models, quasi_identifiers=dataset.quasi_identifiers, sensitive=dataset.sensitive,
        hierarchies=dataset.hierarchies, algorithm=algorithm, mode=mode, label=label, min_levels=min_levels,
        max_levels=max_levels, options=options, columns=dataset.columns, n_records=dataset.n_records,
        suppression_limit=suppression_limit, metric=metric, weights=weights, shuffle=shuffle, seed=seed,
        max_nodes=max_nodes,
    )
    columns = policy.columns(dataset)
    published = [c.name for c in columns if c.treatment != "dropped"]
    # quasi-identifiers are generalized and judged by the models; every column published as it is is scanned
    scanned = [c.name for c in columns if c.treatment not in ("dropped", "generalized")]
    # the class table's encoding first (cached for it): the scan reads an encoded text column's
    # codes instead of hashing its text again
    dataset.encode_all([*dataset.quasi_identifiers, *plan.sensitive])
    policy.check_identifiers(dataset.columns_of(scanned, encoded=True), scanned)
    done = run(plan, MemoryRows(dataset, published), columns=columns, progress=progress)
    done.report["seconds_total"] = round(time.perf_counter() - start, 6)
    outcome, verified = done.outcome, done.verified
    search_result = outcome.search or SearchResult(
        node=(), classes=verified, loss=float("nan"), nodes_total=0, nodes_checked=0,
        seconds=outcome.seconds, algorithm=outcome.algorithm,
    )
    classes = outcome.search.classes if outcome.search is not None else verified
    return AnonymizationResult(done.released.data, outcome.transformation, classes, verified, search_result,
                               done.report, done.released.source_rows, done.columns, mode)
