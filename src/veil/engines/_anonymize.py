"""``anonymize_file``: anonymize a CSV or Parquet file through an engine, verified.

A thin entry point over the one pipeline (:func:`veil.pipeline.run`, the path
:func:`veil.anonymize` takes in memory) with the engine row back-end
(``veil.pipeline._engine_rows.EngineRows``): the engine group-counts the input
into the class table, the registry's algorithm searches it in memory, the
engine applies the chosen node into a temporary of the one writer, and the
written file is group-counted again and verified from scratch before it is
renamed to the output (``docs/architecture.md``, "One anonymization").
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from veil.dataset import DEFAULT_NA_VALUES
from veil.engines._output import check_output
from veil.engines._protocol import Engine, selected_columns
from veil.engines._recoding import FullDomainRecoding
from veil.engines._registry import get_engine
from veil.engines._source import Source
from veil.hierarchy import Hierarchy
from veil.models import PrivacyModel
from veil.pipeline._engine_rows import EngineRows, reader_for
from veil.pipeline._plan import Plan
from veil.pipeline._run import run
from veil.pipeline._policy import suppressed_mode
from veil.schema import Kind

__all__ = ["FullDomainRecoding", "anonymize_file", "reader_for"]


# long because it is a public entry point with a full numpydoc docstring; the body makes the plan and the engine back-end
def anonymize_file(
    path: str | os.PathLike[str],
    *,
    engine: "str | Engine" = "duckdb",
    quasi_identifiers: Sequence[str],
    sensitive: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy],
    models: Sequence[PrivacyModel],
    suppression_limit: float = 0.0,
    metric: str = "loss",
    output: str | os.PathLike[str],
    seed: int | None = None,
    drop_suppressed: bool = False,
    sep: str | None = None,
    na_values: Sequence[str] = DEFAULT_NA_VALUES,
    kinds: Mapping[str, Kind | str] | None = None,
    domains: Mapping[str, Sequence[str]] | None = None,
    label: str | None = None,
    weights: Mapping[str, float] | None = None,
    min_levels: Mapping[str, int] | None = None,
    max_levels: Mapping[str, int] | None = None,
    progress: Callable[[int, int], None] | None = None,
    algorithm: str = "lattice",
    phases: Callable[[str, int | None, int | None], None] | None = None,
    suppressed: str | None = None,
    columns: Sequence[str] | None = None,
    max_nodes: int | None = None,
) -> dict[str, Any]:
    """Anonymize a CSV or Parquet file into another through an engine, verified.

    The job of :func:`veil.anonymize` for files an engine reads (``duckdb``
    streams, ``spark`` runs on a cluster, ``local`` reads into memory); only
    the class table is held in memory.

    Parameters
    ----------
    path : str or path-like
        The input: UTF-8 CSV with a header line, or Parquet (by extension).
    engine : {"duckdb", "spark", "local"} or Engine, default "duckdb"
    quasi_identifiers : sequence of str
    sensitive : sequence of str
    hierarchies : mapping of str to Hierarchy
        One per quasi-identifier (a sensitive attribute's is used by
        hierarchical t-closeness).
    models : sequence of PrivacyModel
        Every model must hold on the output.
    suppression_limit : float in [0, 1]
        The largest share of records that may be suppressed.
    metric : str
        The utility metric to minimise, a key of :data:`veil.utility.METRICS`.
    output : str or path-like
        The released file: Parquet for ``.parquet``/``.pq``, else CSV
        (comma-separated).  Never the input; written only once verified.
    seed : int in [0, inf), optional
        Seed of the row shuffle (reproducible output); default a fresh secret one.
    drop_suppressed : bool, default False
        Leave suppressed records out instead of writing ``*`` in every QI (kept,
        the suppressed group must meet the sensitive models; ``docs/security.md``).
    sep : str, optional
        The CSV separator of the input (default: detected).
    na_values : sequence of str
        CSV cell texts read as missing in QI and sensitive columns.
    kinds : mapping, optional
        Attribute kinds (default categorical), for ordered distances.
    domains : mapping, optional
        Sensitive value domains wider than the values present.
    label, weights, min_levels, max_levels, max_nodes
        As for :func:`veil.anonymize`.
    progress : callable, optional, ``progress(done, total)`` during the search.
    suppressed : {"keep", "drop", "blank"}, optional
        What the suppressed records become (as for :func:`veil.anonymize`):
        ``*`` in every QI (``keep``), left out (``drop``), or ``*`` in every QI
        and every sensitive attribute (``blank``).  Default: ``drop`` with
        ``drop_suppressed``, else ``keep`` (this function's behaviour before
        the option existed).
    phases : callable, optional
        ``phases(phase, done, total)`` for every phase of the pipeline (encode,
        search, apply, verify; :mod:`veil.progress`); replaces ``progress``.
    columns : sequence of str, optional
        The columns written, in the input's order (default: every column of
        the input).  :func:`veil.release.run_config` passes the columns its
        release policy publishes (:meth:`veil.pipeline.ReleasePolicy.treatments`):
        an identifier, or a column with no declared role without
        ``keep_unlisted``, is never written.  Every QI and sensitive attribute
        must be in it; the written file's header is verified against it.
    algorithm : {"lattice", "datafly"}, default "lattice"
        A full-domain algorithm of :data:`veil.algorithms.ALGORITHMS` (the
        engine applies one level per QI; local recodings need the rows in memory).

    Returns
    -------
    dict
        The report of :func:`veil.anonymize` (less ``columns``, which the
        caller names) plus ``engine``, ``output``, ``classes`` (of the input)
        and ``seconds`` (per step: ``group_count``, ``class_table``,
        ``search``, ``apply``, ``verify``).

    Raises
    ------
    DataFormatError
        The input is missing, empty, not UTF-8, or has a ragged row.
    ColumnNotFoundError
        A QI or sensitive column is not in the input (named, with the file).
    HierarchyError
        A QI without a hierarchy, or a value its hierarchy does not cover.
    OutputError
        ``output`` is the input, or its folder is not writable.
    ParameterError
        Bad parameters (no model, unknown metric or engine, ...).
    InfeasibleError
        No transformation satisfies the models within the suppression limit.
    VerificationError
        The output failed its re-check (a bug; no file is left behind).

    Examples
    --------
    >>> from veil.datasets import adult_path, load_adult
    >>> from veil.models import KAnonymity
    >>> report = anonymize_file(  # doctest: +SKIP
    ...     adult_path(), engine="duckdb", quasi_identifiers=["age", "sex"],
    ...     hierarchies=load_adult().hierarchies, models=[KAnonymity(k=5)],
    ...     output="adult-k5.csv")
    """

    resolved = get_engine(engine)
    try:
        models = list(models)
        plan = Plan.make(
            models, quasi_identifiers=quasi_identifiers, sensitive=sensitive, hierarchies=hierarchies,
            algorithm=algorithm, mode=suppressed_mode(suppressed or ("drop" if drop_suppressed else "keep")),
            label=label, min_levels=min_levels,
            max_levels=max_levels, suppression_limit=suppression_limit, metric=metric, weights=weights, seed=seed,
            max_nodes=max_nodes,
        )
        source = Source.from_path(path, sep=sep, na_values=na_values)
        source.require(plan.quasi_identifiers + plan.sensitive)
        written = selected_columns(source, columns, plan.quasi_identifiers + plan.sensitive)
        rows = EngineRows(resolved, source, check_output(output, source.path), hierarchies, dict(kinds or {}), domains,
                          columns=None if written == source.columns else written)
        return run(plan, rows, progress=phases or _search_only(progress)).report
    finally:
        if isinstance(engine, str) and hasattr(resolved, "close"):
            resolved.close()  # an engine made here (a Spark session) is stopped here


def _search_only(progress: Callable[[int, int], None] | None) -> Callable[[str, int | None, int | None], None]:
    """The pipeline's ``progress(phase, done, total)`` from ``anonymize_file``'s ``progress(done, total)``."""

    def phase(name: str, done: int | None, total: int | None) -> None:
        if progress is not None and name == "search" and done is not None and total is not None:
            progress(done, total)

    return phase
