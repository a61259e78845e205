"""Which column each ``--categories`` list of ``veil query`` keys.

A query is *keyed* by a column when it answers per key of it: ``histogram COL`` (one column)
and ``sum COL by KEY``.  A list of public keys is bound to one keyed column, explicitly
(``--categories COLUMN=K1,K2``, one per column; a column name that needs them in backquotes)
or, in the short form ``--categories K1,K2`` (a first key like ``<=50K`` is no column name),
to the one column that the batch keys by and no named list covers.  Everything is decided
from the queries and the flags alone, before the data is read or anything is spent: a list
naming a column that no query keys by, or a short list that could key several columns, is
refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from veil.errors import ParameterError

__all__ = ["bind_categories", "keyed_column"]

#: What reads as a column before ``=`` (a query's bare column name); any other text is a key.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def keyed_column(spec: Any) -> str | None:
    """The column a parsed query answers per key of (``None``: a count, a whole sum, ...)."""
    if spec.kind == "histogram":
        return spec.columns[0] if len(spec.columns) == 1 else None
    return spec.by[0] if getattr(spec, "by", ()) else None


def _keys(text: str, flag: str) -> list[str]:
    keys = list(dict.fromkeys(k.strip() for k in text.split(",") if k.strip()))
    if not keys:
        raise ParameterError(f"{flag} lists no key; nothing was spent.")
    return keys


def bind_categories(specs: Sequence[Any], texts: Sequence[str]) -> dict[str, list[str]]:
    """Each keyed column's public keys, from the ``--categories`` values ``texts``.

    Raises
    ------
    ParameterError
        A named list for a column no query keys by or named twice, a short list with no keyed
        column or with several it could key, two short lists, or a list of no key.
    """
    keyed = list(dict.fromkeys(c for c in map(keyed_column, specs) if c is not None))
    bound: dict[str, list[str]] = {}
    short: list[str] = []
    for text in texts:
        column, named, rest = text.partition("=")
        column = column.strip()
        column = column[1:-1] if len(column) > 1 and column[0] == column[-1] == "`" else column
        if not named or (column not in keyed and not _NAME.fullmatch(column)):
            short.append(text)  # no column named (a key may hold '=': '<=50K')
            continue
        if column not in keyed:
            them = f" (they key by {', '.join(map(repr, keyed))})" if keyed else ""
            raise ParameterError(f"--categories names the column {column!r}, which no query of the batch "
                                 f"keys by{them}; nothing was spent.")
        if column in bound:
            raise ParameterError(f"--categories names the column {column!r} twice; nothing was spent.")
        bound[column] = _keys(rest, f"--categories {column}=")
    if len(short) > 1:
        raise ParameterError("--categories is given twice without a column; write --categories COLUMN=K1,K2 "
                             "for each column. Nothing was spent.")
    if short:
        free = [c for c in keyed if c not in bound]
        if not free:
            raise ParameterError("--categories applies to a one-column histogram or 'sum COL by KEY'; "
                                 "nothing was spent.")
        if len(free) > 1:
            raise ParameterError(f"--categories {short[0]} does not say which column it keys: the queries key by "
                                 f"{' and '.join(map(repr, free))}; write --categories COLUMN=K1,K2 for each. "
                                 "Nothing was spent.")
        bound[free[0]] = _keys(short[0], "--categories")
    return bound
