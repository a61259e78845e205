"""``check``: the achieved level of every privacy model on a table, and requirements on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy
from veil.models._report import CheckReport
from veil.models._requirements import Requirement, parse_requirements
from veil.models._shown import check_missing_sensitive, evaluate_shown, shown

__all__ = ["check"]


def check(
    dataset: Dataset | pd.DataFrame | ClassTable,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    require: str | Sequence[Requirement] | None = None,
    recursive_l: int = 2,
    strict: bool = True,
    kinds: Mapping[str, str] | None = None,
    missing: str = "value",
    missing_sensitive: str = "value",
) -> CheckReport:
    """Report which privacy models a table satisfies, and at what level.

    Works on any table: an original, one anonymized by veil, or one anonymized
    by another tool, judged as it shows itself (:mod:`veil.models._shown`:
    records with ``*`` in every QI are a class, a sensitive ``*`` no value).

    Parameters
    ----------
    dataset : Dataset, pandas.DataFrame or ClassTable
    quasi_identifiers, sensitive : sequence of str, optional
        Default: the dataset's schema (the QIs required for a DataFrame).
    hierarchies : mapping of str to Hierarchy, optional
        On a sensitive attribute: adds hierarchical t-closeness.
    require : str or sequence of Requirement, optional
        E.g. ``"k>=5, l>=2"``; judged in ``report.requirements``, ``report.passed``.
    recursive_l : int, default 2
        The ``l`` of recursive (c,l)-diversity's reported smallest ``c``.
    strict : bool, default True
        Recursive (c,l) with ``<`` (the paper) or ``<=`` (the seed).
    kinds : mapping, optional
        Attribute kinds of a DataFrame (``"numeric"``: ordered t-closeness).
    missing, missing_sensitive : {"value", "error"}, {"value", "ignore"}
        A missing QI value (DataFrame) is a value or an error; a sensitive one a value or none.

    Returns
    -------
    CheckReport

    Raises
    ------
    SchemaError, ColumnNotFoundError, ParameterError
        A column both QI and sensitive, unknown columns, missing values with
        ``missing="error"``, malformed or unknown requirements, a requirement
        needing a sensitive attribute when there is none.

    Examples
    --------
    >>> from veil.datasets import load_patients_3anonymous
    >>> report = check(load_patients_3anonymous(), require="k>=3, l>=2")
    >>> report.k, report.sensitive["Disease"].distinct_l, report.passed
    (3, 1, False)
    """
    requirements = parse_requirements(require) if isinstance(require, str) else _requirement_list(require)
    classes = _class_table(dataset, quasi_identifiers, sensitive, hierarchies, kinds, missing)
    view = shown(classes, missing=check_missing_sensitive(missing_sensitive))
    report = evaluate_shown(classes, missing=missing_sensitive, sensitive=sensitive, recursive_l=recursive_l, strict=strict)
    return report if require is None else replace(report, requirements=tuple(r.judge(report, view) for r in requirements))


def _class_table(
    dataset: Dataset | pd.DataFrame | ClassTable,
    quasi_identifiers: Sequence[str] | None,
    sensitive: Sequence[str] | None,
    hierarchies: Mapping[str, Hierarchy] | None,
    kinds: Mapping[str, str] | None,
    missing: str,
) -> ClassTable:
    """The class table :func:`check` judges, from whatever it was given."""
    if isinstance(dataset, ClassTable):
        if quasi_identifiers is not None and tuple(quasi_identifiers) != dataset.quasi_identifiers:
            raise ParameterError("check: quasi_identifiers differ from the class table's.")
        return dataset
    if isinstance(dataset, pd.DataFrame):
        if quasi_identifiers is None:
            raise ParameterError("check: name the quasi-identifiers of a DataFrame (quasi_identifiers=[...]).")
        dataset = Dataset.from_pandas(
            dataset, quasi_identifiers=quasi_identifiers, sensitive=sensitive or (), kinds=kinds,
            missing=missing,  # type: ignore[arg-type]
        )
    elif not isinstance(dataset, Dataset):
        raise ParameterError(
            f"check expects a Dataset, a pandas DataFrame or a ClassTable. Got {type(dataset).__name__} instead."
        )
    return ClassTable.from_dataset(  # every record in a class: an all-'*' group is one
        dataset, quasi_identifiers=quasi_identifiers, sensitive=sensitive, hierarchies=hierarchies,
        suppressed_rows=np.zeros(dataset.n_records, dtype=np.bool_),
    )


def _requirement_list(require: object) -> list[Requirement]:
    """``require`` given as requirements (not a text): a list of them, or a veil error naming the parameter."""
    if require is None:
        return []
    if not isinstance(require, (list, tuple)) or not all(isinstance(r, Requirement) for r in require):
        raise ParameterError(f"The 'require' parameter of check must be a text such as 'k>=5, l>=2' or a list of "
                             f"requirements. Got {type(require).__name__} instead.")
    return list(require)
