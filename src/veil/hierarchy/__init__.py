"""Generalization hierarchies and their builders.

A :class:`Hierarchy` maps each original value (a *leaf*) to a coarser value at
each level, up to a single top value.  Build one from an ARX-style CSV
(:func:`from_csv`), numeric intervals (:func:`intervals`), masking of strings
(:func:`masking`, :func:`prefix`), dates (:func:`dates`), or a taxonomy tree
(:func:`taxonomy`).  Every hierarchy is validated when built: monotone levels
and a single top; coverage of the data is checked when it is bound to a column.
"""

from veil.hierarchy._builders import dates, flat, from_csv, intervals, masking, prefix, taxonomy
from veil.hierarchy._hierarchy import Hierarchy

__all__ = ["Hierarchy", "from_csv", "intervals", "masking", "prefix", "dates", "taxonomy", "flat"]
