"""The class table: equivalence classes of the quasi-identifiers, veil's hot path.

* :mod:`veil.classes._grouping` — the grouping kernel (codes packed into one
  int64 key and regrouped) and :class:`SensitiveHistogram`;
* :mod:`veil.classes._build` — the one builder (from rows, or from an engine's
  grouped counts);
* :mod:`veil.classes._release` — the way back: a transformation applied to the rows,
  and the released rows built from the codes;
* :mod:`veil.classes._table` — :class:`ClassTable`: generalize, roll up,
  project, suppress, apply.
"""

from veil.classes._grouping import (
    SUPPRESSED, SensitiveHistogram, all_star_rows, dense_space, factorize_keys, float_weights, group_codes, key_space,
    pack_codes, sum_by_key,
)
from veil.classes._table import ClassTable

_group = group_codes  # old private name (veil.classes._group), kept for one release

__all__ = ["ClassTable", "SensitiveHistogram", "SUPPRESSED", "all_star_rows", "dense_space", "factorize_keys",
           "float_weights", "group_codes", "key_space", "pack_codes", "sum_by_key"]
