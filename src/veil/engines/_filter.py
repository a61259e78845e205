"""``where`` filters of ``veil query`` through an engine: a :mod:`veil.dp` predicate as a
pandas mask, DuckDB SQL with bound parameters, or a Spark column.

The filter reads each column's *labels* as the engine's ``group_count`` does (text,
the ``na_values`` texts missing) and keeps the typed rules of
:func:`veil.dp.parse_predicate` as ``veil query`` applies them in memory, where a
column is numeric when every value of it is a number:

* a number literal compares with the label read as a number; a column with a
  value that is not a number is a :class:`~veil.errors.SchemaError` naming it;
* a text literal compares with the label as text; a column whose every value
  is a number (it would be numeric in memory) is a :class:`~veil.errors.SchemaError`;
* a missing value never matches a comparison or a membership, and ``not``
  negates the result (so it matches ``not (x = 1)``), as in memory.

Literal values never enter SQL text: DuckDB gets them as ``?`` parameters, Spark
as ``lit`` columns; column names are quoted identifiers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil.dp._predicate import BoolOp, Comparison, Membership, Not, Predicate
from veil.errors import SchemaError

__all__ = ["literal_kinds", "check_literal_types", "predicate_mask", "predicate_sql", "predicate_column"]

_SQL_OPS = {"=": "=", "==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _atoms(pred: Predicate) -> list[Comparison | Membership]:
    if isinstance(pred, Not):
        return _atoms(pred.operand)
    if isinstance(pred, BoolOp):
        return [atom for operand in pred.operands for atom in _atoms(operand)]
    return [pred]


def literal_kinds(pred: Predicate) -> dict[str, set[str]]:
    """Per column of ``pred``, the kinds of literal it is compared with (``"number"``, ``"text"``)."""
    kinds: dict[str, set[str]] = {}
    for atom in _atoms(pred):
        values = atom.values if isinstance(atom, Membership) else (atom.value,)
        for value in values:
            kinds.setdefault(atom.column, set()).add("number" if _is_number(value) else "text")
    return kinds


def check_literal_types(kinds: dict[str, set[str]], non_numbers: dict[str, int],
                        present: dict[str, int] | None = None, summed: Sequence[str] = ()) -> None:
    """Refuse a literal of the wrong type for its column, or a sum of a column that is not
    numeric, as the in-memory path does: on counts over the *whole* table, read before any
    filter, so that no refusal depends on the rows a predicate selects.

    ``non_numbers`` holds, per column, how many present values are not numbers; ``present``
    (default: unknown, taken as some), how many values are present.  A column without any
    value (an empty table) takes either literal and sums to ``missing_as`` per row.

    Raises
    ------
    SchemaError
        A number compared with a column holding text, text with a column of numbers, or
        a sum of a column holding text (the message names the column, never a value of it).
    """
    for column in summed:
        if non_numbers[column] > 0:
            raise SchemaError(f"The column {column!r} is not numeric; a sum needs a numeric column.")
    for column, used in kinds.items():
        if "number" in used and non_numbers[column] > 0:
            raise SchemaError(f"The column {column!r} holds text, but the predicate compares it with a "
                              "number; quote the literal to compare text.")
        some = present is None or present[column] > 0
        if "text" in used and non_numbers[column] == 0 and some:
            raise SchemaError(f"The column {column!r} is numeric, but the predicate compares it with "
                              "text; write a number.")


def predicate_mask(pred: Predicate, labels: pd.DataFrame) -> np.ndarray:
    """The rows of ``labels`` (text labels, ``None`` when missing) that match ``pred``."""
    if isinstance(pred, Not):
        return ~predicate_mask(pred.operand, labels)
    if isinstance(pred, BoolOp):
        masks = [predicate_mask(p, labels) for p in pred.operands]
        return np.logical_and.reduce(masks) if pred.op == "and" else np.logical_or.reduce(masks)
    text = labels[pred.column]
    number = pd.to_numeric(text, errors="coerce")
    present = text.notna().to_numpy()
    if isinstance(pred, Membership):  # one vectorised isin per kind of literal
        numbers = [float(v) for v in pred.values if _is_number(v)]
        texts = [str(v) for v in pred.values if not _is_number(v)]
        return (number.isin(numbers).to_numpy(dtype=bool) | text.isin(texts).to_numpy(dtype=bool)) & present
    side = number if _is_number(pred.value) else text.where(text.notna(), "")
    compare = {"=": side.__eq__, "==": side.__eq__, "!=": side.__ne__, "<": side.__lt__,
               "<=": side.__le__, ">": side.__gt__, ">=": side.__ge__}[pred.op]
    return compare(pred.value).fillna(False).to_numpy(dtype=bool) & present & (
        number.notna().to_numpy() if _is_number(pred.value) else True)


def predicate_sql(pred: Predicate, label: Callable[[str], str]) -> tuple[str, list[Any]]:
    """DuckDB SQL for ``pred`` (``label(column)`` is the SQL of a column's label) and its parameters."""
    if isinstance(pred, Not):
        inner, params = predicate_sql(pred.operand, label)
        return f"(NOT {inner})", params
    if isinstance(pred, BoolOp):
        parts = [predicate_sql(p, label) for p in pred.operands]
        joiner = " AND " if pred.op == "and" else " OR "
        return "(" + joiner.join(sql for sql, _ in parts) + ")", [v for _, params in parts for v in params]
    text = label(pred.column)
    number = f"TRY_CAST({text} AS DOUBLE)"
    if isinstance(pred, Membership):  # one IN list per kind of literal: the planner's cost grows with OR terms
        numbers = [float(v) for v in pred.values if _is_number(v)]
        texts = [str(v) for v in pred.values if not _is_number(v)]
        tests = [f"{side} IN ({', '.join('?' * len(values))})"
                 for side, values in ((number, numbers), (text, texts)) if values]
        return f"coalesce(({' OR '.join(tests)}), false)", numbers + texts
    side = number if _is_number(pred.value) else text
    value = float(pred.value) if _is_number(pred.value) else str(pred.value)
    return f"coalesce({side} {_SQL_OPS[pred.op]} ?, false)", [value]


def predicate_column(pred: Predicate, label: Callable[[str], Any], F: Any) -> Any:
    """A Spark boolean column for ``pred`` (``label(column)`` is a column's label), never null."""
    if isinstance(pred, Not):
        return ~predicate_column(pred.operand, label, F)
    if isinstance(pred, BoolOp):
        parts = [predicate_column(p, label, F) for p in pred.operands]
        out = parts[0]
        for part in parts[1:]:
            out = (out & part) if pred.op == "and" else (out | part)
        return out
    text = label(pred.column)
    number = text.try_cast("double")
    false = F.lit(False)
    if isinstance(pred, Membership):  # one isin per kind of literal
        numbers = [float(v) for v in pred.values if _is_number(v)]
        texts = [str(v) for v in pred.values if not _is_number(v)]
        tests = [side.isin([F.lit(v) for v in values]) for side, values in ((number, numbers), (text, texts)) if values]
        return F.coalesce(tests[0] | tests[1] if len(tests) == 2 else tests[0], false)
    side = number if _is_number(pred.value) else text
    value = F.lit(float(pred.value)) if _is_number(pred.value) else F.lit(str(pred.value))
    compare = {"=": side.__eq__, "==": side.__eq__, "!=": side.__ne__, "<": side.__lt__,
               "<=": side.__le__, ">": side.__gt__, ">=": side.__ge__}[pred.op]
    return F.coalesce(compare(value), false)
