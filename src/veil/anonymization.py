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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from veil.algorithms.lattice import SearchResult
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ParameterError
from veil.models import PrivacyModel
from veil.pipeline._memory import MemoryRows
from veil.pipeline._plan import Plan, largest_k
from veil.pipeline._policy import ColumnTreatment, ReleasePolicy, suppressed_mode
from veil.pipeline._report import SEED_WARNING
from veil.pipeline._run import run
from veil.pipeline._suppressed import suppressed_rows
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
    missing_sensitive: str = "value",
) -> ClassTable:
    """Rebuild the class table from released rows and check every model on it.

    The QIs are read as the released labels (flat hierarchies): the check
    does not trust the search.  Every released row is in a class: records with
    ``*`` in every QI (the suppressed ones, when published) are one class like
    any other, and every model judges the release as it shows it
    (:mod:`veil.models._shown`: a withheld ``*`` is not a value, the reference
    distribution is the released values').  ``suppressed_rows`` marks the
    suppressed rows (default: ``*`` in every QI); ``suppressed`` says how the
    release shows them: left out (``drop``), their sensitive values withheld
    (``blank``, whatever ``data`` holds there) or kept (``keep``).

    ``weights`` gives each row of ``data`` the number of released rows it
    stands for (the written file's rows counted by their cells, batch by
    batch: :func:`veil.pipeline.verify_written`); default one each.

    Raises
    ------
    VerificationError
        A model fails on the released table.
    """
    from veil.pipeline._judge import verify_release

    return verify_release(data, dataset, models, label=label, weights=weights, missing=missing_sensitive,
                          suppressed=suppressed, suppressed_rows=suppressed_rows)


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
    missing_sensitive: str = "value",
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
    missing_sensitive : {"value", "ignore"}, default "value"
        Whether a missing sensitive value counts as a value of its own for the
        sensitive-attribute models (see ``docs/models.md``).

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
        missing_sensitive=missing_sensitive,
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
