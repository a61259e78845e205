"""Hierarchies resolved for a whole table.

:func:`resolve` turns
the ``--hierarchy COL=SPEC`` options (and ``--auto-hierarchies``) into
hierarchies for a :class:`~veil.dataset.Dataset`, with the text of what was
chosen (and why) for the summary and the report; :func:`level_counts` is the preview of
``veil hierarchy build``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from veil.errors import ColumnNotFoundError
from veil.hierarchy._choose import auto_source, build, choose
from veil.hierarchy._hierarchy import Hierarchy
from veil.hierarchy._spec import BuilderSpec, parse_spec

if TYPE_CHECKING:
    from veil.dataset import Dataset

__all__ = ["resolve", "Resolution", "LevelSummary", "level_counts", "column_values"]

def column_values(dataset: "Dataset", column: str) -> tuple[list[str], np.ndarray]:
    """A column's distinct present values and their record counts."""
    encoded = dataset.encode(column)
    counts = np.bincount(encoded.codes, minlength=len(encoded.labels))
    keep = np.arange(len(encoded.labels)) != encoded.missing_code
    return [str(v) for v in encoded.labels[keep]], counts[keep]


@dataclass(frozen=True)
class Resolution:
    """Hierarchies for a table's columns, with what each came from.

    Attributes
    ----------
    hierarchies : dict of str to Hierarchy
    sources : dict of str to str
        Per column, the spec as given (``interval:5,10``), the file path, or
        ``auto (interval:5,10,20) because numbers (73 values, 17 to 90): ...``
        with the choice made and its reason.  This is the JSON report's
        ``hierarchies`` section.
    reasons : dict of str to str
        Per column that ``auto`` chose for, the reason alone.
    """

    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)


def resolve(
    dataset: "Dataset",
    specs: Mapping[str, str | BuilderSpec] | None = None,
    *,
    quasi_identifiers: Iterable[str] | None = None,
    auto: bool = False,
    kinds: Mapping[str, str] | None = None,
    base_dir: str | Path | None = None,
) -> Resolution:
    """Build the hierarchies the ``--hierarchy`` options (and ``--auto-hierarchies``) ask for.

    Parameters
    ----------
    dataset : Dataset
    specs : mapping of str to str
        Column to spec (see :mod:`veil.hierarchy` for the grammar).
    quasi_identifiers : iterable of str, optional
        With ``auto``, the columns that get ``auto`` when they have no spec
        (default: the dataset's quasi-identifiers).
    auto : bool
        Give ``auto`` to every quasi-identifier without a spec.
    kinds : mapping of str to str, optional
        Kinds the user declared (``auto`` follows them).
    base_dir : path, optional
        Relative files are read from here.

    Raises
    ------
    ColumnNotFoundError
        A spec names a column that is not in the table.
    HierarchyError
        A spec is malformed or does not fit its column (naming both).
    """
    wanted: dict[str, BuilderSpec] = {
        col: parse_spec(s) if isinstance(s, str) else s for col, s in (specs or {}).items()
    }
    if auto:
        for col in quasi_identifiers if quasi_identifiers is not None else dataset.quasi_identifiers:
            wanted.setdefault(col, BuilderSpec("auto"))
    out = Resolution()
    for col, spec in wanted.items():
        if col not in dataset.columns:
            raise ColumnNotFoundError(
                f"--hierarchy names the column {col!r}, which is not in the table; its columns are: "
                f"{', '.join(dataset.columns)}."
            )
        kind = (kinds or {}).get(col)
        values, counts = column_values(dataset, col) if spec.builder != "file" else ([], None)
        if spec.builder == "auto":
            chosen = choose(values, counts, kind=kind, name=col)
            out.sources[col] = auto_source(chosen)
            out.reasons[col] = chosen.reason
            spec = chosen
        else:
            out.sources[col] = str(spec)
        out.hierarchies[col] = build(spec, values, counts=counts, name=col, kind=kind, base_dir=base_dir)
    return out


@dataclass(frozen=True)
class LevelSummary:
    """One level of a hierarchy over a column: how many groups and how big.

    Attributes
    ----------
    level : int
    groups : int
        Distinct values at this level among the records.
    smallest, largest : int
        Records in the smallest and the largest group.
    examples : tuple of (str, int)
        The first few labels in hierarchy order, with their records.
    """

    level: int
    groups: int
    smallest: int
    largest: int
    examples: tuple[tuple[str, int], ...]


def level_counts(hierarchy: Hierarchy, values: Sequence[str], counts: Sequence[int] | np.ndarray, *,
                 column: str = "", examples: int = 4) -> list[LevelSummary]:
    """Per level, the groups the column's records fall into (the text wizard's preview).

    Raises
    ------
    HierarchyError
        The hierarchy misses one of ``values`` (naming it).
    """
    leaf = hierarchy.leaf_index(np.asarray(values, dtype=object), column=column)
    weights = np.asarray(counts, dtype=np.int64)
    out = []
    for level in range(hierarchy.n_levels):
        sizes = np.bincount(hierarchy.maps[level][leaf], weights=weights, minlength=hierarchy.n_values(level))
        used = np.flatnonzero(sizes > 0)
        out.append(LevelSummary(
            level=level, groups=len(used), smallest=int(sizes[used].min()) if len(used) else 0,
            largest=int(sizes[used].max()) if len(used) else 0,
            examples=tuple((hierarchy.label(level, int(c)), int(sizes[c])) for c in used[:examples]),
        ))
    return out
