"""Hypothesis strategies for veil's tables: hierarchies, tables and datasets.

Every strategy draws *valid* inputs (hierarchies that pass
:class:`~veil.hierarchy.Hierarchy`'s checks and cover the table), small enough
that a lattice search over them takes milliseconds.  They shrink towards
fewer rows, fewer values and flatter hierarchies, so a failing example comes
out minimal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
from hypothesis import strategies as st

from veil._validation import check_choice, check_int
from veil.dataset import Dataset
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy

__all__ = ["hierarchies", "tables", "datasets"]

_OWNER_TABLES = "veil.testing.tables"



def _range(name: str, value: int | tuple[int, int], owner: str, *, low: int) -> tuple[int, int]:
    """An int or an inclusive ``(min, max)`` pair, checked."""
    if isinstance(value, tuple):
        if len(value) != 2:
            raise ParameterError(
                f"The {name!r} parameter of {owner} must be an int or a (min, max) pair. Got {value!r} instead."
            )
        lo = check_int(name, value[0], owner, low=low)
        hi = check_int(name, value[1], owner, low=lo)
        return lo, hi
    v = check_int(name, value, owner, low=low)
    return v, v


# ---------------------------------------------------------------- hierarchies
@st.composite
def hierarchies(
    draw: st.DrawFn,
    values: Sequence[str],
    *,
    max_height: int = 3,
    name: str = "",
) -> Hierarchy:
    """A random valid hierarchy over ``values``: monotone levels, a single top ``*``.

    Each level above the leaves maps every group of the level below to one
    group of its own (any function of the groups below, so the hierarchy is
    monotone by construction); the top level is ``*``.  Intermediate labels
    are ``<name>L<level>_<group>``, never equal to a leaf or to ``*``.

    Parameters
    ----------
    values : sequence of str
        The leaves (at least one, distinct, none equal to ``*``).
    max_height : int in [1, inf), default 3
        The largest height (levels are ``0..height``; height 1 is value, ``*``).
    name : str
        The attribute's name (the hierarchy's ``name`` and the label prefix).

    Returns
    -------
    SearchStrategy of Hierarchy
    """
    leaves = [str(v) for v in values]
    height = draw(st.integers(min_value=1, max_value=max_height))
    groups = list(range(len(leaves)))
    levels = [leaves]
    for level in range(1, height):
        n_groups = max(groups) + 1
        parent = draw(st.lists(st.integers(0, n_groups - 1), min_size=n_groups, max_size=n_groups))
        # renumber the parents densely in order of first appearance
        dense = {p: i for i, p in enumerate(dict.fromkeys(parent))}
        groups = [dense[parent[g]] for g in groups]
        levels.append([f"{name}L{level}_{g}" for g in groups])
    rows = [[lvl[i] for lvl in levels] + ["*"] for i in range(len(leaves))]
    return Hierarchy.from_rows(rows, name=name)


# ---------------------------------------------------------------- tables
def _check_table_options(
    min_rows: int, max_rows: int, n_qi: int | tuple[int, int], max_values: int, max_height: int,
    n_sensitive: int | tuple[int, int], sensitive_values: int, missing: bool,
) -> tuple[tuple[int, int], tuple[int, int]]:
    check_int("min_rows", min_rows, _OWNER_TABLES, low=1)
    check_int("max_rows", max_rows, _OWNER_TABLES, low=min_rows)
    qi_range = _range("n_qi", n_qi, _OWNER_TABLES, low=1)
    check_int("max_values", max_values, _OWNER_TABLES, low=1)
    check_int("max_height", max_height, _OWNER_TABLES, low=1)
    sens_range = _range("n_sensitive", n_sensitive, _OWNER_TABLES, low=0)
    check_int("sensitive_values", sensitive_values, _OWNER_TABLES, low=1)
    if not isinstance(missing, bool):
        raise ParameterError(f"The 'missing' parameter of {_OWNER_TABLES} must be a bool. Got {missing!r} instead.")
    return qi_range, sens_range


def tables(
    *,
    min_rows: int = 1,
    max_rows: int = 40,
    n_qi: int | tuple[int, int] = (1, 3),
    max_values: int = 6,
    max_height: int = 3,
    n_sensitive: int | tuple[int, int] = 1,
    sensitive_values: int = 3,
    missing: bool = False,
) -> st.SearchStrategy[tuple[pd.DataFrame, dict[str, Hierarchy]]]:
    """A small random table and a valid hierarchy for each of its quasi-identifiers.

    The quasi-identifiers are the columns ``q0, q1, ...`` (the keys of the
    hierarchies, in column order); the sensitive attributes are ``s0, s1, ...``
    (every other column).  QI values are ``v0, v1, ...``; sensitive values are
    ``0, 1, ...`` (text, so the column can be declared categorical or numeric).
    Each hierarchy covers every value of its column (and possibly values that
    do not occur), see :func:`hierarchies`.

    Parameters
    ----------
    min_rows, max_rows : int, 1 <= min_rows <= max_rows
        The number of records.
    n_qi : int in [1, inf) or (min, max)
        The number of quasi-identifiers.
    max_values : int in [1, inf)
        The most distinct leaf values per quasi-identifier.
    max_height : int in [1, inf)
        The largest hierarchy height.
    n_sensitive : int in [0, inf) or (min, max)
        The number of sensitive columns.
    sensitive_values : int in [1, inf)
        The size of each sensitive attribute's value domain.
    missing : bool, default False
        Let cells be missing (``None``), which veil keeps as a value of its own.

    Returns
    -------
    SearchStrategy of (pandas.DataFrame, dict of str to Hierarchy)

    Raises
    ------
    ParameterError
        An option outside its range (raised when the strategy is built).

    Examples
    --------
    >>> from hypothesis import given
    >>> from veil.testing import tables
    >>> @given(tables(max_rows=10))
    ... def test_columns(table):
    ...     frame, hierarchies = table
    ...     assert list(hierarchies) == [c for c in frame.columns if c.startswith("q")]
    >>> test_columns()
    """
    qi_range, sens_range = _check_table_options(
        min_rows, max_rows, n_qi, max_values, max_height, n_sensitive, sensitive_values, missing
    )
    return _tables(min_rows, max_rows, qi_range, max_values, max_height, sens_range, sensitive_values, missing)


@st.composite
def _tables(
    draw: st.DrawFn,
    min_rows: int,
    max_rows: int,
    qi_range: tuple[int, int],
    max_values: int,
    max_height: int,
    sens_range: tuple[int, int],
    sensitive_values: int,
    missing: bool,
) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    n = draw(st.integers(min_value=min_rows, max_value=max_rows))
    n_qi = draw(st.integers(*qi_range))
    columns: dict[str, list[Any]] = {}
    bound: dict[str, Hierarchy] = {}

    def cells(values: list[str]) -> list[Any]:
        element = st.sampled_from(values)
        if missing:
            element = st.one_of(element, st.none())
        return draw(st.lists(element, min_size=n, max_size=n))

    for q in range(n_qi):
        name = f"q{q}"
        values = [f"v{i}" for i in range(draw(st.integers(1, max_values)))]
        bound[name] = draw(hierarchies(values, max_height=max_height, name=name))
        columns[name] = cells(values)
    domain = [str(i) for i in range(sensitive_values)]
    for s in range(draw(st.integers(*sens_range))):
        columns[f"s{s}"] = cells(domain)
    return pd.DataFrame(columns, dtype=object), bound


def datasets(
    *,
    sensitive_kind: str = "categorical",
    **options: Any,
) -> st.SearchStrategy[Dataset]:
    """A :class:`~veil.dataset.Dataset` drawn by :func:`tables`, roles and hierarchies attached.

    Parameters
    ----------
    sensitive_kind : {"categorical", "numeric"}, default "categorical"
        The kind declared for the sensitive columns (``numeric`` orders their
        values, for ordered t-closeness).
    **options
        Passed to :func:`tables`.

    Returns
    -------
    SearchStrategy of Dataset
    """
    check_choice("sensitive_kind", sensitive_kind, "veil.testing.datasets", ("categorical", "numeric"))
    return tables(**options).map(lambda table: _to_dataset(table, sensitive_kind))


def _to_dataset(table: tuple[pd.DataFrame, Mapping[str, Hierarchy]], sensitive_kind: str) -> Dataset:
    frame, bound = table
    sensitive = [c for c in frame.columns if c not in bound]
    return Dataset.from_pandas(
        frame, quasi_identifiers=list(bound), sensitive=sensitive,
        kinds={s: sensitive_kind for s in sensitive}, hierarchies=bound,
    )
