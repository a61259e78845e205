"""Top-down specialization: input checks, the greedy loop and the release (see :mod:`veil.algorithms.tds`)."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_int
from veil.algorithms._recoding import SUPPRESSED_LABEL, Recoding
from veil.algorithms.tds._loop import SCORES, _Specializer
from veil.algorithms.tds._search import _AnyTaxonomy, _Search
from veil.algorithms.tds._taxonomy import _IntervalTaxonomy, _taxonomy
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import HierarchyError, InfeasibleError, ParameterError, VerificationError
from veil.hierarchy import Hierarchy
from veil.models import PrivacyModel

__all__ = ["top_down_specialization", "SCORES"]

_OWNER = "top_down_specialization"


def _check_inputs(
    dataset: Any, models: Any, label: Any, score: Any, max_iterations: Any, intervals: Any = None,
) -> tuple[list[PrivacyModel], int | None]:
    if not isinstance(dataset, Dataset):
        raise ParameterError(
            f"The 'dataset' parameter of {_OWNER} must be a veil.Dataset. Got {type(dataset).__name__} instead."
        )
    check_choice("score", score, _OWNER, SCORES)
    if max_iterations is not None:
        max_iterations = check_int("max_iterations", max_iterations, _OWNER, low=0)
    if isinstance(models, PrivacyModel):
        models = [models]
    models = list(models)
    if not models:
        raise ParameterError(
            f"The 'models' parameter of {_OWNER} needs at least one privacy model (e.g. KAnonymity(k=5))."
        )
    for model in models:
        if not isinstance(model, PrivacyModel):
            raise ParameterError(
                f"The 'models' parameter of {_OWNER} must hold privacy models. Got {type(model).__name__} instead."
            )
        if not model.monotone_generalization:
            raise ParameterError(
                f"Top-down specialization needs anti-monotone models (monotone under generalization: a "
                f"specialization never repairs a violation); {model.name} is not. Use the lattice search."
            )
    qis = dataset.quasi_identifiers
    if not qis:
        raise ParameterError("The dataset declares no quasi-identifiers; there is nothing to specialize.")
    if label is None:
        raise ParameterError(
            f"The 'label' parameter of {_OWNER} must name the class attribute whose InfoGain ranks the "
            "specializations (e.g. label='salary-class'). Got None instead."
        )
    if not isinstance(label, str):
        raise ParameterError(f"The 'label' parameter of {_OWNER} must be a column name. Got {label!r} instead.")
    if label not in dataset.columns:
        raise ParameterError(
            f"The 'label' parameter of {_OWNER} must be a column of the table. Got {label!r}, which is not "
            f"one (columns: {', '.join(dataset.columns)})."
        )
    if label in qis:
        raise ParameterError(
            f"The 'label' parameter of {_OWNER} names {label!r}, a quasi-identifier; the class label must be "
            "another attribute."
        )
    grown = set(intervals) if isinstance(intervals, Mapping) else set()
    missing = [q for q in qis if q not in dataset.hierarchies and q not in grown]
    if missing:
        raise HierarchyError(
            f"No hierarchy is given for the quasi-identifier(s) {', '.join(map(repr, missing))}; top-down "
            "specialization needs a taxonomy (hierarchy) for every QI, or a numeric QI named in "
            "intervals={...} to grow its intervals at runtime."
        )
    return models, max_iterations



def _numeric_values(dataset: Dataset, name: str) -> np.ndarray:
    """The values of a runtime-interval QI as numbers (an error names the column when one is not)."""
    labels = dataset.encode(name).labels
    values = pd.to_numeric(pd.Series(labels, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
    if np.isnan(values).any():
        raise ParameterError(
            f"The 'intervals' parameter of {_OWNER} names {name!r}, whose values are not all numbers "
            "(or some are missing); runtime intervals need a numeric column."
        )
    return values


def _check_intervals(dataset: Dataset, intervals: Any, score: str) -> dict[str, tuple[float, float]]:
    if intervals is None:
        return {}
    if not isinstance(intervals, Mapping):
        raise ParameterError(
            f"The 'intervals' parameter of {_OWNER} must map numeric QIs to a root (low, high) or None. "
            f"Got {type(intervals).__name__} instead."
        )
    if intervals and score != "infogain":
        raise ParameterError(
            f"The 'intervals' parameter of {_OWNER} needs score='infogain' (AnonyLoss is defined on fixed "
            f"taxonomies). Got score={score!r} instead."
        )
    roots: dict[str, tuple[float, float]] = {}
    for name, root in intervals.items():
        if name not in dataset.quasi_identifiers:
            raise ParameterError(f"The 'intervals' parameter of {_OWNER} names {name!r}, which is not a quasi-identifier.")
        values = _numeric_values(dataset, name)
        smallest, largest = float(values.min()), float(values.max())
        if root is None:
            root = (math.floor(smallest), math.floor(largest) + 1)
        low, high = (float(x) for x in root)
        if not (low <= smallest and largest < high):
            raise ParameterError(
                f"The root interval of {name!r} in the 'intervals' parameter of {_OWNER} must hold every value "
                f"(low <= {smallest:g}, high > {largest:g}). Got [{low:g}, {high:g}) instead."
            )
        roots[name] = (low, high)
    return roots


def _leaf_label_counts(base: ClassTable, i: int, label: str) -> np.ndarray:
    """``(n_leaves, n_labels)``: records of each leaf of QI ``i`` with each class label."""
    hist = base.sensitive[label].counts
    n_leaves = base.hierarchies[i].n_values(0)
    v = hist.shape[1]
    if base.n_classes == 0 or v == 0:
        return np.zeros((n_leaves, v), dtype=np.float64)
    index = (base.codes[:, i].astype(np.int64)[:, None] * v + np.arange(v)).ravel()
    return np.bincount(index, weights=hist.ravel(), minlength=n_leaves * v).reshape(n_leaves, v)



def _prepare(
    dataset: Dataset, label: str, roots: Mapping[str, tuple[float, float]],
) -> tuple[ClassTable, list[_AnyTaxonomy]]:
    """The base class table (runtime-interval QIs at their distinct values) and every QI's taxonomy."""
    sensitive = list(dataset.sensitive)
    if label not in sensitive:
        sensitive.append(label)
    flat = {name: Hierarchy.flat([str(x) for x in dataset.encode(name).labels], name=name) for name in roots}
    base = ClassTable.from_dataset(dataset, sensitive=sensitive, hierarchies=flat)
    taxonomies: list[_AnyTaxonomy] = []
    for i, (name, h) in enumerate(zip(dataset.quasi_identifiers, base.hierarchies)):
        counts = _leaf_label_counts(base, i, label)
        if name in roots:
            positions = pd.to_numeric(pd.Series(h.labels[0], dtype=object)).to_numpy(dtype=np.float64)
            taxonomies.append(_IntervalTaxonomy(name, h, positions, counts, *roots[name]))
        else:
            taxonomies.append(_taxonomy(name, h, counts))
    return base, taxonomies


def _release(dataset: Dataset, base: ClassTable, search: _Search) -> pd.DataFrame:
    """Every input column, each QI replaced by the label of its cut node (``*`` if suppressed on input)."""
    data = dataset.frame.copy()
    if base.n_classes:
        row_class = base.row_classes()
    else:  # every record arrived suppressed
        row_class = np.full(dataset.n_records, -1, dtype=np.int64)
    kept = row_class >= 0
    for i, (name, t) in enumerate(zip(dataset.quasi_identifiers, search.taxonomies)):
        labels = np.full(len(data), SUPPRESSED_LABEL, dtype=object)
        labels[kept] = t.label[search.cut[row_class[kept], i]]
        data[name] = pd.array(labels, dtype=object)
    return data


# long because its docstring is the user's reference (parameters, scoring, stopping rule); the body is named steps.
def top_down_specialization(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    label: str,
    score: str = "infogain",
    max_iterations: int | None = None,
    intervals: Mapping[str, tuple[float, float] | None] | None = None,
) -> Recoding:
    """Anonymize by high-dimensional top-down specialization (HDTDS).

    Starts from the topmost cut (every quasi-identifier at its hierarchy's top
    value) and repeatedly performs the *valid* specialization of best score,
    replacing one value ``v`` of a cut by its children (the values one level
    below it that roll up to it); a specialization is valid when the table
    after it still satisfies every model.  Stops when no value of any cut can be
    specialized validly (the seed's stop rule; the score orders the candidates
    and never stops the run, so a valid candidate of score 0 is performed last).
    Values of one attribute may end at different levels (subtree
    generalization).  No record is suppressed.

    Parameters
    ----------
    dataset : Dataset
        The table, its schema and a hierarchy (taxonomy) for every QI.
    models : sequence of PrivacyModel
        Every model must hold on the output.  Each must be anti-monotone under
        specialization (``monotone_generalization``): k-anonymity,
        :class:`~veil.models.LKCPrivacy`, l-diversity, t-closeness, ...
        k-anonymity and LKC-privacy are checked locally (only the classes of
        the specialized value); other models on the whole candidate table.
    label : str
        The class attribute (a column that is not a QI); its InfoGain ranks
        the specializations.
    score : {"infogain", "infogain/anonyloss"}, default "infogain"
        ``"infogain"``: :math:`\\mathrm{InfoGain}(v)` (HDTDS, Mohammed et al.
        2009).  ``"infogain/anonyloss"``:
        :math:`\\mathrm{InfoGain}(v) / (\\mathrm{AnonyLoss}(v) + 1)` (TDS, Fung
        et al. 2005, 2007), which prefers specializations that cost little
        anonymity.
    max_iterations : int in [0, inf), optional
        Stop after this many scored specializations (default: until no valid
        candidate remains).
    intervals : mapping of str to (low, high) or None, optional
        Numeric QIs whose taxonomy is grown at runtime instead of read from a
        hierarchy: the root is the interval ``[low-high)`` (``None``: from the
        smallest value to just above the largest), and each specialization
        splits an interval in two between two consecutive values, at the
        roundest number in between (``[1-60)`` at 30 between 24 and 34).
        Every split point of an interval is a candidate of its own, scored
        by its InfoGain; the best *valid* one is performed.  Only with
        ``score="infogain"``.

    Returns
    -------
    Recoding
        ``data``: every input column, row-aligned with the input, each QI
        replaced by the label of its cut node (records suppressed on input keep
        ``*``).  ``details``: ``cuts`` (per QI, the labels of the final cut, most
        general first), ``specializations`` (scored ones performed),
        ``partition_preserving`` (free ones, see Notes), ``trace`` (the first
        20 scored specializations: attribute, value, level, score, InfoGain
        and, with ``"infogain/anonyloss"``, AnonyLoss), ``invalidated``
        (candidates found invalid), ``validity_checks`` (model checks run),
        ``stopped`` (``"no valid candidate"`` or ``"max_iterations"``),
        ``models``, ``score``, ``label``, ``max_iterations``, ``intervals``
        (the root of each runtime-grown QI).  A trace step on a runtime
        interval also gives ``split_at``, the value the interval is cut at.  ``suppressed``
        counts the records that arrived with ``*`` in every QI (TDS suppresses
        none); ``groups`` the equivalence classes of the output.

    Raises
    ------
    ParameterError
        No models, a model that is not anti-monotone, a missing, unknown or QI
        ``label``, an unknown ``score``, a negative ``max_iterations``, or a
        model parameter the table cannot meet (e.g. ``L`` above the number of QIs).
    HierarchyError
        A QI has no hierarchy (and is not in ``intervals``).
    InfeasibleError
        Even the topmost cut violates a model (e.g. ``K`` above the number of
        records, or a sensitive value more frequent than ``C`` in the table).
    VerificationError
        The final table fails a model when checked from scratch (a bug).

    Notes
    -----
    InfoGain of specializing :math:`v` into its children :math:`c`, with
    :math:`T[x]` the records whose value lies under :math:`x` and :math:`E` the
    entropy of the class label in bits:

    .. math::

        \\mathrm{InfoGain}(v) = E(T[v]) - \\sum_c \\frac{|T[c]|}{|T[v]|} E(T[c])

    It does not depend on the other attributes' cuts, so it is computed once.
    AnonyLoss is the mean, over the virtual identifiers (VIDs) containing
    :math:`v`'s attribute, of :math:`A(VID) - A_v(VID)`, the drop of the
    smallest group size on the VID; the VIDs are the whole QID for k-anonymity
    and other models and every set of :math:`\\min(L, |QID|)` attributes for
    LKC-privacy (its confidence bound is not part of AnonyLoss).  Ties are
    broken by QI order, then by the value's position in its hierarchy (higher
    levels first).

    A specialization that splits no class (the value's records all fall under
    one child, e.g. a padding level of the hierarchy, like Age's ``*`` above
    ``[1-99)``) is *partition-preserving*: it is performed as soon as its value
    enters the cut, before any scored one, since it cannot break a model that
    depends only on the classes (k-anonymity, LKC) and loses no information;
    other models still check it.  Values no record carries stay in the cut
    but are never candidates.

    The result is a heuristic, not an optimum: a greedy choice is never undone,
    so a different order can reach a cut of higher utility.  Because the
    models are anti-monotone (a specialization never repairs a violation), a
    candidate found invalid is never checked again, and at the end every
    further specialization of the returned cut violates some model.

    References
    ----------
    N. Mohammed, B. C. M. Fung, P. C. K. Hung and C. Lee, "Anonymizing
    healthcare data: a case study on the blood transfusion service", KDD 2009,
    Algorithm 1 (HDTDS); seed 004 (Fung et al., *Introduction to PPDP*,
    Algorithm 6.3.1).  B. C. M. Fung, K. Wang and P. S. Yu, "Top-down
    specialization for information and privacy preservation", ICDE 2005,
    Section 3 (Score, InfoGain, AnonyLoss); "Anonymizing classification data for
    privacy preservation", IEEE TKDE 19(5), 2007.

    Examples
    --------
    >>> from veil.datasets import load_lkc_patients
    >>> from veil.models import LKCPrivacy
    >>> lkc = LKCPrivacy(L=2, K=2, C=0.5, sensitive="Surgery", values=("Transgender",))
    >>> result = top_down_specialization(load_lkc_patients(), [lkc], label="Transfuse")
    >>> result.data["Job"].tolist()[:4]
    ['Janitor', 'Professional', 'Mover', 'Professional']
    >>> result.details["cuts"]["Age"]
    ['[30-60)', '24', '63']
    """
    start = time.perf_counter()
    models, max_iterations = _check_inputs(dataset, models, label, score, max_iterations, intervals)
    roots = _check_intervals(dataset, intervals, score)
    base, taxonomies = _prepare(dataset, label, roots)
    search = _Search(base, taxonomies, models)
    failing = [m.name for m in models if not m.check(search.class_table())]  # also validates parameters
    if failing:
        raise InfeasibleError(
            f"Even the most general table (every quasi-identifier at its hierarchy's top value) violates "
            f"{', '.join(failing)}; top-down specialization cannot meet it without suppression. Relax the "
            "model or use the lattice search with a suppression limit."
        )
    run = _Specializer(search, score)
    stopped = run.run(max_iterations)
    final = search.class_table()
    failed = [m.name for m in models if not m.check(final)]
    if failed:
        raise VerificationError(
            f"Top-down specialization produced a table that fails {', '.join(failed)}. This is a bug in veil; "
            "please report it with the configuration."
        )
    cuts = {t.name: [str(t.label[node]) for node in sorted(search.cuts[i], key=t.order)]
            for i, t in enumerate(taxonomies)}
    details = {
        "score": score, "label": label, "models": [m.name for m in models], "specializations": run.performed,
        "partition_preserving": run.free, "invalidated": run.invalidated, "validity_checks": search.checks_done,
        "stopped": stopped, "max_iterations": max_iterations, "cuts": cuts, "trace": run.trace,
        "intervals": {name: list(root) for name, root in roots.items()},
    }
    return Recoding(data=_release(dataset, base, search), algorithm="hdtds", suppressed=int(base.input_suppressed),
                    groups=int(final.n_classes), seconds=time.perf_counter() - start, details=details)
