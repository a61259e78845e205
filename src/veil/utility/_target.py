"""What a workload predicts and learns from: the target's checks and the feature columns.

The target must have two classes at least and at most :data:`MAX_TARGET_CLASSES`
(:func:`check_target`, :func:`check_workload_target`); the features are the columns a release
publishes (:func:`release_features`, :func:`published_columns`): a column the release withholds
is never a feature.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from veil.data._schema import Role
from veil.dataset import Dataset
from veil.errors import ParameterError

__all__ = ["MAX_TARGET_CLASSES", "check_target", "check_workload_target", "published_columns", "release_features"]

#: The most classes (distinct values of the target, missing counted as one) a
#: workload target may have.  Each classifier holds a few float64 arrays of
#: records x classes (the decision tree's node values and its predictions,
#: naive Bayes's joint log-likelihoods, the logistic regression's gradient): at
#: 100 classes and 100,000 records its peak stays under about 200 MB, where an
#: identifier-like target (100,000 values) would ask for tens of GiB.  A finer
#: target must be coarsened (its values grouped) before it is predicted.
MAX_TARGET_CLASSES: int = 100


def check_target(target: str, y: np.ndarray, missing: np.ndarray, rows: np.ndarray | None = None) -> None:
    """Refuse a target with fewer than two classes among ``rows`` (default: every record), missing values left out,
    or with more than :data:`MAX_TARGET_CLASSES` among every record.

    The message names the column and counts, never a value (the target is
    often the sensitive attribute).
    """
    scope = slice(None) if rows is None else rows
    labels, absent = y[scope], missing[scope]
    n, n_missing = len(labels), int(absent.sum())
    distinct = len(np.unique(labels[~absent]))
    if distinct > MAX_TARGET_CLASSES and rows is None:
        raise ParameterError(
            f"The target column {target!r} (--target) has {distinct} distinct values, more than the "
            f"{MAX_TARGET_CLASSES} classes workload utility handles (its classifiers' memory grows with records "
            "x classes): predict a coarser target, its values grouped into fewer classes."
        )
    if distinct >= 2:
        return
    counts = f"{distinct} distinct value{'s' if distinct != 1 else ''}, {n_missing} missing"
    where = (
        f"among its {n} records ({counts})" if rows is None else
        f"among the {n} training records of its split ({counts}; another --random-state or --test-size "
        "changes the split)"
    )
    raise ParameterError(
        f"The target column {target!r} (--target) has fewer than two values {where}: "
        "the classification metric needs at least two classes."
    )


def check_workload_target(original: Dataset, target: str) -> None:
    """Refuse, before any work, a ``target`` that workload utility cannot learn on ``original``: not a
    column, fewer than two values among its records, or more than :data:`MAX_TARGET_CLASSES` (the
    checks :class:`Workload` makes, so that ``veil anonymize --target`` fails before anonymizing).

    Raises
    ------
    ParameterError
    """
    if target not in original.columns:
        raise ParameterError(f"The target {target!r} is not a column of the original table.")
    labels = original.labels_of(target)
    check_target(target, labels.fillna("").astype(str).to_numpy(), labels.isna().to_numpy())


def published_columns(original: Dataset, target: str) -> list[str]:
    """The columns of ``original`` a release publishes under the default policy, the target left
    out: its quasi-identifiers and the columns declared sensitive or insensitive (an identifier is
    dropped, a column with no declared role withheld)."""
    schema = original.schema
    return [c for c in original.columns
            if c != target and c in schema and schema[c].role is not Role.IDENTIFIER]


def release_features(original: Any, release: Any, target: str) -> list[str] | None:
    """The columns ``release`` publishes that ``original`` has, the target and the original's
    identifiers left out: what a classifier of the release can learn from (None when either is
    not a table: :class:`Workload` refuses it)."""
    if not (isinstance(release, pd.DataFrame) and isinstance(original, Dataset)):
        return None
    identifiers = set(original.schema.identifiers)
    return [c for c in release.columns if c in original.columns and c != target and c not in identifiers]
