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
4. **verify** (:func:`verify`, :mod:`veil.pipeline._recheck`): every model re-checked from scratch on the released table;
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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from veil.algorithms.lattice import SearchResult
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil._frame_release import FRAME_KEYWORDS, build_models, frame_dataset, refuse_data_built, suppression_limit_of
from veil.errors import ParameterError
from veil.models import PrivacyModel
from veil.pipeline._memory import MemoryRows
from veil.pipeline._plan import Plan, largest_k
from veil.pipeline._policy import ColumnTreatment, ReleasePolicy, suppressed_mode
from veil.pipeline._recheck import verify
from veil.pipeline._report import SEED_WARNING
from veil.pipeline._run import run
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

    def __iter__(self) -> Iterator[Any]:
        """``data, report = veil.anonymize(...)``: the released table and its report."""
        return iter((self.data, self.report))


_k_of = largest_k  # old private name, kept for one release (largest_k lives in veil.pipeline._plan)


# long because it is the public entry point with a full numpydoc docstring (parameters, returns,
# raises, examples); the body only makes the plan and runs the one pipeline (veil.pipeline.run)
def anonymize(
    dataset: Dataset | pd.DataFrame,
    models: Sequence[PrivacyModel] = (),
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | None = None,
    identifiers: Sequence[str] | None = None,
    insensitive: Sequence[str] | None = None,
    kinds: Mapping[str, str] | None = None,
    hierarchies: Mapping[str, Any] | None = None,
    auto_hierarchies: bool = False,
    k: int | None = None,
    l: int | Mapping[str, int] | None = None,  # noqa: E741 - the paper's symbol
    t: float | Mapping[str, float] | None = None,
    suppression: float | None = None,
    suppression_limit: float | None = None,
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
    missing_sensitive: str = "value",
) -> AnonymizationResult:
    # long: the public entry point: its numpydoc docstring documents every parameter; the body makes the plan and runs the pipeline
    """Anonymize a table so that it satisfies every model, with the least loss.

    Two forms: a pandas DataFrame with its roles, hierarchies and models given by keyword
    (``data, report = veil.anonymize(frame, quasi_identifiers=["age", "zip"], sensitive=["dx"],
    k=5, l=2, suppression=0.05, auto_hierarchies=True)``), or a :class:`Dataset` that carries its
    schema and hierarchies, with model objects (``veil.anonymize(dataset, [KAnonymity(k=5)])``).

    Parameters
    ----------
    dataset : Dataset or pandas.DataFrame
        The table.  A Dataset holds its schema (quasi-identifiers, sensitive attributes) and a
        hierarchy for every quasi-identifier; a DataFrame is given them by the keywords below.
    models : sequence of PrivacyModel, optional
        Every model must hold on the output (with ``k``, ``l`` and ``t``: all of them).
    quasi_identifiers, sensitive, identifiers, insensitive : list of str
        The roles of a DataFrame's columns (DataFrame form only).  A column has one role; one
        named twice is a :class:`~veil.errors.SchemaError`.  Columns given no role are withheld
        (``report["warnings"]`` names them) unless ``keep_unlisted``.
    kinds : mapping of str to str, optional
        ``categorical`` (default), ``ordinal``, ``numeric`` or ``date`` per column (DataFrame form).
    hierarchies : mapping of str to Hierarchy or str, optional
        A column's hierarchy, or its spec (``"interval:5,10"``, ``"mask:1"``, ``"auto"``; see
        ``docs/hierarchies.md``) (DataFrame form).
    auto_hierarchies : bool, default False
        Give every quasi-identifier without a hierarchy an automatic one (DataFrame form); what
        was chosen is in ``report["hierarchies"]``.
    k : int in [1, inf), optional
        k-anonymity.
    l : int in [1, inf), or mapping of str to int, optional
        Distinct l-diversity: of the one sensitive attribute, or per attribute (``{"dx": 2}``).
    t : float in [0, 1], or mapping of str to float, optional
        t-closeness (ordered distance for a numeric, ordinal or date attribute, else equal), of
        the one sensitive attribute or per attribute.
    suppression, suppression_limit : float in [0, 1], default 0
        The largest share of records that may be suppressed (``*`` in every QI); two names for
        one limit, give one.
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
    missing_sensitive : {"value", "ignore"}, default "value"
        Whether a missing sensitive value counts as a value of its own for the
        sensitive-attribute models (see ``docs/models.md``).

    Returns
    -------
    AnonymizationResult
        ``.data`` (the released DataFrame) and ``.report`` (a dict); it unpacks as
        ``data, report``.

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

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": ["31", "35", "38", "52", "55", "58"],
    ...                       "dx": ["flu", "hiv", "flu", "flu", "hiv", "flu"]})
    >>> data, report = anonymize(frame, quasi_identifiers=["age"], sensitive=["dx"], kinds={"age": "numeric"},
    ...                          hierarchies={"age": "interval:10,20"}, k=3, l=2, shuffle=False)
    >>> data["age"].astype(str).tolist(), report["achieved"]["k"]
    (['[30, 40)', '[30, 40)', '[30, 40)', '[50, 60)', '[50, 60)', '[50, 60)'], 3)
    """
    start = time.perf_counter()
    if algorithm == "safepub":
        refuse_data_built(hierarchies, auto_hierarchies)
    dataset, models, sources = _request(dataset, models, dict(
        quasi_identifiers=quasi_identifiers, sensitive=sensitive, identifiers=identifiers, insensitive=insensitive,
        kinds=kinds, hierarchies=hierarchies, auto_hierarchies=auto_hierarchies), k=k, l=l, t=t)
    suppression_limit = suppression_limit_of(suppression, suppression_limit)
    policy = policy or ReleasePolicy(keep_unlisted=keep_unlisted, allow_identifiers=tuple(allow_identifiers))
    mode = suppressed_mode(suppressed, drop_suppressed=drop_suppressed)
    plan = Plan.make(
        models, quasi_identifiers=dataset.quasi_identifiers, sensitive=dataset.sensitive,
        hierarchies=dataset.hierarchies, algorithm=algorithm, mode=mode, label=label, min_levels=min_levels,
        max_levels=max_levels, options=options, columns=dataset.columns, n_records=dataset.n_records,
        suppression_limit=suppression_limit, metric=metric, weights=weights, shuffle=shuffle, seed=seed,
        max_nodes=max_nodes,
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
    if sources:
        done.report["hierarchies"] = sources
    outcome, verified = done.outcome, done.verified
    search_result = outcome.search or SearchResult(
        node=(), classes=verified, loss=float("nan"), nodes_total=0, nodes_checked=0,
        seconds=outcome.seconds, algorithm=outcome.algorithm,
    )
    classes = outcome.search.classes if outcome.search is not None else verified
    return AnonymizationResult(done.released.data, outcome.transformation, classes, verified, search_result,
                               done.report, done.released.source_rows, done.columns, mode)


def _request(data: Any, models: Sequence[PrivacyModel], frame: dict[str, Any], *, k: Any, l: Any,  # noqa: E741
             t: Any) -> tuple[Dataset, list[PrivacyModel], dict[str, str]]:
    """The dataset, every model and the hierarchies' sources of a call: a DataFrame made a Dataset
    (:func:`veil._frame_release.frame_dataset`), ``k``/``l``/``t`` added to ``models``.  A DataFrame
    keyword given with a Dataset is refused (it would be ignored), and so is a call with no model."""
    sources: dict[str, str] = {}
    if isinstance(data, pd.DataFrame):
        data, sources = frame_dataset(data, **frame)
    elif not isinstance(data, Dataset):
        raise ParameterError(f"The 'dataset' parameter of anonymize must be a pandas DataFrame or a veil Dataset "
                             f"(Dataset.from_pandas or Dataset.read). Got {type(data).__name__} instead.")
    else:
        given = [name for name in FRAME_KEYWORDS if frame[name] not in (None, False)]
        if given:
            raise ParameterError(f"{', '.join(map(repr, given))} describe a DataFrame; a Dataset carries its roles, "
                                 "kinds and hierarchies (Dataset.from_pandas(..., hierarchies=...), with_hierarchies).")
    extra = build_models(data, k=k, l=l, t=t)
    if isinstance(models, (list, tuple)):
        if not models and not extra:
            raise ParameterError("No privacy model: give k, l or t, or a list of models (e.g. [KAnonymity(k=5)]).")
        models = [*models, *extra]
    # anything else (None, one model, a text) is refused by name when the plan checks its arguments
    return data, models, sources

