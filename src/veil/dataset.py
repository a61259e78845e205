"""A table with its schema, and its encoding to integer codes (moved to :mod:`veil.data`).

This path keeps working: it re-exports the names of :mod:`veil.data`.
``_sort_labels`` and ``_sniff_separator`` are kept for the engines that import
them; new code uses :func:`veil.data.sort_labels` and :func:`veil.data.sniff_separator`.
"""

from veil.data._dataset import Dataset, MissingPolicy, read_csv
from veil.data._encoding import MISSING, EncodedColumn, format_labels, infer_kind
from veil.data._encoding import sort_labels as _sort_labels  # noqa: F401  (engines/_classes.py)
from veil.data._reader import DEFAULT_NA_VALUES
from veil.data._reader import sniff_separator as _sniff_separator  # noqa: F401  (engines/_source.py)

__all__ = ["Dataset", "EncodedColumn", "MISSING", "DEFAULT_NA_VALUES", "read_csv", "format_labels", "infer_kind",
           "MissingPolicy"]
