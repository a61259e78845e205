"""Workload utility (Brickell & Shmatikov 2008): what a release is worth to a classifier.

For a target attribute and a classifier, three accuracies on the same
held-out records:

* :math:`U_{max}`: trained on the original table;
* :math:`U_{base}`: trained on the *trivially sanitized* table, every
  quasi-identifier removed (maximal privacy);
* :math:`U_{san}`: trained on the release.

Beside them, the attacker's side of the same trade-off:
:math:`A_{acc}`, the accuracy gain of guessing the target of a record by its
class's most common value over guessing the table's most common value
(:func:`veil.risk.disclosure`), against the same baseline as :math:`U_{base}`'s.

Protocol (documented in ``docs/utility.md``)
--------------------------------------------
The original's records are split once into train and test rows (stratified on
the target, ``random_state``).  The release is put back in the original's row
order (:func:`veil.utility.align_release`: the full-domain recoding is a
function of each record's QI values; the rebuilt rows are checked against the
release as a multiset), so the test rows of the three tables are the same
records: the original's, the same without QIs, and their released versions.
Every classifier reads the columns the release and the original share, less
the target (the original's identifiers never), so :math:`U_{max}` and
:math:`U_{san}` differ only by the recoding.  Suppressed records are in both
splits with ``*`` in every QI: what a user of the release sees.  The whole
table was anonymized (not just its training part), as ``veil anonymize`` does;
the test records' released versions are exactly what the release publishes.

Classifiers (:data:`CLASSIFIERS`): ``decision-tree`` (CART,
``min_samples_leaf=5``, on ordinal codes), ``naive-bayes`` (categorical naive
Bayes, Laplace smoothing) and ``logistic-regression`` (on one-hot features).

Reading the figures: :math:`p(T, s_{max}(T))` (``a_base``) is also the accuracy
of every classifier that learns nothing: :math:`U_{base}` when the table has no
column but the QIs and the target.  :math:`U_{san} - U_{base}` is the utility
gain of the anonymization over trivial sanitization, :math:`A_{acc}` the
attacker's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from veil.dataset import Dataset
from veil.errors import ParameterError
from veil.utility._alignment import align_release
from veil.utility._target import (
    MAX_TARGET_CLASSES, check_target, check_workload_target, published_columns, release_features,
)

__all__ = ["CLASSIFIERS", "MAX_TARGET_CLASSES", "ClassifierScores", "Workload", "WorkloadResult", "workload", "workload_summary",
           "check_workload_target", "published_columns", "classifier_accuracy"]

#: The classifiers :func:`workload` trains by default, by report name.
CLASSIFIERS: tuple[str, ...] = ("decision-tree", "naive-bayes", "logistic-regression")

def _make(name: str, random_state: int) -> Any:
    """A fresh scikit-learn classifier with its feature encoding, by report name."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    if name == "decision-tree":
        return DecisionTreeClassifier(min_samples_leaf=5, random_state=random_state)
    if name == "naive-bayes":
        return CategoricalNB(alpha=1.0)
    if name == "logistic-regression":
        return make_pipeline(
            OneHotEncoder(handle_unknown="ignore"), LogisticRegression(max_iter=2000, random_state=random_state)
        )
    raise ParameterError(f"The 'classifiers' parameter takes names from {', '.join(CLASSIFIERS)}. Got {name!r} instead.")


def _codes(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Integer codes per column (numeric order where every label is a number, else text order).

    Labels are factorized first and only the distinct labels are parsed and sorted.
    """
    out = np.zeros((len(frame), len(columns)), dtype=np.int64)
    for j, name in enumerate(columns):
        text = frame[name].astype(object).where(frame[name].notna(), "").astype(str)
        codes, uniques = pd.factorize(text)
        numbers = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce")
        keys = numbers.to_numpy() if not numbers.isna().any() else np.asarray(uniques, dtype=str)
        rank = np.empty(len(uniques), dtype=np.int64)
        rank[np.argsort(keys, kind="stable")] = np.arange(len(uniques))
        out[:, j] = rank[codes]
    return out


def _accuracy(name: str, features: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, random_state: int) -> float:
    """Train ``name`` on the train rows of ``features`` and score it on the test rows."""
    if features.shape[1] == 0:  # nothing to learn from: the training majority (the trivial classifier)
        values, counts = np.unique(y[train], return_counts=True)
        return float(np.mean(y[test] == values[np.argmax(counts)]))
    model = _make(name, random_state)
    if name == "naive-bayes":  # every category of the column, seen in training or not
        model.set_params(min_categories=features.max(axis=0) + 1)
    model.fit(features[train], y[train])
    return float(np.mean(model.predict(features[test]) == y[test]))


def classifier_accuracy(name: str, features: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                        random_state: int = 0) -> float:
    """The accuracy on rows ``test`` of the classifier ``name`` trained on rows ``train`` of the integer
    ``features`` (one column per feature, codes in order): the step every protocol shares (this
    module's, and the synthetic table's of :mod:`veil.dp.synthesis`, trained on one table and tested
    on another stacked below it)."""
    return _accuracy(name, features, y, train, test, random_state)


@dataclass(frozen=True)
class ClassifierScores:
    """The three accuracies of one classifier on the held-out records.

    Attributes
    ----------
    u_base, u_san, u_max : float in [0, 1]
        Accuracy when trained on the table without QIs, on the release, on the original.
    """

    u_base: float
    u_san: float
    u_max: float

    @property
    def gap(self) -> float:
        """:math:`U_{max} - U_{san}`, the accuracy the anonymization cost."""
        return self.u_max - self.u_san

    @property
    def ratio(self) -> float | None:
        """:math:`U_{san} / U_{max}` (``None`` when :math:`U_{max} = 0`)."""
        return self.u_san / self.u_max if self.u_max > 0 else None

    @property
    def gain(self) -> float:
        """:math:`U_{san} - U_{base}`, the utility gain over trivial sanitization."""
        return self.u_san - self.u_base

    def to_dict(self) -> dict[str, Any]:
        return {
            "u_base": self.u_base, "u_san": self.u_san, "u_max": self.u_max,
            "gap": self.gap, "ratio": self.ratio, "gain": self.gain,
        }


@dataclass(frozen=True)
class WorkloadResult:
    """What :func:`workload` returns; :meth:`to_dict` is the JSON contract.

    Attributes
    ----------
    target : str
    classifiers : dict of str to ClassifierScores
    a_acc : float in [-1, 1]
        The attacker's accuracy gain on the release (Brickell & Shmatikov's :math:`A_{acc}`).
    a_base : float in [0, 1]
        :math:`p(T, s_{max}(T))`, the share of the target's most common value:
        the accuracy of the attacker's (and the classifiers') trivial guess.
    n_train, n_test : int
    features : tuple of str
        The columns every classifier reads (the QIs among them are removed for :math:`U_{base}`).
    """

    target: str
    classifiers: dict[str, ClassifierScores]
    a_acc: float
    a_base: float
    n_train: int
    n_test: int
    features: tuple[str, ...]
    protocol: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "classifiers": {name: scores.to_dict() for name, scores in self.classifiers.items()},
            "a_acc": self.a_acc,
            "a_base": self.a_base,
            "records": {"train": self.n_train, "test": self.n_test},
            "features": list(self.features),
            "protocol": dict(self.protocol),
        }


class Workload:
    """A workload prepared once on the original, to score many releases of it.

    The split and :math:`U_{max}`, :math:`U_{base}` do not depend on the
    release, so a sweep (``veil explore``) computes them once and calls
    :meth:`score` per release.

    Parameters
    ----------
    original : Dataset
        The table that was anonymized, with its quasi-identifiers (and their
        hierarchies, to match a shuffled release).
    target : str
        The attribute to predict; not a quasi-identifier.
    classifiers : sequence of str, default :data:`CLASSIFIERS`
    quasi_identifiers : sequence of str, optional
        Defaults to the dataset's.
    features : sequence of str, optional
        The columns to learn from: those the releases publish.  Default: the
        quasi-identifiers and the columns declared sensitive or insensitive (what
        a release publishes under the default policy; an identifier is dropped,
        an unlisted column withheld).  Each release must have them.
    test_size : float in (0, 1), default 1/3
    random_state : int, default 0
        Seed of the split and of the classifiers: the result is deterministic.

    Raises
    ------
    ParameterError
        Among others: the target has fewer than two values among the records
        (missing ones left out) or among the training records of the split, or
        more than :data:`MAX_TARGET_CLASSES` classes.  Refused before any
        classifier is fitted; the message names counts, never a value.
    """

    def __init__(
        self,
        original: Dataset,
        *,
        target: str,
        classifiers: Sequence[str] = CLASSIFIERS,
        quasi_identifiers: Sequence[str] | None = None,
        features: Sequence[str] | None = None,
        test_size: float = 1 / 3,
        random_state: int = 0,
    ) -> None:
        from sklearn.model_selection import train_test_split

        if not isinstance(original, Dataset):
            raise ParameterError(f"The 'original' parameter must be a veil Dataset. Got {type(original).__name__} instead.")
        qis = tuple(quasi_identifiers if quasi_identifiers is not None else original.quasi_identifiers)
        if target not in original.columns:
            raise ParameterError(f"The target {target!r} is not a column of the original table.")
        if target in qis:
            raise ParameterError(f"The target {target!r} is a quasi-identifier; workload utility predicts a released, ungeneralized attribute.")
        if not qis:
            raise ParameterError("The workload needs the quasi-identifiers (none are declared).")
        if not (isinstance(test_size, float) and 0 < test_size < 1):
            raise ParameterError(f"The 'test_size' parameter must be a float in (0, 1). Got {test_size!r} instead.")
        names = list(dict.fromkeys(classifiers))
        if not names:
            raise ParameterError("The 'classifiers' parameter needs at least one classifier name.")
        for name in names:
            _make(name, 0)  # unknown names fail here, before any work
        columns = list(features) if features is not None else published_columns(original, target)
        absent = [c for c in list(qis) + columns if c not in original.columns]
        if absent:
            raise ParameterError(f"Column(s) {', '.join(map(repr, absent))} are not in the original table.")
        self.original, self.target, self.classifiers = original, target, tuple(names)
        self.quasi_identifiers, self.random_state = qis, int(random_state)
        self.features = tuple(dict.fromkeys(list(qis) + [c for c in columns if c != target]))
        labels = original.labels_of(target)
        missing = labels.isna().to_numpy()
        self.y = labels.fillna("").astype(str).to_numpy()
        check_target(target, self.y, missing)  # before any split or classifier: sklearn's refusal quotes the value
        rows = np.arange(original.n_records)
        values, counts = np.unique(self.y, return_counts=True)
        stratify = self.y if len(values) > 1 and counts.min() >= 2 else None
        try:
            self.train, self.test = train_test_split(rows, test_size=test_size, random_state=self.random_state, stratify=stratify)
        except ValueError as exc:
            raise ParameterError(f"Cannot split {original.n_records} records into train and test rows: {exc}") from None
        check_target(target, self.y, missing, self.train)
        self.a_base = float(counts.max() / counts.sum())
        frame = original.frame
        full = _codes(frame, self.features)
        base_columns = [j for j, c in enumerate(self.features) if c not in qis]
        self.u_max = {n: _accuracy(n, full, self.y, self.train, self.test, self.random_state) for n in names}
        self.u_base = {
            n: _accuracy(n, full[:, base_columns], self.y, self.train, self.test, self.random_state) for n in names
        }

    def _check_row_order(self, rows: pd.DataFrame) -> None:
        """The columns a recoding leaves alone (the target, non-QI features) must match the original row by row."""
        suppressed = (rows[list(self.quasi_identifiers)].astype(str) == "*").all(axis=1).to_numpy()
        for name in [c for c in self.features if c not in self.quasi_identifiers] + [self.target]:
            released = rows[name].astype(str).to_numpy()
            # a suppressed record's value may be withheld ('*', the default release's blanking)
            same = (released == self.original.frame[name].astype(str).to_numpy()) | (suppressed & (released == "*"))
            if not same.all():
                raise ParameterError(
                    f"The release's column {name!r} differs from the original's row by row: its rows are not "
                    "in the original's order (drop aligned=True / --aligned to match them through the recoding)."
                )

    def score(self, release: pd.DataFrame, *, levels: Mapping[str, int] | None = None, aligned: bool = False) -> WorkloadResult:
        """:math:`U_{san}` and :math:`A_{acc}` of one release, with the prepared :math:`U_{max}`, :math:`U_{base}`.

        Parameters
        ----------
        release : pandas.DataFrame
            The released table.
        levels : mapping of str to int, optional
            The full-domain level of each QI (a report's ``transformation``);
            inferred from the hierarchies when not given.
        aligned : bool, default False
            The release's row ``i`` is the original's record ``i`` (a release
            written without shuffling, or a local recoding's rows in input
            order); no recoding is inferred.

        Raises
        ------
        VerificationError
            A shuffled release cannot be matched to the original.
        ParameterError
            The release lacks a feature, or an aligned release has another row count.
        """
        from veil.risk import disclosure

        if not isinstance(release, pd.DataFrame):
            raise ParameterError(f"The release must be a pandas DataFrame. Got {type(release).__name__} instead.")
        if self.target not in release.columns:
            raise ParameterError(f"The release does not publish the target {self.target!r}: workload utility "
                                 "predicts a published attribute (declare it sensitive or insensitive).")
        absent = [c for c in self.features if c not in release.columns]
        if absent:
            raise ParameterError(f"The release lacks the column(s) {', '.join(map(repr, absent))} the workload reads.")
        if aligned:
            if len(release) != self.original.n_records:
                raise ParameterError(
                    f"An aligned release has one row per original record ({self.original.n_records}). Got {len(release)}."
                )
            rows = release.reset_index(drop=True)
            self._check_row_order(rows)
        else:
            rows = align_release(self.original, release, quasi_identifiers=self.quasi_identifiers, levels=levels)
        san = _codes(rows, self.features)
        u_san = {n: _accuracy(n, san, self.y, self.train, self.test, self.random_state) for n in self.classifiers}
        # suppressed records ('*' in every QI) belong to no class, so A_acc leaves them out; their
        # target (withheld as '*' by the default release) only enters the baseline, the original's
        published = rows[[*self.quasi_identifiers, self.target]].astype(str)
        published[self.target] = np.where(published[self.target] == "*", self.y, published[self.target])
        released = Dataset.from_pandas(published, quasi_identifiers=self.quasi_identifiers, sensitive=[self.target])
        a_acc = float(disclosure(released, self.target).a_acc)
        scores = {n: ClassifierScores(self.u_base[n], u_san[n], self.u_max[n]) for n in self.classifiers}
        protocol = {
            "split": "stratified" if len(set(self.y)) > 1 else "random",
            "random_state": self.random_state,
            "release_rows": "given in row order" if aligned else "matched to the original through the recoding",
        }
        return WorkloadResult(
            self.target, scores, a_acc if math.isfinite(a_acc) else 0.0, self.a_base,
            len(self.train), len(self.test), self.features, protocol,
        )


def workload(
    original: Dataset, release: pd.DataFrame, *, target: str, classifiers: Sequence[str] = CLASSIFIERS,
    quasi_identifiers: Sequence[str] | None = None, levels: Mapping[str, int] | None = None,
    aligned: bool = False, test_size: float = 1 / 3, random_state: int = 0, features: Sequence[str] | None = None,
) -> WorkloadResult:
    """Workload utility of a release: :math:`U_{base}`, :math:`U_{san}`, :math:`U_{max}` and :math:`A_{acc}`.

    Each classifier is trained on the same records of the original (:math:`U_{max}`), of the original
    without its QIs (:math:`U_{base}`) and of the release (:math:`U_{san}`), and scored on the same
    held-out records.  See the module docstring for the protocol and how to read the figures.

    Parameters
    ----------
    original : Dataset
        The anonymized table's original, with its quasi-identifiers and hierarchies.
    release : pandas.DataFrame
        The release (shuffled or not; suppressed records kept or dropped).
    target : str
        The attribute to predict (not a quasi-identifier).
    classifiers : sequence of str
        Names from :data:`CLASSIFIERS` (the module docstring describes each).
    quasi_identifiers : sequence of str, optional
    levels : mapping of str to int, optional
        The release's level per QI (its report's ``transformation``).
    aligned : bool, default False
        The release's rows are in the original's order (see :meth:`Workload.score`).
    test_size, random_state : as for :class:`Workload`
    features : sequence of str, optional
        The columns learnt from; default: those the release publishes (:func:`release_features`).

    Returns
    -------
    WorkloadResult

    Notes
    -----
    .. math::

        A_{acc} = \\frac{1}{|T|}\\sum_{\\langle t\\rangle} |\\langle t\\rangle|\\,
        p(\\langle t\\rangle, s_{max}(\\langle t\\rangle)) - p(T, s_{max}(T))

    References
    ----------
    J. Brickell and V. Shmatikov, "The cost of privacy: destruction of data-mining utility in
    anonymized data publishing", KDD 2008, sec. 3 (:math:`A_{acc}`) and sec. 4 (workload utility).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil import Dataset
    >>> frame = pd.DataFrame({"zip": ["1", "2"] * 15, "y": ["a", "b"] * 15})
    >>> data = Dataset.from_pandas(frame, quasi_identifiers=["zip"])
    >>> result = workload(data, frame, target="y", aligned=True, classifiers=["decision-tree"])
    >>> result.to_dict()["classifiers"]["decision-tree"]["u_max"]
    1.0
    """
    prepared = Workload(original, target=target, classifiers=classifiers, quasi_identifiers=quasi_identifiers,
                        features=release_features(original, release, target) if features is None else features,
                        test_size=test_size, random_state=random_state)
    return prepared.score(release, levels=levels, aligned=aligned)


def workload_summary(original: Dataset, release: pd.DataFrame, *, target: str, **options: Any) -> dict[str, Any]:
    """:func:`workload` as the JSON dict of the report (``{"target", "classifiers", "a_acc", ...}``).

    For the anonymize pipeline: ``workload_summary(dataset, result.data,
    target=label, levels=result.transformation)`` for a full-domain result,
    or ``aligned=True`` with the release rows before the shuffle.
    """
    return workload(original, release, target=target, **options).to_dict()
