"""Generalization hierarchies and their builders.

A :class:`Hierarchy` maps each original value (a *leaf*) to a coarser value at
each level, up to a single top value.  Build one from an ARX-style CSV
(:func:`from_csv`), numeric intervals (:func:`intervals`), masking of strings
(:func:`masking`, :func:`prefix`), dates (:func:`dates`), or a taxonomy tree
(:func:`taxonomy`).  Every hierarchy is validated when built: monotone levels
and a single top; coverage of the data is checked when it is bound to a column.

Without writing files, a *spec* describes a hierarchy in one line, the same on
the command line (``--hierarchy age=interval:5,10,20``) and in a release
config (``hierarchy: "interval:5,10,20"``): :func:`parse_spec` reads it,
:func:`build` builds it over a column's values, :func:`choose` is what
``auto`` picks (and why: :func:`auto_source`), and :func:`resolve` does all of it for a table.  See
``docs/hierarchies.md``.
"""

from veil.hierarchy._auto import LevelSummary, Resolution, column_values, level_counts, resolve
from veil.hierarchy._choose import FEW_VALUES, NOMINAL_MANY, auto_source, build, choose
from veil.hierarchy._builders import dates, flat, from_csv, intervals, masking, prefix, taxonomy
from veil.hierarchy._categorical import OTHER, frequency_groups, taxonomy_file
from veil.hierarchy._hierarchy import Hierarchy
from veil.hierarchy._numeric import NumericValues, parse_numbers
from veil.hierarchy._order import SCALES, Order, category_order, ordered_groups
from veil.hierarchy._spec import BUILDERS, BuilderSpec, parse_spec, present_values

__all__ = [
    "Hierarchy", "from_csv", "intervals", "masking", "prefix", "dates", "taxonomy", "flat",
    "BuilderSpec", "BUILDERS", "parse_spec", "build", "choose", "resolve", "Resolution",
    "level_counts", "LevelSummary", "column_values", "present_values",
    "taxonomy_file", "frequency_groups", "OTHER", "NumericValues", "parse_numbers",
    "auto_source", "FEW_VALUES", "NOMINAL_MANY", "category_order", "ordered_groups", "Order", "SCALES",
]
