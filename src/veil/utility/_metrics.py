"""Utility metrics read from class sizes and hierarchy levels.

Generalization height, precision (Sweeney), ILoss (Xiao & Tao),
discernibility (Bayardo & Agrawal), average class size (LeFevre et al.) and
the classification metric (Iyengar).  Each reads the class table only: the
class sizes ``counts``, the class codes at ``levels``, the hierarchies and
the number of suppressed records; never the rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from veil.classes import ClassTable
from veil.utility._inputs import attribute_weights, check_k, covered_beyond_leaf, label_histogram

__all__ = [
    "height",
    "precision",
    "precision_loss",
    "iloss",
    "discernibility",
    "average_class_size",
    "classification_metric",
]


def height(classes: ClassTable, *, normalized: bool = False) -> float:
    """The generalization height: the sum of the QIs' generalization levels.

    Parameters
    ----------
    classes : ClassTable
    normalized : bool, default False
        Divide by the sum of the hierarchies' heights, giving a value in [0, 1].

    Returns
    -------
    float
        :math:`\\sum_i \\ell_i` (an integer-valued float), or
        :math:`\\sum_i \\ell_i / \\sum_i H_i` when ``normalized``; 0 for a table
        without QIs.

    Notes
    -----
    A property of the transformation (the lattice node), not of the records:
    suppressed records do not change it.  Monotone under generalization, with
    or without suppression.

    References
    ----------
    P. Samarati, "Protecting respondents' identities in microdata release",
    IEEE TKDE 13(6), 2001 (minimal generalization height); listed as an existing
    measure by Kifer & Gehrke, SIGMOD 2006, Section 2.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> from veil.hierarchy import masking
    >>> frame = pd.DataFrame({"zip": ["47677", "47602", "47678"], "sex": ["F", "F", "M"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip", "sex"],
    ...                                  hierarchies={"zip": masking(frame["zip"])})
    >>> node = classes.generalize((2, 1))
    >>> height(node), height(node, normalized=True)
    (3.0, 0.5)
    """
    total = float(sum(classes.levels))
    if not normalized:
        return total
    heights = sum(h.height for h in classes.hierarchies)
    return total / heights if heights else 0.0


def _level_share(classes: ClassTable) -> np.ndarray:
    """:math:`h_i / HGV_i` for each QI (0 for a hierarchy of height 0)."""
    return np.array(
        [level / h.height if h.height else 0.0 for h, level in zip(classes.hierarchies, classes.levels)],
        dtype=np.float64,
    )


def precision(classes: ClassTable) -> float:
    """Sweeney's precision Prec: one minus the mean relative generalization height.

    Every QI value of every record is charged its generalization height
    divided by the height of its hierarchy; a suppressed record is charged the
    full height on every QI.

    Parameters
    ----------
    classes : ClassTable

    Returns
    -------
    float, in [0, 1]
        1 for the original table, 0 when everything is generalized to the top
        or suppressed; 1 for a table without QIs.  Higher is better; see
        :func:`precision_loss` for the loss form.

    Notes
    -----
    .. math::

        \\mathrm{Prec}(D) = 1 - \\frac{\\sum_{i=1}^{N_a}\\sum_{j=1}^{|D|}
        h_{ij} / \\mathit{HGV}_i}{|D| \\cdot N_a}

    with :math:`|D|` every record of the table (suppressed ones included),
    :math:`h_{ij}` the level of QI :math:`i` of record :math:`j` (the node's
    level for a retained record, :math:`\\mathit{HGV}_i` for a suppressed one)
    and :math:`\\mathit{HGV}_i` the height of QI :math:`i`'s hierarchy.  The loss
    :math:`1 - \\mathrm{Prec}` never decreases under generalization while the
    same records stay suppressed.

    References
    ----------
    L. Sweeney, "Achieving k-anonymity privacy protection using generalization
    and suppression", IJUFKS 10(5), 2002, Definition 11 (Prec).

    Examples
    --------
    The worked example of :mod:`veil.utility` gives Prec on four ZIP codes
    next to the other domain-share measures of the same nodes.
    """
    q = len(classes.quasi_identifiers)
    if q == 0:
        return 1.0
    charged = classes.n_retained * float(_level_share(classes).sum()) + classes.suppressed * q
    return 1.0 - charged / (classes.n_records * q)


def precision_loss(classes: ClassTable) -> float:
    """``1 - precision(classes)``: the mean relative generalization height, in [0, 1].

    The form of :func:`precision` to minimise; see it for the definition.
    """
    return 1.0 - precision(classes)


def iloss(classes: ClassTable, *, weights: Mapping[str, float] | Sequence[float] | None = None) -> float:
    """Xiao & Tao's information loss ILoss: the share of each attribute's domain a value covers.

    A value's cost (see Notes) is weighted per attribute and averaged over all
    records and attributes; a suppressed record costs the top's value on every QI.

    Parameters
    ----------
    classes : ClassTable
    weights : mapping of str to float, or sequence of float, optional
        Attribute weights :math:`w_i` in [0, inf), by QI name (an omitted QI weighs 1) or one per QI
        (default all 1); used as given, not normalised: with weights summing to :math:`N_a`, in [0, 1).

    Returns
    -------
    float
        In [0, 1) with unit weights; 0 for the original table and for a table without QIs.

    Raises
    ------
    ParameterError
        Weights of the wrong length, negative or not finite.
    ColumnNotFoundError
        A weight for an attribute that is not a QI.

    Notes
    -----
    .. math::

        \\mathrm{ILoss}(D) = \\frac{\\sum_{i=1}^{N_a} w_i \\sum_{j=1}^{|D|}
        \\frac{LN(A_{ij}) - 1}{|D_{A_i}|}}{|D| \\cdot N_a}

    :math:`LN(A_{ij})`: the leaves under record :math:`j`'s value of :math:`A_i`; :math:`|D_{A_i}|`: the
    hierarchy's leaves (values absent from the data included); :math:`|D|`: every record, suppressed
    ones with :math:`LN = |D_{A_i}|`.  Never decreases under generalization while the same records
    stay suppressed.  The CLI's ``loss`` metric.

    References
    ----------
    X. Xiao and Y. Tao, "Personalized privacy preservation", SIGMOD 2006,
    Section 6 (information loss of a generalized value).

    Examples
    --------
    The worked example of :mod:`veil.utility` gives ILoss on four ZIP codes
    next to the other domain-share measures of the same nodes.
    """
    w = attribute_weights(classes, weights, "iloss")
    q = len(classes.quasi_identifiers)
    if q == 0:
        return 0.0
    total = sum(float(w[i]) * _attribute_iloss(classes, i) for i in range(q) if w[i] != 0)
    return float(total) / (classes.n_records * q)


def _attribute_iloss(classes: ClassTable, i: int) -> float:
    """:math:`\\sum_j (LN(A_{ij}) - 1)/|D_{A_i}|` over every record (suppressed ones at the top) for QI ``i``."""
    domain = classes.hierarchies[i].n_values(0)
    if domain <= 1:
        return 0.0
    return (float(covered_beyond_leaf(classes, i)) + classes.suppressed * (domain - 1)) / domain


def discernibility(classes: ClassTable) -> int:
    """The discernibility metric DM: each record is charged the size of its class.

    A record in a class of :math:`E` records costs :math:`E` (it is
    indistinguishable from :math:`E` records), so a class costs :math:`E^2`; a
    suppressed record costs :math:`|D|`, the size of the whole table.

    Parameters
    ----------
    classes : ClassTable

    Returns
    -------
    int, in [|D|, |D|^2]
        :math:`|D|` when every record is unique, :math:`|D|^2` when all are in
        one class or suppressed.

    Notes
    -----
    .. math::

        DM(D) = \\sum_{E_i} |E_i|^2 + |D| \\cdot |\\text{suppressed}|

    :math:`|D|` counts every record (suppressed ones, including those
    suppressed on input, included).  Never decreases under generalization
    while the same records stay suppressed (:math:`(a+b)^2 \\ge a^2 + b^2`).
    In a search that suppresses each node's violating classes it is *not*
    monotone: a coarser node can absorb records its parent suppressed at
    :math:`|D|` each into a class of size :math:`E < |D|`.

    References
    ----------
    R. J. Bayardo and R. Agrawal, "Data privacy through optimal
    k-anonymization", ICDE 2005, Section 3 (discernibility metric :math:`C_{DM}`).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"age": ["[20-30]"] * 2 + [">40"] * 3})
    >>> discernibility(ClassTable.from_pandas(frame, quasi_identifiers=["age"]))  # 2² + 3²
    13
    """
    counts = classes.counts
    return int(np.dot(counts, counts)) + classes.n_records * classes.suppressed


def average_class_size(classes: ClassTable, k: int) -> float | None:
    """The normalised average equivalence class size :math:`C_{AVG}`.

    The mean number of retained records per class, divided by ``k``: 1 is the
    ideal of k-anonymity (every class exactly ``k`` records); larger values
    mean coarser classes than privacy requires.

    Parameters
    ----------
    classes : ClassTable
    k : int, in [1, inf)
        The k of k-anonymity the table was made for.

    Returns
    -------
    float or None
        :math:`C_{AVG}`; ``None`` when there is no class (every record
        suppressed), where the average is undefined.

    Raises
    ------
    ParameterError
        ``k`` is not an int in [1, inf).

    Notes
    -----
    .. math::

        C_{AVG} = \\frac{|D| - |\\text{suppressed}|}{|\\{E_i\\}|} \\Big/ k

    Suppressed records are not a class and are left out of the numerator.
    Never decreases under generalization while the same records stay
    suppressed (classes only merge).

    References
    ----------
    K. LeFevre, D. J. DeWitt and R. Ramakrishnan, "Mondrian multidimensional
    k-anonymity", ICDE 2006, Section 5 (:math:`C_{AVG}`).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"age": ["[20-30]"] * 2 + [">40"] * 3})
    >>> average_class_size(ClassTable.from_pandas(frame, quasi_identifiers=["age"]), k=2)
    1.25
    """
    k = check_k(k, "average_class_size")
    if classes.n_classes == 0:
        return None
    return classes.n_retained / classes.n_classes / k


def classification_metric(classes: ClassTable, label: str) -> float:
    """Iyengar's classification metric CM: the share of records a class-majority rule gets wrong.

    A suppressed record costs 1; a retained record costs 1 when its label
    differs from the majority label of its class (ties: any majority label,
    the cost is the same).

    Parameters
    ----------
    classes : ClassTable
    label : str
        The class-label attribute: the name of one of ``classes.sensitive``
        (build the class table with the label as a sensitive attribute).

    Returns
    -------
    float, in [0, 1]

    Raises
    ------
    ColumnNotFoundError
        The label has no histogram in the class table.

    Notes
    -----
    .. math::

        CM(D) = \\frac{|\\text{suppressed}| + \\sum_{E_i}
        \\left(|E_i| - \\max_y |E_i \\cap \\{\\text{label} = y\\}|\\right)}{|D|}

    :math:`|D|` counts every record, suppressed ones included.  Never
    decreases under generalization while the same records stay suppressed
    (the majority count of a merged class is at most the sum of its parts').

    References
    ----------
    V. S. Iyengar, "Transforming data to satisfy privacy constraints",
    KDD 2002, Section 3.2 (classification metric CM).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"sex": ["F", "F", "F", "M"], "y": ["a", "a", "b", "b"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["sex"], sensitive=["y"])
    >>> classification_metric(classes, "y")   # one F record is not the F majority "a"
    0.25
    """
    hist = label_histogram(classes, label, "classification_metric")
    counts = hist.counts
    majority = counts.max(axis=1) if counts.shape[1] and len(counts) else np.zeros(len(counts), np.int64)
    wrong = classes.n_retained - int(majority.sum()) + classes.suppressed
    return wrong / classes.n_records
