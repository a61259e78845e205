"""Assertions for tests of releases: they raise :class:`AssertionError` with a useful message.

Messages name models, attributes and counts, never record values of
quasi-identifier or sensitive columns (the rule of :mod:`veil.errors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_int
from veil.classes import SUPPRESSED
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, VerificationError
from veil.models import PrivacyModel

__all__ = ["assert_satisfies", "assert_no_rows_lost", "assert_k_anonymous"]


def _frame_of(data_or_result: Any, owner: str) -> pd.DataFrame:
    frame = getattr(data_or_result, "data", data_or_result)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"{owner} needs a DataFrame or an AnonymizationResult. Got {type(data_or_result).__name__} instead."
        )
    return frame


def _level(model: PrivacyModel, classes: Any) -> str:
    try:
        level = model.achieved_level(classes)
    except Exception as exc:  # the level is only a hint in the message
        return f"level unavailable: {exc}"
    if isinstance(level, dict):
        return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in level.items())
    return f"{level:g}" if isinstance(level, float) else str(level)


def _reread(frame: pd.DataFrame, dataset: Dataset, label: str | None) -> Any:
    """The class table of the released ``frame``, read back as :func:`veil.anonymization.verify` does."""
    from veil.anonymization import verify

    try:
        return verify(frame, dataset, [], label=label)
    except VerificationError as exc:  # the released sensitive values do not match the input's
        raise AssertionError(f"The released table cannot be re-checked: {exc}") from None


def assert_satisfies(
    data_or_result: Any,
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    label: str | None = None,
) -> None:
    """Assert that a released table satisfies every model, re-checked from its rows.

    The released rows are read back into a fresh class table exactly as
    :func:`veil.anonymization.verify` does, and every model is checked on it.

    Parameters
    ----------
    data_or_result : pandas.DataFrame or AnonymizationResult
        The released table, or the result of :func:`veil.anonymize`.
    dataset : Dataset
        The input the release was made from (its schema and hierarchies).
    models : sequence of PrivacyModel
        The models the release must satisfy.
    label : str, optional
        The class attribute, when the release used a label-based metric.

    Raises
    ------
    AssertionError
        A model fails on the released table; the message lists each failing
        model with the level the table achieves.
    TypeError
        ``data_or_result`` is neither a DataFrame nor a result.

    Examples
    --------
    >>> import pandas as pd
    >>> import veil
    >>> from veil.hierarchy import Hierarchy
    >>> from veil.models import KAnonymity
    >>> frame = pd.DataFrame({"zip": ["47677", "47678", "47905", "47909"], "s": ["a", "b", "a", "b"]})
    >>> zips = Hierarchy.from_rows([[z, z[:3] + "**", "*"] for z in frame["zip"]])
    >>> dataset = veil.Dataset.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["s"],
    ...                                    hierarchies={"zip": zips})
    >>> result = veil.anonymize(dataset, [KAnonymity(k=2)], seed=0)
    >>> assert_satisfies(result, dataset, [KAnonymity(k=2)])
    >>> assert_satisfies(dataset.frame, dataset, [KAnonymity(k=2)])
    Traceback (most recent call last):
    ...
    AssertionError: The released table fails 1 of 1 requested model(s):
      - 2-anonymity (the table achieves 1)
    """
    from veil.models._shown import failing_models

    classes, models = _reread(_frame_of(data_or_result, "assert_satisfies"), dataset, label), list(models)
    missing = (getattr(data_or_result, "report", None) or {}).get("missing_sensitive", "value")
    failed = failing_models(models, classes, missing=missing)  # as anonymize and check judge them
    if failed:
        lines = "\n".join(f"  - {m.name} (the table achieves {_level(m, classes)})" for m in failed)
        raise AssertionError(
            f"The released table fails {len(failed)} of {len(models)} requested model(s):\n{lines}"
        )


def assert_no_rows_lost(result: Any, dataset: Dataset) -> None:
    """Assert that every input record is accounted for in a release.

    Checks that (1) the output rows plus the suppressed records that were
    dropped are the input's rows (``records = records_out +
    suppressed_dropped``); (2) at least the suppressed records that were kept
    have ``*`` in every quasi-identifier; (3) the columns that are not
    quasi-identifiers are released unchanged, as a multiset of rows (rows may
    be shuffled; when suppressed rows were dropped, the output's rows must be
    a sub-multiset of the input's).

    Parameters
    ----------
    result : AnonymizationResult or pandas.DataFrame
        The result of :func:`veil.anonymize` (its report gives the suppressed
        and dropped counts), or a released table, which must then have exactly
        the input's number of rows.
    dataset : Dataset
        The input.

    Raises
    ------
    AssertionError
        Rows were lost, duplicated or altered outside the quasi-identifiers.
    """
    frame = _frame_of(result, "assert_no_rows_lost")
    report = getattr(result, "report", None) or {}
    dropped = int(report.get("suppressed_dropped", 0))
    _check_row_count(frame, dataset.n_records, dropped)
    qis = list(dataset.quasi_identifiers)
    kept = int(report.get("suppressed", 0)) - dropped
    _check_suppressed_kept(frame, qis, kept)
    _check_other_columns(frame, dataset, _published_others(dataset, qis, report, kept), dropped)


def _published_others(dataset: Dataset, qis: list[str], report: dict, kept: int) -> list[str]:
    """The non-QI columns released as they are (the release policy withholds identifiers and
    unlisted columns; the default release blanks the sensitive values of suppressed records)."""
    others = [c for c in dataset.columns if c not in qis]
    if report.get("columns"):
        unchanged = {c["name"] for c in report["columns"] if c["treatment"] == "unchanged"}
        others = [c for c in others if c in unchanged]
    if report.get("suppressed_records") == "blank" and kept > 0:
        others = [c for c in others if c not in dataset.sensitive]
    return others


def _check_row_count(frame: pd.DataFrame, n: int, dropped: int) -> None:
    """(1) output rows + dropped suppressed records = input rows."""
    if len(frame) + dropped != n:
        raise AssertionError(
            f"Rows do not reconcile: {n} in, {len(frame)} out and {dropped} suppressed record(s) "
            f"dropped; {n - len(frame) - dropped} record(s) unaccounted for."
        )


def _check_suppressed_kept(frame: pd.DataFrame, qis: list[str], kept: int) -> None:
    """(2) at least ``kept`` rows have ``*`` in every quasi-identifier."""
    missing = [q for q in qis if q not in frame.columns]
    if missing:
        raise AssertionError(f"The released table lacks the quasi-identifier column(s) {missing!r}.")
    if qis and kept > 0:
        starred = int((frame[qis].astype(object) == SUPPRESSED).all(axis=1).sum())
        if starred < kept:
            raise AssertionError(
                f"The report counts {kept} suppressed record(s) kept in the output, but only {starred} "
                f"row(s) have {SUPPRESSED!r} in every quasi-identifier."
            )


def _check_other_columns(frame: pd.DataFrame, dataset: Dataset, others: list[str], dropped: int) -> None:
    """(3) the non-QI columns are released unchanged, as a multiset of rows (less the dropped ones)."""
    absent = [c for c in others if c not in frame.columns]
    if absent:
        raise AssertionError(f"The released table lacks the column(s) {absent!r}.")
    if not others:
        return
    before = dataset.frame[others].astype(object).fillna("<NA>").value_counts(dropna=False)
    after = frame[others].astype(object).fillna("<NA>").value_counts(dropna=False)
    joined = pd.concat([before.rename("in"), after.rename("out")], axis=1).fillna(0)
    extra = int(np.maximum(joined["out"] - joined["in"], 0).sum())
    lost = int(np.maximum(joined["in"] - joined["out"], 0).sum())
    if extra:
        raise AssertionError(
            f"{extra} released row(s) have non-QI values ({', '.join(others)}) that no input row "
            "left over has: rows were altered or duplicated."
        )
    if lost != dropped:
        raise AssertionError(
            f"{lost} input row(s) are missing from the output but {dropped} suppressed record(s) "
            "were reported dropped: rows were lost."
        )


def _qi_columns(frame: Any, quasi_identifiers: Sequence[str]) -> list[str]:
    """The quasi-identifier column names, checked to be present in the DataFrame ``frame``."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"assert_k_anonymous needs a DataFrame. Got {type(frame).__name__} instead.")
    qis = [str(q) for q in quasi_identifiers]
    if not qis:
        raise ColumnNotFoundError("assert_k_anonymous needs at least one quasi-identifier column.")
    absent = [q for q in qis if q not in frame.columns]
    if absent:
        raise ColumnNotFoundError(
            f"The quasi-identifier column(s) {absent!r} are not in the table; its columns are: "
            f"{', '.join(map(str, frame.columns))}."
        )
    return qis


def assert_k_anonymous(frame: pd.DataFrame, quasi_identifiers: Sequence[str], k: int) -> None:
    """Assert that every equivalence class of ``frame`` has at least ``k`` records.

    Computed directly with pandas (independently of veil's class table):
    records are grouped by their quasi-identifier values (missing values
    form a group of their own); records with ``*`` in every
    quasi-identifier are suppressed and belong to no class.

    Parameters
    ----------
    frame : pandas.DataFrame
        The released table.
    quasi_identifiers : sequence of str
        Its quasi-identifier columns (at least one).
    k : int in [1, inf)

    Raises
    ------
    AssertionError
        A class has fewer than ``k`` records; the message gives how many
        classes and records, never their values.
    ColumnNotFoundError
        A quasi-identifier is not a column of ``frame``.
    ParameterError
        ``k`` is not an int in ``[1, inf)``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": ["2*", "2*", "3*"], "zip": ["476**", "476**", "476**"]})
    >>> assert_k_anonymous(frame, ["age", "zip"], 1)
    >>> assert_k_anonymous(frame, ["age", "zip"], 2)
    Traceback (most recent call last):
    ...
    AssertionError: The table is not 2-anonymous: 1 of 2 classes (1 record in all) have fewer than 2 records; the smallest has 1.
    """
    k = check_int("k", k, "assert_k_anonymous", low=1)
    qis = _qi_columns(frame, quasi_identifiers)
    part = frame[qis].astype(object)
    part = part[~(part == SUPPRESSED).all(axis=1)]
    if part.empty:
        return
    sizes = part.groupby(qis, dropna=False, sort=False).size()
    small = sizes[sizes < k]
    if len(small):
        records = int(small.sum())
        raise AssertionError(
            f"The table is not {k}-anonymous: {len(small)} of {len(sizes)} classes "
            f"({records} record{'s' if records != 1 else ''} in all) have fewer than {k} records; "
            f"the smallest has {int(sizes.min())}."
        )
