"""Hypothesis strategies for veil's inputs: tables, hierarchies, datasets, privacy models.

Every strategy draws *valid* inputs (hierarchies that pass
:class:`~veil.hierarchy.Hierarchy`'s checks and cover the table, model
parameters that :func:`veil.anonymize` accepts for the table), small enough
that a lattice search over them takes milliseconds.  They shrink towards
fewer rows, fewer values, flatter hierarchies and weaker models, so a failing
example comes out minimal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from veil._validation import check_choice, check_int
from veil.dataset import Dataset
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy
from veil.models import (
    AlphaKAnonymity,
    AverageRisk,
    BasicBetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
    LKCPrivacy,
    MaxProsecutorRisk,
    OrderedDistanceTCloseness,
    PrivacyModel,
    RecordsAtRiskShare,
    RecursiveCLDiversity,
)

__all__ = [
    "MODEL_FAMILIES",
    "SENSITIVE_FAMILIES",
    "hierarchies",
    "tables",
    "datasets",
    "models",
    "anonymization_inputs",
]

#: Model families :func:`models` can draw, by the type names of the release
#: configuration (``models[].type``).  Models that need data the strategies do
#: not produce (a population for k-map and δ-presence, a sensitive hierarchy for
#: hierarchical t-closeness, marginals for k-link) are not drawn.
MODEL_FAMILIES: tuple[str, ...] = (
    "k-anonymity",
    "distinct-l-diversity",
    "entropy-l-diversity",
    "recursive-cl-diversity",
    "equal-t-closeness",
    "ordered-t-closeness",
    "delta-disclosure",
    "alpha-k-anonymity",
    "basic-beta-likeness",
    "enhanced-beta-likeness",
    "lkc-privacy",
    "max-prosecutor-risk",
    "average-risk",
    "records-at-risk",
)

#: The families of :data:`MODEL_FAMILIES` that read a sensitive attribute.
SENSITIVE_FAMILIES: frozenset[str] = frozenset(
    {
        "distinct-l-diversity",
        "entropy-l-diversity",
        "recursive-cl-diversity",
        "equal-t-closeness",
        "ordered-t-closeness",
        "delta-disclosure",
        "alpha-k-anonymity",
        "basic-beta-likeness",
        "enhanced-beta-likeness",
    }
)

_OWNER_TABLES = "veil.testing.tables"
_OWNER_MODELS = "veil.testing.models"


def _range(name: str, value: int | tuple[int, int], owner: str, *, low: int) -> tuple[int, int]:
    """An int or an inclusive ``(min, max)`` pair, checked."""
    if isinstance(value, tuple):
        if len(value) != 2:
            raise ParameterError(
                f"The {name!r} parameter of {owner} must be an int or a (min, max) pair. Got {value!r} instead."
            )
        lo = check_int(name, value[0], owner, low=low)
        hi = check_int(name, value[1], owner, low=lo)
        return lo, hi
    v = check_int(name, value, owner, low=low)
    return v, v


# ---------------------------------------------------------------- hierarchies
@st.composite
def hierarchies(
    draw: st.DrawFn,
    values: Sequence[str],
    *,
    max_height: int = 3,
    name: str = "",
) -> Hierarchy:
    """A random valid hierarchy over ``values``: monotone levels, a single top ``*``.

    Each level above the leaves maps every group of the level below to one
    group of its own (any function of the groups below, so the hierarchy is
    monotone by construction); the top level is ``*``.  Intermediate labels
    are ``<name>L<level>_<group>``, never equal to a leaf or to ``*``.

    Parameters
    ----------
    values : sequence of str
        The leaves (at least one, distinct, none equal to ``*``).
    max_height : int in [1, inf), default 3
        The largest height (levels are ``0..height``; height 1 is value, ``*``).
    name : str
        The attribute's name (the hierarchy's ``name`` and the label prefix).

    Returns
    -------
    SearchStrategy of Hierarchy
    """
    leaves = [str(v) for v in values]
    height = draw(st.integers(min_value=1, max_value=max_height))
    groups = list(range(len(leaves)))
    levels = [leaves]
    for level in range(1, height):
        n_groups = max(groups) + 1
        parent = draw(st.lists(st.integers(0, n_groups - 1), min_size=n_groups, max_size=n_groups))
        # renumber the parents densely in order of first appearance
        dense = {p: i for i, p in enumerate(dict.fromkeys(parent))}
        groups = [dense[parent[g]] for g in groups]
        levels.append([f"{name}L{level}_{g}" for g in groups])
    rows = [[lvl[i] for lvl in levels] + ["*"] for i in range(len(leaves))]
    return Hierarchy.from_rows(rows, name=name)


# ---------------------------------------------------------------- tables
def _check_table_options(
    min_rows: int, max_rows: int, n_qi: int | tuple[int, int], max_values: int, max_height: int,
    n_sensitive: int | tuple[int, int], sensitive_values: int,
) -> tuple[tuple[int, int], tuple[int, int]]:
    check_int("min_rows", min_rows, _OWNER_TABLES, low=1)
    check_int("max_rows", max_rows, _OWNER_TABLES, low=min_rows)
    qi_range = _range("n_qi", n_qi, _OWNER_TABLES, low=1)
    check_int("max_values", max_values, _OWNER_TABLES, low=1)
    check_int("max_height", max_height, _OWNER_TABLES, low=1)
    sens_range = _range("n_sensitive", n_sensitive, _OWNER_TABLES, low=0)
    check_int("sensitive_values", sensitive_values, _OWNER_TABLES, low=1)
    return qi_range, sens_range


def tables(
    *,
    min_rows: int = 1,
    max_rows: int = 40,
    n_qi: int | tuple[int, int] = (1, 3),
    max_values: int = 6,
    max_height: int = 3,
    n_sensitive: int | tuple[int, int] = 1,
    sensitive_values: int = 3,
    missing: bool = False,
) -> st.SearchStrategy[tuple[pd.DataFrame, dict[str, Hierarchy]]]:
    """A small random table and a valid hierarchy for each of its quasi-identifiers.

    The quasi-identifiers are the columns ``q0, q1, ...`` (the keys of the
    hierarchies, in column order); the sensitive attributes are ``s0, s1, ...``
    (every other column).  QI values are ``v0, v1, ...``; sensitive values are
    ``0, 1, ...`` (text, so the column can be declared categorical or numeric).
    Each hierarchy covers every value of its column (and possibly values that
    do not occur), see :func:`hierarchies`.

    Parameters
    ----------
    min_rows, max_rows : int, 1 <= min_rows <= max_rows
        The number of records.
    n_qi : int in [1, inf) or (min, max)
        The number of quasi-identifiers.
    max_values : int in [1, inf)
        The most distinct leaf values per quasi-identifier.
    max_height : int in [1, inf)
        The largest hierarchy height.
    n_sensitive : int in [0, inf) or (min, max)
        The number of sensitive columns.
    sensitive_values : int in [1, inf)
        The size of each sensitive attribute's value domain.
    missing : bool, default False
        Let cells be missing (``None``), which veil keeps as a value of its own.

    Returns
    -------
    SearchStrategy of (pandas.DataFrame, dict of str to Hierarchy)

    Raises
    ------
    ParameterError
        An option outside its range (raised when the strategy is built).

    Examples
    --------
    >>> from hypothesis import given
    >>> from veil.testing import tables
    >>> @given(tables(max_rows=10))
    ... def test_columns(table):
    ...     frame, hierarchies = table
    ...     assert list(hierarchies) == [c for c in frame.columns if c.startswith("q")]
    >>> test_columns()
    """
    qi_range, sens_range = _check_table_options(
        min_rows, max_rows, n_qi, max_values, max_height, n_sensitive, sensitive_values
    )
    if not isinstance(missing, bool):
        raise ParameterError(f"The 'missing' parameter of {_OWNER_TABLES} must be a bool. Got {missing!r} instead.")
    return _tables(min_rows, max_rows, qi_range, max_values, max_height, sens_range, sensitive_values, missing)


@st.composite
def _tables(
    draw: st.DrawFn,
    min_rows: int,
    max_rows: int,
    qi_range: tuple[int, int],
    max_values: int,
    max_height: int,
    sens_range: tuple[int, int],
    sensitive_values: int,
    missing: bool,
) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    n = draw(st.integers(min_value=min_rows, max_value=max_rows))
    n_qi = draw(st.integers(*qi_range))
    columns: dict[str, list[Any]] = {}
    bound: dict[str, Hierarchy] = {}

    def cells(values: list[str]) -> list[Any]:
        element = st.sampled_from(values)
        if missing:
            element = st.one_of(element, st.none())
        return draw(st.lists(element, min_size=n, max_size=n))

    for q in range(n_qi):
        name = f"q{q}"
        values = [f"v{i}" for i in range(draw(st.integers(1, max_values)))]
        bound[name] = draw(hierarchies(values, max_height=max_height, name=name))
        columns[name] = cells(values)
    domain = [str(i) for i in range(sensitive_values)]
    for s in range(draw(st.integers(*sens_range))):
        columns[f"s{s}"] = cells(domain)
    return pd.DataFrame(columns, dtype=object), bound


def datasets(
    *,
    sensitive_kind: str = "categorical",
    **options: Any,
) -> st.SearchStrategy[Dataset]:
    """A :class:`~veil.dataset.Dataset` drawn by :func:`tables`, roles and hierarchies attached.

    Parameters
    ----------
    sensitive_kind : {"categorical", "numeric"}, default "categorical"
        The kind declared for the sensitive columns (``numeric`` orders their
        values, for ordered t-closeness).
    **options
        Passed to :func:`tables`.

    Returns
    -------
    SearchStrategy of Dataset
    """
    check_choice("sensitive_kind", sensitive_kind, "veil.testing.datasets", ("categorical", "numeric"))
    return tables(**options).map(lambda table: _to_dataset(table, sensitive_kind))


def _to_dataset(table: tuple[pd.DataFrame, Mapping[str, Hierarchy]], sensitive_kind: str) -> Dataset:
    frame, bound = table
    sensitive = [c for c in frame.columns if c not in bound]
    return Dataset.from_pandas(
        frame, quasi_identifiers=list(bound), sensitive=sensitive,
        kinds={s: sensitive_kind for s in sensitive}, hierarchies=bound,
    )


# ---------------------------------------------------------------- models
def _facts(table: Any, sensitive: Sequence[str] | None) -> tuple[int | None, int | None, dict[str, tuple[int, bool]]]:
    """``(n_records, n_qi, {sensitive: (distinct values, ordered)})`` of a table-like input."""
    if table is None:
        names = list(sensitive or ())
        return None, None, {s: (1, False) for s in names}
    if isinstance(table, Dataset):
        names = list(table.sensitive if sensitive is None else sensitive)
        facts = {}
        for s in names:
            encoded = table.encode(s)
            distinct = int((np.bincount(encoded.codes, minlength=encoded.n_values) > 0).sum())
            facts[s] = (distinct, table.schema.kind(s).ordered)
        return table.n_records, len(table.quasi_identifiers), facts
    bound: Mapping[str, Any] | None = None
    if isinstance(table, tuple) and len(table) == 2 and isinstance(table[0], pd.DataFrame):
        table, bound = table
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            f"The 'table' of {_OWNER_MODELS} must be a Dataset, a DataFrame or a (DataFrame, hierarchies) "
            f"pair as drawn by tables(). Got {type(table).__name__} instead."
        )
    if sensitive is None:
        sensitive = [c for c in table.columns if bound is not None and c not in bound]
    missing = [s for s in sensitive if s not in table.columns]
    if missing:
        raise ParameterError(f"{_OWNER_MODELS}: the sensitive column(s) {missing!r} are not in the table.")
    facts = {s: (int(table[s].nunique(dropna=False)), False) for s in sensitive}
    n_qi = len(bound) if bound is not None else None
    return len(table), n_qi, facts


def models(
    table: Any = None,
    *,
    sensitive: Sequence[str] | None = None,
    families: Sequence[str] | None = None,
    max_models: int = 3,
    max_k: int = 5,
    max_l: int = 3,
) -> st.SearchStrategy[list[PrivacyModel]]:
    """A non-empty list of privacy models whose parameters are valid for ``table``.

    *Valid* means :func:`veil.anonymize` accepts them for the table: ``k`` (and
    ``K``, and ``1/threshold`` of the maximum prosecutor risk) is at most the
    number of records, ``l`` at most the distinct values of the sensitive
    attribute, ``L`` at most the number of quasi-identifiers.  It does not
    mean *feasible*: a model may still be unreachable within a suppression
    limit (:class:`~veil.errors.InfeasibleError`).  Every family appears at
    most once per sensitive attribute; parameters shrink towards weak models.

    Parameters
    ----------
    table : Dataset, DataFrame or (DataFrame, hierarchies), optional
        The table the models are for.  Without it, the models are valid for
        any table of at least ``max_k`` records whose sensitive attributes
        (``sensitive``) have at least ``max_l`` distinct values.
    sensitive : sequence of str, optional
        The sensitive attributes the models may read.  Default: the
        Dataset's sensitive attributes, or the columns that have no hierarchy
        in a ``(frame, hierarchies)`` pair, or none.
    families : sequence of str, optional
        The families to draw from, names of :data:`MODEL_FAMILIES` (default
        all; the sensitive ones only when there is a sensitive attribute, and
        ordered t-closeness only for ordered kinds unless asked for).
    max_models : int in [1, inf), default 3
        The most models in a list.
    max_k : int in [1, inf), default 5
        The largest ``k`` / ``K`` drawn.
    max_l : int in [1, inf), default 3
        The largest ``l`` drawn.

    Returns
    -------
    SearchStrategy of list of PrivacyModel

    Raises
    ------
    ParameterError
        An unknown family, an option outside its range, or only sensitive
        families with no sensitive attribute (raised when the strategy is built).
    TypeError
        ``table`` of another type.
    """
    check_int("max_models", max_models, _OWNER_MODELS, low=1)
    check_int("max_k", max_k, _OWNER_MODELS, low=1)
    check_int("max_l", max_l, _OWNER_MODELS, low=1)
    n_records, n_qi, facts = _facts(table, sensitive)
    if table is None:
        facts = {s: (max_l, False) for s in facts}
    if families is None:
        chosen = [
            f for f in MODEL_FAMILIES
            if f != "ordered-t-closeness" or any(ordered for _, ordered in facts.values())
        ]
    else:
        chosen = list(dict.fromkeys(families))
        for f in chosen:
            check_choice("families", f, _OWNER_MODELS, MODEL_FAMILIES)
    if not facts:
        chosen = [f for f in chosen if f not in SENSITIVE_FAMILIES]
    if n_qi == 0:  # LKC-privacy needs 1 <= L <= the number of quasi-identifiers
        chosen = [f for f in chosen if f != "lkc-privacy"]
    if not chosen:
        raise ParameterError(
            f"{_OWNER_MODELS}: no family can be drawn: the sensitive families need a sensitive attribute "
            "(give 'sensitive', or a table that has one)."
        )
    k_cap = max(1, min(max_k, n_records if n_records is not None else max_k))
    qi_cap = n_qi if n_qi is not None else 1
    return _models(tuple(chosen), facts, k_cap, qi_cap, max_l, max_models)


@st.composite
def _models(
    draw: st.DrawFn,
    families: tuple[str, ...],
    facts: dict[str, tuple[int, bool]],
    k_cap: int,
    qi_cap: int,
    max_l: int,
    max_models: int,
) -> list[PrivacyModel]:
    slots = [(f, None) for f in families if f not in SENSITIVE_FAMILIES]
    slots += [(f, s) for f in families if f in SENSITIVE_FAMILIES for s in facts]
    picked = draw(st.lists(st.sampled_from(slots), min_size=1, max_size=max_models, unique=True))
    out: list[PrivacyModel] = []
    for family, s in picked:
        out.append(_draw_model(draw, family, s, facts, k_cap, qi_cap, max_l))
    return out


def _draw_model(
    draw: st.DrawFn, family: str, s: str | None, facts: dict[str, tuple[int, bool]],
    k_cap: int, qi_cap: int, max_l: int,
) -> PrivacyModel:
    k = st.integers(1, k_cap)
    if family == "k-anonymity":
        return KAnonymity(k=draw(k))
    if family == "max-prosecutor-risk":
        return MaxProsecutorRisk(threshold=1.0 / draw(k))
    if family == "average-risk":
        return AverageRisk(threshold=draw(st.sampled_from([1.0, 0.5, 0.3, 0.1])))
    if family == "records-at-risk":
        return RecordsAtRiskShare(
            threshold=draw(st.sampled_from([1.0, 0.5, 0.2])), share=draw(st.sampled_from([1.0, 0.5, 0.1, 0.0]))
        )
    if family == "lkc-privacy":
        return LKCPrivacy(L=draw(st.integers(1, qi_cap)), K=draw(k))
    assert s is not None
    distinct, _ = facts[s]
    l_cap = max(1, min(max_l, distinct))
    if family == "distinct-l-diversity":
        return DistinctLDiversity(sensitive=s, l=draw(st.integers(1, l_cap)))
    if family == "entropy-l-diversity":
        return EntropyLDiversity(sensitive=s, l=draw(st.sampled_from([x for x in (1.0, 1.5, 2.0, 3.0) if x <= l_cap])))
    if family == "recursive-cl-diversity":
        return RecursiveCLDiversity(
            sensitive=s, l=draw(st.integers(1, l_cap)), c=draw(st.sampled_from([4.0, 2.0, 1.0, 0.5])),
            strict=draw(st.booleans()),
        )
    if family == "equal-t-closeness":
        return EqualDistanceTCloseness(sensitive=s, t=draw(st.sampled_from([1.0, 0.6, 0.3, 0.1])))
    if family == "ordered-t-closeness":
        return OrderedDistanceTCloseness(sensitive=s, t=draw(st.sampled_from([1.0, 0.6, 0.3, 0.1])))
    if family == "delta-disclosure":
        return DeltaDisclosure(sensitive=s, delta=draw(st.sampled_from([5.0, 2.0, 1.0, 0.5])))
    if family == "alpha-k-anonymity":
        return AlphaKAnonymity(sensitive=s, alpha=draw(st.sampled_from([1.0, 0.8, 0.5])), k=draw(k))
    if family == "basic-beta-likeness":
        return BasicBetaLikeness(sensitive=s, beta=draw(st.sampled_from([5.0, 2.0, 1.0, 0.5])))
    if family == "enhanced-beta-likeness":
        return EnhancedBetaLikeness(sensitive=s, beta=draw(st.sampled_from([5.0, 2.0, 1.0, 0.5])))
    raise AssertionError(f"unhandled family {family!r}")  # pragma: no cover - MODEL_FAMILIES is checked


def anonymization_inputs(
    *,
    sensitive_kind: str = "categorical",
    families: Sequence[str] | None = None,
    max_models: int = 3,
    max_k: int = 5,
    max_l: int = 3,
    **options: Any,
) -> st.SearchStrategy[tuple[Dataset, list[PrivacyModel]]]:
    """A dataset (:func:`datasets`) and models valid for it (:func:`models`), drawn together.

    Parameters
    ----------
    sensitive_kind, **options
        As for :func:`datasets` and :func:`tables`.
    families, max_models, max_k, max_l
        As for :func:`models`.  With ``n_sensitive=0`` only the families that
        need no sensitive attribute are drawn.

    Returns
    -------
    SearchStrategy of (Dataset, list of PrivacyModel)

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import veil
    >>> from veil.testing import anonymization_inputs, assert_satisfies
    >>> @settings(max_examples=5, deadline=None)
    ... @given(anonymization_inputs(max_rows=12))
    ... def test_release(inputs):
    ...     dataset, models = inputs
    ...     result = veil.anonymize(dataset, models, suppression_limit=1.0)
    ...     assert_satisfies(result, dataset, models)
    >>> test_release()
    """
    options.setdefault("n_sensitive", 1)
    base = datasets(sensitive_kind=sensitive_kind, **options)
    n_sens = _range("n_sensitive", options["n_sensitive"], _OWNER_TABLES, low=0)
    if families is not None:
        for f in families:
            check_choice("families", f, _OWNER_MODELS, MODEL_FAMILIES)
        if n_sens[0] == 0 and all(f in SENSITIVE_FAMILIES for f in families):
            raise ParameterError(
                f"{_OWNER_MODELS}: only sensitive families are asked for, but a table may have no "
                f"sensitive column (n_sensitive={options['n_sensitive']!r}); ask for at least one."
            )

    def pair(dataset: Dataset) -> st.SearchStrategy[tuple[Dataset, list[PrivacyModel]]]:
        usable = families
        if usable is not None and not dataset.sensitive:
            usable = [f for f in usable if f not in SENSITIVE_FAMILIES]
        return st.tuples(
            st.just(dataset),
            models(dataset, families=usable, max_models=max_models, max_k=max_k, max_l=max_l),
        )

    return base.flatmap(pair)
