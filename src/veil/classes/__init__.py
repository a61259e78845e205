"""The class table: equivalence classes of the quasi-identifiers, veil's hot path.

Almost every privacy model, risk measure and utility metric is a function of
the *equivalence classes* of a table: the distinct combinations of
quasi-identifier (QI) values, how many records share each, and how the
sensitive values are distributed inside each.  :class:`ClassTable` holds
exactly that, as arrays:

* ``codes``  — ``(n_classes, n_qi)`` int32, each class's QI codes at the
  current generalization ``levels``;
* ``counts`` — ``(n_classes,)`` int64, records per class;
* ``sensitive[name]`` — each sensitive attribute's per-class counts
  (:class:`~veil.classes.SensitiveHistogram`: a dense matrix for a few values, the
  (class, value, count) pairs that occur for more).

It is built once from the rows (:meth:`ClassTable.from_dataset`); every
generalization, projection and suppression after that works on the classes
only (vectorised with numpy: codes are mapped through the hierarchies' level
maps, packed into one int64 key and regrouped), never on the rows.  A coarser
table is rolled up from a finer one when it can be, which is smaller still.
Sensitive histograms are derived lazily, so a search that needs only class
sizes never pays for them.

Records already suppressed in the input (``*`` in every QI) are recognised and
counted apart (:attr:`ClassTable.input_suppressed`), never treated as a class.

The modules:

* :mod:`veil.classes._grouping` — the grouping kernel (codes packed into one
  int64 key and regrouped);
* :mod:`veil.classes._sparse` and :mod:`veil.classes._histogram` — a sensitive
  attribute's per-class counts (:class:`SensitiveHistogram`: a dense matrix for a
  few values, the (class, value, count) pairs that occur for more) and their roll-up;
* :mod:`veil.classes._build` — the one pass over the rows (from rows, or from an
  engine's grouped counts), giving a base table's fields;
* :mod:`veil.classes._release` — the way back: a transformation applied to the rows,
  and the released rows built from the codes;
* :mod:`veil.classes._table` — :class:`ClassTable`: generalize, roll up,
  project, suppress, apply.
"""

from veil.classes._grouping import (
    SUPPRESSED, all_star_rows, dense_space, factorize_keys, float_weights, group_codes, key_space,
    pack_codes, sum_by_key,
)
from veil.classes._histogram import SensitiveHistogram
from veil.classes._sparse import ClassValueCounts
from veil.classes._table import ClassTable, build

_group = group_codes  # old private name (veil.classes._group), kept for one release

__all__ = ["ClassTable", "ClassValueCounts", "SensitiveHistogram", "build", "SUPPRESSED", "all_star_rows", "dense_space", "factorize_keys",
           "float_weights", "group_codes", "key_space", "pack_codes", "sum_by_key"]
