"""``anonymize_file``: anonymize a CSV or Parquet file through an engine, verified.

The rows are touched by the engine only, three times, each a streaming pass:

1. **group-count** the input by its quasi-identifiers and sensitive
   attributes; build the class table from the counts
   (:func:`~veil.engines.class_table_from_counts`: it equals
   :meth:`ClassTable.from_dataset` on the full data);
2. **search** the generalization lattice on the class table
   (:func:`veil.algorithms.lattice.search`, the call :func:`veil.anonymize`
   makes), in memory, whatever the size of the data;
3. **apply** the chosen transformation (:class:`FullDomainRecoding`: a mapping per QI
   from original to released label, and the suppressed classes) to a hidden
   temporary file beside the output;
4. **verify**: group-count the written file, rebuild its class table from the
   released labels (flat: nothing of the search is trusted) and check every
   model, the row counts (input = output + dropped) and the released classes
   against the search's; only then is the file renamed to the output.  A
   failure removes it and raises :class:`~veil.errors.VerificationError`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED, ClassTable
from veil.dataset import DEFAULT_NA_VALUES, MISSING
from veil.engines._classes import class_table_from_counts
from veil.engines._recoding import FullDomainRecoding
from veil.engines._output import check_output
from veil.pipeline import publishing
from veil.pipeline._suppressed import SuppressedGroup, sensitive_models
from veil.engines._protocol import Engine
from veil.engines._registry import get_engine
from veil.engines._source import COUNT_COLUMN, Source
from veil.errors import HierarchyError, ParameterError, VerificationError
from veil.hierarchy import Hierarchy
from veil.models import PrivacyModel
from veil.schema import Kind

__all__ = ["FullDomainRecoding", "anonymize_file"]


def reader_for(engine: Engine) -> Engine:
    """The engine that reads a written file back for its verification.

    The Spark engine's files are read back by DuckDB (or pandas): the check
    does not run through the engine that wrote them, and Spark does not read
    the writer's hidden temporary files.
    """
    if engine.name != "spark":
        return engine
    try:
        import duckdb  # noqa: F401
    except ImportError:
        from veil.engines._local import LocalEngine

        return LocalEngine()
    from veil.engines._duckdb import DuckDBEngine

    return DuckDBEngine()


def _released_classes(classes: pd.DataFrame, qis: Sequence[str], na_values: Sequence[str]) -> tuple[pd.DataFrame, int]:
    """Class labels and counts as a reader of the released file sees them:
    a label that is an NA text reads as missing, an all-``*`` class as suppressed."""
    frame = classes[list(qis) + [COUNT_COLUMN]].copy()
    na = set(na_values)
    for name in qis:
        frame[name] = [MISSING if (v is None or str(v) in na) else str(v) for v in frame[name]]
    star = np.ones(len(frame), dtype=np.bool_)
    for name in qis:
        star &= (frame[name] == SUPPRESSED).to_numpy()
    stars = int(frame.loc[star, COUNT_COLUMN].sum())
    frame = frame.loc[~star].groupby(list(qis), sort=True)[COUNT_COLUMN].sum().reset_index()
    return frame, stars


def _verify(
    engine: Engine,
    written: Source,
    base: ClassTable,
    chosen: ClassTable,
    models: Sequence[PrivacyModel],
    *,
    sensitive: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    kinds: Mapping[str, Kind | str],
    drop_suppressed: bool,
    records_out: int,
    na_values: Sequence[str],
) -> ClassTable | None:
    """Rebuild the class table of the written file and check it (see the module docstring)."""
    qis = base.quasi_identifiers
    counts = engine.group_count(written, qis, sensitive)
    _check_row_counts(counts, written, base, chosen, drop_suppressed=drop_suppressed, records_out=records_out)
    if records_out == 0:
        return None  # every record was suppressed and dropped: nothing is released
    released = class_table_from_counts(
        counts,
        quasi_identifiers=qis,
        sensitive=sensitive,
        hierarchies={name: h for name, h in hierarchies.items() if name in sensitive},
        kinds={name: k for name, k in kinds.items() if name in sensitive},
        domains={name: base.sensitive[name].labels.tolist() for name in sensitive},
    )
    # the released classes are those of the search, record for record
    expected, expected_stars = _released_classes(chosen.labels(), qis, na_values)
    actual, actual_stars = _released_classes(released.labels(), qis, ())
    suppressed_out = actual_stars + released.input_suppressed
    if not drop_suppressed and suppressed_out != chosen.suppressed + expected_stars:
        raise VerificationError(
            f"The output has {suppressed_out} suppressed records but the transformation suppresses "
            f"{chosen.suppressed}. This is a bug in veil; nothing was written."
        )
    if not expected.equals(actual):
        raise VerificationError(
            "The classes of the output differ from those of the chosen transformation. "
            "This is a bug in veil; nothing was written."
        )
    _check_sensitive_values(released, base, sensitive, drop_suppressed=drop_suppressed)
    failed = [m for m in models if not m.check(released)]
    if failed:
        names = ", ".join(m.name for m in failed)
        raise VerificationError(
            f"The anonymized table fails its own requested model(s): {names}. This is a bug in veil; "
            "nothing was written. Please report it with the configuration."
        )
    return released


def _check_row_counts(counts: pd.DataFrame, written: Source, base: ClassTable, chosen: ClassTable, *,
                      drop_suppressed: bool, records_out: int) -> None:
    """Rows read back = rows written, and rows in = rows out + rows dropped."""
    seen = int(counts[COUNT_COLUMN].sum())
    if seen != records_out:
        raise VerificationError(
            f"Row counts do not reconcile: the engine reported {records_out} rows written but "
            f"{seen} were read back from {str(written.path)!r}. This is a bug in veil; nothing was written."
        )
    dropped = base.n_records - records_out
    expected_dropped = chosen.suppressed if drop_suppressed else 0
    if dropped != expected_dropped:
        raise VerificationError(
            f"Row counts do not reconcile: {base.n_records} in, {records_out} out, {chosen.suppressed} suppressed"
            f"{' and dropped' if drop_suppressed else ''}. This is a bug in veil; nothing was written."
        )


def _check_sensitive_values(released: ClassTable, base: ClassTable, sensitive: Sequence[str], *,
                            drop_suppressed: bool) -> None:
    """The released sensitive values are the input's (distributions judged against the whole input)."""
    for name in sensitive:
        hist, original = released.sensitive[name], base.sensitive[name]
        if hist.labels.tolist() != original.labels.tolist():
            raise VerificationError(f"The released values of {name!r} do not match the input's.")
        if drop_suppressed:
            # judge distributions against the whole input, suppressed records included,
            # exactly as the search did
            released.sensitive[name] = replace(hist, overall=original.overall)
        elif not np.array_equal(hist.overall, original.overall):
            raise VerificationError(f"The released values of {name!r} do not match the input's.")


# long because it is a public entry point with a full numpydoc docstring; the body only resolves the engine
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
    label, weights, min_levels, max_levels
        As for :func:`veil.anonymize`.
    progress : callable, optional, ``progress(done, total)`` during the search.

    Returns
    -------
    dict
        The report of :func:`veil.anonymize` plus ``engine``, ``output``,
        ``classes`` and ``seconds`` (per step).

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
        return _anonymize_file(
            path, resolved, quasi_identifiers=quasi_identifiers, sensitive=sensitive, hierarchies=hierarchies,
            models=models, suppression_limit=suppression_limit, metric=metric, output=output, seed=seed,
            drop_suppressed=drop_suppressed, sep=sep, na_values=na_values, kinds=kinds, domains=domains,
            label=label, weights=weights, min_levels=min_levels, max_levels=max_levels, progress=progress,
        )
    finally:
        if isinstance(engine, str) and hasattr(resolved, "close"):
            resolved.close()  # an engine made here (a Spark session) is stopped here


def _anonymize_file(
    path: str | os.PathLike[str],
    engine: Engine,
    *,
    quasi_identifiers: Sequence[str],
    sensitive: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    models: Sequence[PrivacyModel],
    suppression_limit: float,
    metric: str,
    output: str | os.PathLike[str],
    seed: int | None,
    drop_suppressed: bool,
    sep: str | None,
    na_values: Sequence[str],
    kinds: Mapping[str, Kind | str] | None,
    domains: Mapping[str, Sequence[str]] | None,
    label: str | None,
    weights: Mapping[str, float] | None,
    min_levels: Mapping[str, int] | None,
    max_levels: Mapping[str, int] | None,
    progress: Callable[[int, int], None] | None,
) -> dict[str, Any]:
    # the file-to-file path: check, group-count, class table, search, apply + verify, report
    start = time.perf_counter()
    seconds: dict[str, float] = {}
    models = list(models)
    qis, sens = _check_file_problem(models, quasi_identifiers, sensitive, hierarchies, label, min_levels, max_levels)
    kinds = dict(kinds or {})
    source = Source.from_path(path, sep=sep, na_values=na_values)
    source.require(qis + tuple(sens))
    out = check_output(output, source.path)

    tick = time.perf_counter()
    counts = engine.group_count(source, qis, sens)
    seconds["group_count"], tick = time.perf_counter() - tick, time.perf_counter()
    base = class_table_from_counts(counts, quasi_identifiers=qis, sensitive=sens, hierarchies=hierarchies,
                                   kinds=kinds, domains=domains)
    seconds["class_table"] = time.perf_counter() - tick
    # suppressed records are published with their sensitive values unless
    # dropped: the suppressed group must then meet the sensitive models too
    searched = list(models)
    if not drop_suppressed and sensitive_models(models):
        searched.append(SuppressedGroup(tuple(sensitive_models(models))))
    tick = time.perf_counter()
    result = _search(base, searched, metric=metric, label=label, weights=weights, min_levels=min_levels,
                     max_levels=max_levels, suppression_limit=suppression_limit, progress=progress)
    seconds["search"] = time.perf_counter() - tick
    recoding = FullDomainRecoding.from_classes(result.classes)

    applied, verified = _write_verified(
        engine, source, out, recoding, base, result.classes, searched, seconds, sensitive=sens,
        hierarchies=hierarchies, kinds=kinds, seed=seed, drop_suppressed=drop_suppressed, na_values=na_values,
    )
    report = _file_report(base, result, verified, models, applied.records_out, metric=metric, label=label,
                          weights=weights, suppression_limit=suppression_limit, seed=seed)
    report.update({"engine": engine.name, "output": str(out), "classes": int(base.n_classes),
                   "seconds": {name: round(value, 6) for name, value in seconds.items()},
                   "seconds_total": round(time.perf_counter() - start, 6)})
    return report


def _write_verified(engine, source, out, recoding, base, chosen, searched, seconds, *, sensitive, hierarchies,
                    kinds, seed, drop_suppressed, na_values):
    """Apply the recoding into the writer's temporary, verify it, publish it; (applied, verified table)."""
    with publishing({"data": out}, inputs=[source.path]) as outputs:
        # the released file is written and verified as a temporary of the one
        # writer; it is renamed into place only when the verification passed
        unverified = outputs.temporary("data")
        tick = time.perf_counter()
        applied = engine.apply(
            source, recoding.mappings, recoding.suppressed, unverified,
            shuffle_seed=seed, drop_suppressed=drop_suppressed,
        )
        seconds["apply"] = time.perf_counter() - tick
        tick = time.perf_counter()
        written = Source.from_path(unverified, sep=",", na_values=na_values)
        verified = _verify(
            reader_for(engine), written, base, chosen, searched, sensitive=sensitive, hierarchies=hierarchies,
            kinds=kinds, drop_suppressed=drop_suppressed, records_out=applied.records_out,
            na_values=written.na_values,
        )
        seconds["verify"] = time.perf_counter() - tick
    return applied, verified


def _check_file_problem(models, quasi_identifiers, sensitive, hierarchies, label, min_levels, max_levels):
    """Refuse a bad problem before reading the file; the QIs and the sensitive attributes (label included)."""
    if not models:
        raise ParameterError("At least one privacy model is needed to anonymize (e.g. KAnonymity(k=5)).")
    qis = tuple(quasi_identifiers)
    if not qis:
        raise ParameterError("No quasi-identifier is given; there is nothing to anonymize.")
    sens = list(dict.fromkeys(sensitive))
    missing = [q for q in qis if q not in hierarchies]
    if missing:
        raise HierarchyError(
            f"No hierarchy is given for the quasi-identifier(s) {', '.join(map(repr, missing))}; "
            "give one per QI (a file, or a builder such as intervals or masking)."
        )
    if label is not None:
        if label in qis:
            raise ParameterError(f"The class label {label!r} is a quasi-identifier; choose another attribute.")
        if label not in sens:
            sens.append(label)
    for name in list(min_levels or {}) + list(max_levels or {}):
        if name not in qis:
            raise ParameterError(f"A level bound is given for {name!r}, which is not a quasi-identifier.")
    return qis, sens


def _search(base, models, *, metric, label, weights, min_levels, max_levels, suppression_limit, progress):
    """The lattice search on the class table, exactly as :func:`veil.anonymize` runs it."""
    from veil.algorithms.lattice import search
    from veil.anonymization import largest_k
    from veil.utility import get_metric

    metric_spec = get_metric(metric)
    k = largest_k(models)
    if k is not None and k > base.n_records:
        raise ParameterError(
            f"k={k} is larger than the table ({base.n_records} records): no class can be that large."
        )

    def loss(classes: ClassTable) -> float:
        return metric_spec.loss(classes, label=label, weights=weights, k=k)

    qis = base.quasi_identifiers
    low = [int((min_levels or {}).get(q, 0)) for q in qis]
    high = [int((max_levels or {}).get(q, h.height)) for q, h in zip(qis, base.hierarchies)]
    return search(
        base, models, loss=loss, metric_name=metric, monotone_metric=metric_spec.bounded_by_unsuppressed,
        suppression_limit=suppression_limit, min_levels=low, max_levels=high, progress=progress,
    )


def _file_report(base, result, verified, models, records_out, *, metric, label, weights, suppression_limit, seed):
    """The report of a file-to-file release (the keys of :func:`veil.anonymize`'s)."""
    from veil.anonymization import SEED_WARNING, largest_k
    from veil.models import evaluate
    from veil.risk import assess
    from veil.utility import utility_report

    qis = base.quasi_identifiers
    return {
        "transformation": dict(zip(qis, (int(x) for x in result.node))),
        "records": int(base.n_records),
        "records_out": int(records_out),
        "suppressed": int(result.classes.suppressed),
        "suppressed_dropped": int(base.n_records - records_out),
        "input_suppressed": int(base.input_suppressed),
        "suppression_limit": suppression_limit,
        "models": [m.name for m in models],
        "metric": metric,
        "achieved": evaluate(verified).to_dict() if verified is not None else None,
        "utility": utility_report(result.classes, original=base, label=label, weights=weights,
                                  k=largest_k(models)),
        "risk_before": assess(base, qi_subsets_max_size=0).to_dict(),
        "risk_after": assess(verified, qi_subsets_max_size=0).to_dict() if verified is not None else None,
        "search": {
            "algorithm": result.algorithm,
            "nodes_total": result.nodes_total,
            "nodes_checked": result.nodes_checked,
            "seconds": round(result.seconds, 6),
        },
        "output_order": {"shuffled": True, "reproducible": seed is not None,
                         **({"seed": int(seed)} if seed is not None else {})},
        "warnings": [SEED_WARNING] if seed is not None else [],
        "verified": True,
    }
