"""Information-theoretic utility metrics (all in bits, logarithms to base 2).

Label entropy and InfoGain of a specialization (Fung, Wang & Yu), the
conditional entropy of a class label given the released QIs, non-uniform
entropy (Gionis & Tassa) and the KL divergence between the original and the
anonymized distribution (Kifer & Gehrke).  Everything is computed from class
tables: per-QI leaf frequencies come from the base (level-0) table's classes.
The KL divergence lives in :mod:`veil.utility._kl` and is re-exported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.utility._inputs import label_histogram, leaf_counts, per_base
from veil.utility._kl import kl_divergence

__all__ = [
    "label_entropy",
    "info_gain",
    "specialization_info_gain",
    "conditional_entropy",
    "non_uniform_entropy",
    "kl_divergence",
]


def _xlog2x(x: np.ndarray) -> np.ndarray:
    """:math:`x \\log_2 x` elementwise for :math:`x \\ge 0`, with :math:`0 \\log_2 0 = 0`."""
    x = np.asarray(x, dtype=np.float64)
    return x * np.log2(np.where(x > 0, x, 1.0))  # 0 * log2(1) = 0, with no masked copies


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of a count matrix (0 for an empty row)."""
    counts = np.asarray(counts, dtype=np.float64)
    sizes = counts.sum(axis=-1, keepdims=True)
    shares = counts / np.where(sizes > 0, sizes, 1.0)
    return np.maximum(-_xlog2x(shares).sum(axis=-1), 0.0)


def _check_counts(counts: object, name: str, owner: str, ndim: int) -> np.ndarray:
    array = np.asarray(counts)
    if array.ndim != ndim or array.dtype.kind not in "iuf" or not np.all(np.isfinite(array)) or (array < 0).any():
        shape = "a vector" if ndim == 1 else "a matrix (one row per child)"
        raise ParameterError(
            f"The {name!r} parameter of {owner} must be {shape} of non-negative finite counts. "
            f"Got {array.dtype} of shape {array.shape} instead."
        )
    return array.astype(np.float64)


def label_entropy(counts: np.ndarray) -> float | np.ndarray:
    """The entropy :math:`E(T[x])` in bits of a label histogram (one or one per row).

    Parameters
    ----------
    counts : array_like of non-negative numbers, shape (n_labels,) or (n, n_labels)
        How many records carry each label (a matrix: one histogram per row).

    Returns
    -------
    float or numpy.ndarray
        In [0, log2(n_labels)]; 0 for an empty histogram.

    Notes
    -----
    .. math::

        E(T[x]) = -\\sum_{y} \\frac{f(T[x], y)}{|T[x]|} \\log_2 \\frac{f(T[x], y)}{|T[x]|}

    with :math:`0 \\log_2 0 = 0`: 0 when one label holds every record, 1 for
    two labels held equally.

    Examples
    --------
    >>> label_entropy([10, 0]), label_entropy([5, 5])
    (0.0, 1.0)
    """
    array = np.asarray(counts)
    if array.ndim not in (1, 2):
        raise ParameterError(
            f"The 'counts' parameter of label_entropy must be a vector or a matrix. Got shape {array.shape} instead."
        )
    array = _check_counts(array, "counts", "label_entropy", array.ndim)
    h = _entropy_rows(array)
    return float(h) if h.ndim == 0 else h


def _check_partition(parent_counts: np.ndarray, children_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The parent and children histograms of :func:`info_gain`, checked: the children partition the parent."""
    parent = _check_counts(parent_counts, "parent_counts", "info_gain", 1)
    children = _check_counts(children_counts, "children_counts", "info_gain", 2)
    if children.shape[1] != parent.shape[0]:
        raise ParameterError(
            f"The 'children_counts' parameter of info_gain must have one column per label "
            f"({parent.shape[0]}). Got {children.shape[1]} instead."
        )
    if not np.allclose(children.sum(axis=0), parent):
        raise ParameterError(
            "The 'children_counts' parameter of info_gain must partition the parent: the children's "
            "counts must add up to 'parent_counts'."
        )
    return parent, children


def info_gain(parent_counts: np.ndarray, children_counts: np.ndarray) -> float:
    """InfoGain of specializing a value :math:`v` into its children :math:`c`.

    The entropy of the label among the records generalized to :math:`v`,
    minus the size-weighted entropy among the records of each child.

    Parameters
    ----------
    parent_counts : array_like, shape (n_labels,)
        The label histogram of :math:`T[v]`.
    children_counts : array_like, shape (n_children, n_labels)
        The label histogram of each child :math:`T[c]`; they must partition
        :math:`T[v]` (their sum equals ``parent_counts``).

    Returns
    -------
    float, in [0, log2(n_labels)]
        Bits of label information the specialization gains; 0 for an empty
        parent.

    Raises
    ------
    ParameterError
        Negative or non-finite counts, mismatched shapes, or children that do
        not add up to the parent.

    Notes
    -----
    .. math::

        \\mathrm{InfoGain}(v) = E(T[v]) - \\sum_{c} \\frac{|T[c]|}{|T[v]|} E(T[c])

    with :math:`E` the label entropy of :func:`label_entropy`.

    References
    ----------
    B. C. M. Fung, K. Wang and P. S. Yu, "Top-down specialization for
    information and privacy preservation", ICDE 2005, Section 3 (Score).

    Examples
    --------
    >>> info_gain([5, 5], [[5, 0], [0, 5]])   # 1 - (1/2 * 0 + 1/2 * 0)
    1.0
    """
    parent, children = _check_partition(parent_counts, children_counts)
    n = parent.sum()
    if n == 0:
        return 0.0
    sizes = children.sum(axis=1)
    gain = float(_entropy_rows(parent)) - float(np.dot(sizes, _entropy_rows(children))) / n
    return max(float(gain), 0.0)


def _specializable(classes: ClassTable, quasi_identifier: str) -> tuple[Any, int]:
    """The hierarchy and current level of ``quasi_identifier``, which must be at least 1."""
    h = classes.hierarchy(quasi_identifier)
    level = classes.levels[classes.quasi_identifiers.index(quasi_identifier)]
    if level == 0:
        raise ParameterError(
            f"The quasi-identifier {quasi_identifier!r} is at level 0; only a generalized value "
            "can be specialized. Generalize it first."
        )
    return h, level


def specialization_info_gain(classes: ClassTable, quasi_identifier: str, *, label: str) -> np.ndarray:
    """InfoGain of specializing each value of one QI one level down (all values at once).

    For every value :math:`v` of ``quasi_identifier`` at its current level
    :math:`\\ell \\ge 1`, :math:`T[v]` is every record whose value generalizes
    to :math:`v` (whatever its other QIs, as in top-down specialization) and
    the children are :math:`v`'s values at level :math:`\\ell - 1`.

    Parameters
    ----------
    classes : ClassTable
    quasi_identifier : str
        A QI of ``classes`` at a level of at least 1.
    label : str
        The class-label attribute (one of ``classes.sensitive``).

    Returns
    -------
    numpy.ndarray of float, shape (n_values at the QI's level,)
        ``gain[code]`` for the value with that code (0 for a value no record has).

    Raises
    ------
    ColumnNotFoundError
        Unknown QI or label.
    ParameterError
        The QI is at level 0 (nothing to specialize).

    Notes
    -----
    Computed over the records with known original values (the base table):
    top-down specialization does not suppress, so suppression by this table
    is ignored.  See :func:`info_gain` for the formula.

    References
    ----------
    B. C. M. Fung, K. Wang and P. S. Yu, ICDE 2005, Section 3.
    """
    h, level = _specializable(classes, quasi_identifier)
    base = classes.base
    hist = label_histogram(base, label, "specialization_info_gain")
    v = hist.n_values
    leaf = base.codes[:, base.quasi_identifiers.index(quasi_identifier)]
    child = h.rollup(0, level - 1)[leaf]
    n_children = h.n_values(level - 1)
    index = (child[:, None] * v + np.arange(v)).ravel()
    child_hist = np.bincount(index, weights=hist.counts.ravel(), minlength=n_children * v).reshape(n_children, v)
    parent_of = h.rollup(level - 1, level)
    n_parents = h.n_values(level)
    parent_hist = np.zeros((n_parents, v))
    np.add.at(parent_hist, parent_of, child_hist)
    child_sizes = child_hist.sum(axis=1)
    weighted = np.bincount(parent_of, weights=child_sizes * _entropy_rows(child_hist), minlength=n_parents)
    sizes = parent_hist.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = _entropy_rows(parent_hist) - np.where(sizes > 0, weighted / np.where(sizes > 0, sizes, 1), 0.0)
    return np.maximum(gain, 0.0)


def conditional_entropy(classes: ClassTable, label: str) -> float:
    """The entropy of a class label given the released QIs, :math:`H(Y \\mid \\text{classes})`, in bits.

    The label information the anonymized QIs do *not* capture: 0 when every
    class is pure, :math:`H(Y)` when the QIs say nothing about the label.

    Parameters
    ----------
    classes : ClassTable
    label : str
        The class-label attribute (one of ``classes.sensitive``).

    Returns
    -------
    float, in [0, H(Y)]

    Notes
    -----
    .. math::

        H(Y \\mid G) = \\sum_{g} \\frac{|g|}{|D|} E(T[g])

    over the classes :math:`g` plus one group of all suppressed records (they
    share the value ``*`` on every QI), :math:`|D|` every record.  Going from
    the top node (one group) to this table, :math:`H(Y) - H(Y \\mid G)` is the
    mutual information the released QIs carry about the label, which by the
    chain rule is the sum of the InfoGains of the specializations when each
    is scored inside the current classes; top-down specialization's
    :func:`specialization_info_gain` scores over all records with the value
    instead, a heuristic of the same kind.  Never decreases under
    generalization while the same records stay suppressed (merging groups
    cannot lower conditional entropy).  The ``infogain`` search objective.

    References
    ----------
    B. C. M. Fung, K. Wang and P. S. Yu, ICDE 2005 (InfoGain); T. M. Cover and
    J. A. Thomas, "Elements of Information Theory", 2nd ed., Theorem 2.6.5.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"sex": ["F", "F", "M", "M"], "y": ["a", "a", "a", "b"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["sex"], sensitive=["y"])
    >>> conditional_entropy(classes, "y")   # 2/4 * 0 + 2/4 * 1
    0.5
    """
    hist = label_histogram(classes, label, "conditional_entropy")
    counts = hist.counts
    suppressed = hist.overall - counts.sum(axis=0)
    sizes = counts.sum(axis=1)
    total = float(np.dot(sizes, _entropy_rows(counts))) if len(counts) else 0.0
    total += float(suppressed.sum()) * float(_entropy_rows(suppressed))
    return max(total / classes.n_records, 0.0)


def _qi_cost(classes: ClassTable, i: int) -> float:
    """Non-uniform entropy of QI ``i``.

    Exact, per generalized value :math:`g`: :math:`\\sum_{a \\in g} f_a \\log_2 (F_g / f_a)`
    for the retained and suppressed records together, plus :math:`s_g \\log_2 (N / F_g)` for
    the :math:`s_g` records of :math:`g` the transformation suppressed (:math:`f`: the leaf
    frequencies, only counted when needed).
    """
    h, level = classes.hierarchies[i], classes.levels[i]
    suppressing = classes.suppressed > classes.input_suppressed
    if level == 0 and not suppressing:
        return 0.0  # every value is its own generalization
    f = leaf_counts(classes, i)
    to_level = h.maps[level]
    grouped = np.bincount(to_level, weights=f, minlength=h.n_values(level))
    log_grouped = np.log2(np.where(grouped > 0, grouped, 1.0))  # no 0: nothing to silence
    # sum over leaves of f_a log2(F_g / f_a), exact 0 at level 0
    total = float(np.dot(f, log_grouped[to_level]) - _leaf_xlog2x(classes, i, f)) if level else 0.0
    if suppressing:
        known = classes.n_records - classes.input_suppressed
        retained = np.bincount(classes.codes[:, i], weights=classes.counts, minlength=h.n_values(level))
        lost = np.maximum(grouped - retained, 0.0)
        total += float(np.dot(lost, np.log2(known) - log_grouped)) if known else 0.0
    return total


def _leaf_xlog2x(classes: ClassTable, i: int, f: np.ndarray) -> np.floating:
    """:math:`\\sum_a f_a \\log_2 f_a` over QI ``i``'s leaf frequencies ``f`` (once per base table)."""
    key = ("leaf xlog2x", classes.quasi_identifiers[i], len(f))
    return per_base(classes.base, key, lambda: _xlog2x(f).sum())


def _qi_top(classes: ClassTable, i: int) -> float:
    """Non-uniform entropy of QI ``i`` generalized to the top."""
    f = leaf_counts(classes, i)
    return float(_xlog2x(np.array([f.sum()]))[0] - _leaf_xlog2x(classes, i, f))


def non_uniform_entropy(classes: ClassTable, *, normalized: bool = False) -> float:
    """Non-uniform entropy: bits needed to recover each original value from its generalization.

    Each record's value of each QI costs :math:`-\\log_2 \\Pr(a \\mid g)`, the
    surprise of its original value :math:`a` among the original records whose
    value generalizes to the same :math:`g`; the probabilities are the
    original table's value frequencies, so rare values cost more.  A record
    suppressed by the transformation costs :math:`-\\log_2 \\Pr(a)` (its
    value generalized to the top).

    Parameters
    ----------
    classes : ClassTable
    normalized : bool, default False
        Divide by the value at the top (every value fully generalized),
        giving a number in [0, 1] (0 when that value is 0).

    Returns
    -------
    float, in [0, inf)
        Bits; 0 for the original table.

    Notes
    -----
    .. math::

        \\Pi(D, g(D)) = \\sum_{i=1}^{N_a} \\sum_{j=1}^{|D|}
        -\\log_2 \\frac{|\\{r : r_i = a_{ij}\\}|}{|\\{r : r_i \\in g_{ij}\\}|}

    Frequencies come from the base table's classes (never the rows), exactly
    per generalized value.  Records that arrived
    already suppressed have no original value and cost nothing.  Never
    decreases under generalization while the same records stay suppressed.

    References
    ----------
    A. Gionis and T. Tassa, "k-Anonymization with minimal loss of
    information", IEEE TKDE 21(2), 2009, Definition 4.2 (entropy measure,
    non-uniform); used as "Non-uniform entropy" by ARX (Prasser et al.).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"sex": ["F", "F", "F", "M"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["sex"])
    >>> round(non_uniform_entropy(classes.generalize((1,))), 4)   # 3 log2(4/3) + log2(4)
    3.2451
    """
    q = len(classes.quasi_identifiers)
    total = max(sum(_qi_cost(classes, i) for i in range(q)), 0.0)
    if not normalized:
        return total
    top = sum(_qi_top(classes, i) for i in range(q))
    return total / top if top > 0 else 0.0
