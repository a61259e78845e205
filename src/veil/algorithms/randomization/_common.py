"""Shared by αβ and PRAM: the random generator from a seed, and the columns to randomize."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection, Sequence
from typing import Any, Union

import numpy as np

from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError

Seed = Union[int, np.random.Generator, None]
Selection = Union[Collection[Any], Callable[[np.ndarray], Any]]


def _generator(seed: Seed, owner: str) -> np.random.Generator:
    """A Generator from ``seed`` (None: fresh OS entropy; a Generator is used as is)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise ParameterError(
            f"The 'seed' parameter of {owner} must be None, an int in [0, inf) or a "
            f"numpy.random.Generator. Got {seed!r} instead."
        )
    return np.random.default_rng(int(seed))


def _columns(dataset: Dataset, columns: Sequence[str] | None, owner: str) -> list[str]:
    if columns is None:
        columns = list(dataset.quasi_identifiers)
        if not columns:
            raise ParameterError(
                f"{owner} needs columns: pass 'columns', or declare quasi-identifiers in the dataset."
            )
    elif isinstance(columns, str):
        columns = [columns]
    columns = [str(c) for c in columns]
    if not columns:
        raise ParameterError(f"The 'columns' parameter of {owner} must name at least one column. Got [] instead.")
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            raise ParameterError(f"The 'columns' parameter of {owner} lists {column!r} twice.")
        seen.add(column)
        if column not in dataset.columns:
            raise ColumnNotFoundError(
                f"Column {column!r} (in 'columns' of {owner}) is not in the table; "
                f"its columns are: {', '.join(dataset.columns)}."
            )
    return columns
