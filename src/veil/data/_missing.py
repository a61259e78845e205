"""The missing words of a table as read: which cell texts are missing values (``--na-values``).

Every command reads a CSV with the same missing words (:data:`~veil.data.DEFAULT_NA_VALUES`,
``docs/data.md``); ``--na-values`` sets them (:func:`parse_na_values`).  ``veil check``
reads a file verbatim and makes the missing words missing itself
(:func:`missing_as_null`), so that two different words in a quasi-identifier stay two
values: k is computed on what the file shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from veil.data._reader import DEFAULT_NA_VALUES

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["parse_na_values", "missing_as_null"]


def parse_na_values(text: str | None) -> tuple[str, ...]:
    """The ``--na-values`` option: comma-separated cell texts read as missing (``None``: the default
    words, :data:`DEFAULT_NA_VALUES`); the empty cell is always among them, so ``--na-values ""``
    reads only empty cells as missing and ``NA`` as a value."""
    if text is None:
        return DEFAULT_NA_VALUES
    return tuple(dict.fromkeys(["", *(word.strip() for word in text.split(","))]))


def missing_as_null(table: "pa.Table", na_values: Sequence[str], *, by_spelling: Sequence[str] = ()) -> "pa.Table":
    """``table`` (text read with ``na_values=()``) with the cells that read one of ``na_values`` missing.

    In the columns ``by_spelling`` (the quasi-identifiers ``veil check`` groups), a column
    where two different texts of ``na_values`` occur keeps them as written: a reader of the
    file sees two values there, and two classes (``NA`` and an empty cell are not one class).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    words = pa.array(list(na_values), type=pa.string())
    columns = []
    for name, column in zip(table.column_names, table.columns):
        if not pa.types.is_string(column.type) or not len(words):
            columns.append(column)
            continue
        hit = pc.is_in(column, value_set=words)
        if name in by_spelling and len(pc.unique(column.filter(hit))) > 1:
            columns.append(column)
            continue
        columns.append(pc.if_else(hit, pa.scalar(None, pa.string()), column))
    return pa.table(columns, names=table.column_names)
