"""Categorical hierarchies: a taxonomy file of parent,child lines, and grouping by frequency."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.errors import HierarchyError
from veil.hierarchy._builders import read_text_file
from veil.hierarchy._hierarchy import Hierarchy

__all__ = ["taxonomy_file", "frequency_groups", "OTHER"]

#: The label of the values merged for being rare, in a frequency grouping.
OTHER = "(other)"


def _key(text: Any) -> str:
    """Matching key of a value: case and surrounding blanks do not count."""
    return str(text).strip().casefold()


def _read_edges(path: Path) -> list[tuple[str, str, int]]:
    if not path.is_file():
        raise HierarchyError(f"No such taxonomy file: {str(path)!r}.")
    text = read_text_file(path, "taxonomy file")
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise HierarchyError(f"The taxonomy file {str(path)!r} is empty; it needs parent,child lines.")
    first = lines[0][1]
    sep = ";" if ";" in first else ("\t" if "\t" in first else ",")
    edges = []
    for number, line in lines:
        row = next(csv.reader([line], delimiter=sep))
        if len(row) != 2 or not row[0].strip() or not row[1].strip():
            raise HierarchyError(
                f"{str(path)!r}, line {number}: expected 'parent{sep}child' (two non-empty fields); got {len(row)} field(s)."
            )
        edges.append((row[0].strip(), row[1].strip(), number))
    return edges


def _paths(leaves: list[str], parent: dict[str, str], spelling: dict[str, str], path: Path) -> dict[str, list[str]]:
    """Each leaf's chain of ancestors up to the root (walks the tree's nodes, not the data's rows)."""
    paths: dict[str, list[str]] = {}
    for leaf in leaves:
        chain, node = [leaf], leaf
        while node in parent:
            node = parent[node]
            if node in chain:
                raise HierarchyError(f"The taxonomy {str(path)!r} has a cycle through {spelling[node]!r}.")
            chain.append(node)
        paths[leaf] = chain
    return paths


def taxonomy_file(path: str | Path, values: Sequence[Any], *, top: str = "*", name: str = "") -> Hierarchy:
    """A hierarchy from a tree written as ``parent,child`` lines (``;`` or tab also work).

    The leaves are the nodes that are nobody's parent; several roots get a
    common top ``*``.  The data's values are matched to leaves ignoring case
    and surrounding blanks, so ``female`` and ``Female `` both find the leaf
    ``Female``; leaves of different depths are padded (a shallow leaf stays
    itself on the extra levels), as ARX does.

    Raises
    ------
    HierarchyError
        Missing or malformed file (naming the line), a node with two parents,
        a cycle, or a data value that is no leaf of the tree (naming it).
    """
    path = Path(path)
    parent: dict[str, str] = {}
    spelling: dict[str, str] = {}
    for up, down, number in _read_edges(path):
        ku, kd = _key(up), _key(down)
        spelling.setdefault(ku, up)
        spelling.setdefault(kd, down)
        if kd in parent and parent[kd] != ku:
            raise HierarchyError(
                f"{str(path)!r}, line {number}: {down!r} already has the parent {spelling[parent[kd]]!r}; "
                "each value needs one parent."
            )
        parent[kd] = ku
    nodes = set(parent) | set(parent.values())
    roots = sorted(n for n in nodes if n not in parent)
    if not roots:
        raise HierarchyError(f"The taxonomy {str(path)!r} has a cycle: no node is without a parent.")
    top_key = roots[0] if len(roots) == 1 else _key(top)
    if len(roots) > 1:
        spelling.setdefault(top_key, top)
        for root in roots:
            parent[root] = top_key
    leaves = sorted(n for n in nodes if n not in set(parent.values()))
    paths = _paths(leaves, parent, spelling, path)
    depth = max(len(chain) for chain in paths.values())
    present = list(dict.fromkeys(str(v) for v in values))
    unknown = [v for v in present if _key(v) not in paths]
    if unknown:
        raise HierarchyError(
            f"The taxonomy {str(path)!r} of {name or 'the attribute'!r} has no leaf for the value {unknown[0]!r}"
            + (f" (nor {len(unknown) - 1} other value(s))" if len(unknown) > 1 else "")
            + "; add a 'parent,value' line for it."
        )
    matched = {_key(v) for v in present}
    rows = []
    for text in present + [spelling[leaf] for leaf in leaves if leaf not in matched]:
        chain = [spelling[n] for n in paths[_key(text)]]
        padded = [text] * (depth - len(chain) + 1) + chain[1:]
        rows.append(padded)
    return Hierarchy.from_rows(rows, name=name, source=repr(str(path)))


def frequency_groups(
    values: Sequence[Any], counts: Sequence[int] | np.ndarray | None, thresholds: Sequence[int], *,
    top: str = "*", name: str = "",
) -> Hierarchy:
    """Group rare categories: at each level, values with fewer records than the threshold become ``(other)``.

    Values that differ only in case or surrounding blanks (``Male``, ``male``,
    ``MALE ``) are first merged under their most frequent spelling; that
    level is added only when it merges something.  ``thresholds`` increase,
    so a value merged at one level stays merged above it (monotone).

    Raises
    ------
    HierarchyError
        No record counts, or thresholds that are not increasing integers >= 2.
    """
    what = name or "the attribute"
    leaves = pd.Series(list(values), dtype=object).astype(str)
    if counts is None:
        raise HierarchyError(f"Grouping {what!r} by frequency needs the column's record counts.")
    thresholds = [int(t) for t in thresholds]
    if not thresholds or any(t < 2 for t in thresholds) or any(b <= a for a, b in zip(thresholds, thresholds[1:])):
        raise HierarchyError(f"Frequency thresholds must be increasing integers >= 2; got {thresholds}.")
    n = pd.Series(np.asarray(counts, dtype=np.int64), index=leaves.index)
    keys = leaves.map(_key)
    folded_total = n.groupby(keys.to_numpy()).transform("sum")
    order = pd.DataFrame({"key": keys, "n": n, "leaf": leaves}).sort_values(["key", "n", "leaf"], ascending=[True, False, True])
    spelling = order.drop_duplicates("key").set_index("key")["leaf"]
    folded = keys.map(spelling).to_numpy(dtype=object)
    columns = [leaves.to_numpy(dtype=object)]
    if keys.nunique() < len(leaves):
        columns.append(folded)
    for t in thresholds:
        columns.append(np.where(folded_total.to_numpy() >= t, folded, OTHER).astype(object))
    columns.append(np.full(len(leaves), top, dtype=object))
    return Hierarchy.from_rows(np.column_stack(columns).tolist(), name=name)
