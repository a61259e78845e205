"""Shared input handling for :mod:`veil.risk`: turn what the caller passes into a class table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import SchemaError

__all__ = ["as_classes", "ClassesLike"]

#: What every risk function accepts as its table.
ClassesLike = ClassTable | Dataset | pd.DataFrame


def as_classes(
    table: Any,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | None = None,
    owner: str = "veil.risk",
) -> ClassTable:
    """Return ``table`` as a :class:`ClassTable` (built once; a ClassTable is passed through).

    A :class:`Dataset` uses its schema unless ``quasi_identifiers`` is given; a
    DataFrame needs ``quasi_identifiers``.

    Raises
    ------
    SchemaError
        The table has no records, or a DataFrame comes without quasi-identifiers.
    """
    if isinstance(table, ClassTable):
        if quasi_identifiers is not None and tuple(quasi_identifiers) != table.quasi_identifiers:
            return table.project(quasi_identifiers)
        return table
    if isinstance(table, pd.DataFrame):
        if not quasi_identifiers:
            raise SchemaError(
                f"{owner} needs the quasi-identifiers of a DataFrame; pass quasi_identifiers=[...]."
            )
        if len(table) == 0:
            raise SchemaError("The table has no records; there is nothing to analyse.")
        table = Dataset.from_pandas(table, quasi_identifiers=quasi_identifiers, sensitive=sensitive or ())
        return ClassTable.from_dataset(table)
    if isinstance(table, Dataset):
        if table.n_records == 0:
            raise SchemaError("The table has no records; there is nothing to analyse.")
        return ClassTable.from_dataset(table, quasi_identifiers=quasi_identifiers, sensitive=sensitive)
    raise TypeError(
        f"{owner} expects a ClassTable, a Dataset or a pandas DataFrame. Got {type(table).__name__} instead."
    )
