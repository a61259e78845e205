"""Hypothesis strategies for privacy models valid for a table, and (dataset, models) pairs.

Model parameters are ones :func:`veil.anonymize` accepts for the table; they
shrink towards fewer and weaker models.
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
from veil.models import registry
from veil.testing._tables import _OWNER_TABLES, _range, datasets

__all__ = ["MODEL_FAMILIES", "SENSITIVE_FAMILIES", "models", "anonymization_inputs"]

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
    f for f in MODEL_FAMILIES if registry.model_class(f).needs_sensitive
)

_OWNER_MODELS = "veil.testing.models"

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


def _families(families: Sequence[str] | None, facts: dict[str, tuple[int, bool]], n_qi: int | None) -> list[str]:
    """The families :func:`models` draws from: those asked for (default all, ordered t-closeness only
    for an ordered sensitive attribute), less those the table cannot serve; at least one."""
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
    return chosen


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
    max_k, max_l : int in [1, inf), default 5 and 3
        The largest ``k`` / ``K`` and the largest ``l`` drawn.

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
    for name, value in (("max_models", max_models), ("max_k", max_k), ("max_l", max_l)):
        check_int(name, value, _OWNER_MODELS, low=1)
    n_records, n_qi, facts = _facts(table, sensitive)
    if table is None:
        facts = {s: (max_l, False) for s in facts}
    chosen = _families(families, facts, n_qi)
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
    ...     result = veil.anonymize(dataset, models, suppression_limit=1.0, suppressed="drop")
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
