"""Mondrian multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan, ICDE 2006).

Mondrian anonymizes top-down.  It starts with one partition holding the whole
table and splits partitions recursively, each time along one quasi-identifier
(QI), for as long as the parts it would create still satisfy every requested
privacy model.  Each final partition becomes one equivalence class; its
records are released with the partition's *extent* on each QI:

* an **ordered** QI (kind ``numeric``, ``date`` or ``ordinal``) is split at the
  median of the partition and released as the range ``"[min-max]"`` of its
  values in the partition (ARX's style), or the single value when
  ``min == max``;
* a **categorical** QI with a hierarchy is split into the children of the
  partition's current hierarchy node (the lowest common ancestor, LCA, of its
  values): one part per child subtree holding records.  It is released as the
  LCA's label.

This is *local* (multidimensional) recoding: two records with the same
original value can be released with different labels when they fall in
different partitions (age ``34`` may be released as ``[30-34]`` in one
class and ``[34-52]`` in another), unlike the full-domain generalization of
:mod:`veil.algorithms.lattice`, which recodes every occurrence of a value
alike.  Local recoding loses far less information, at the price of labels
that do not form one consistent domain across rows.

The algorithm never loops over rows in Python: a partition is an index array
into the encoded rows (QIs as ``int32`` ranks), medians, extents and split
masks are numpy operations, and whether a candidate split is *allowable* is
decided by the requested models themselves, judged on a tiny
:class:`~veil.classes.ClassTable` whose classes are the candidate parts (with
the whole table's sensitive distribution as the reference of t-closeness and
the like), regrouped from the table of the records that
:meth:`~veil.classes.ClassTable.from_dataset` builds once.  Loops run over
partitions only.

References
----------
K. LeFevre, D. J. DeWitt, R. Ramakrishnan, "Mondrian multidimensional
k-anonymity", ICDE 2006 (Sections 3-4: strict and relaxed multidimensional
partitioning, the greedy median-split algorithm).
J. Xu, W. Wang, J. Pei, X. Wang, B. Shi, A. W.-C. Fu, "Utility-based
anonymization using local recoding", KDD 2006 (Normalized Certainty Penalty).
"""

from veil.algorithms.mondrian._core import mondrian
from veil.algorithms.mondrian._judge import CLASS_LOCAL_MODELS, suppression_for_root

__all__ = ["mondrian", "CLASS_LOCAL_MODELS", "suppression_for_root"]
