"""Test helpers shipped with veil: hypothesis strategies and assertions for releases.

Use them to test your own release pipeline (or veil itself) the way veil's
property tests do: draw small random tables with valid hierarchies and valid
privacy models, anonymize, and assert that the release satisfies what was
asked and loses no record.

Strategies (hypothesis)
    :func:`tables`                ``(DataFrame, {qi: Hierarchy})``
    :func:`hierarchies`           one random valid :class:`~veil.hierarchy.Hierarchy`
    :func:`datasets`              a :class:`~veil.dataset.Dataset` with roles and hierarchies
    :func:`models`                a list of privacy models valid for a table
    :func:`anonymization_inputs`  ``(Dataset, models)`` drawn together

Assertions (raise :class:`AssertionError`)
    :func:`assert_satisfies`      the release meets every model, re-checked from its rows
    :func:`assert_no_rows_lost`   input = output + dropped, non-QI columns unchanged
    :func:`assert_k_anonymous`    every class of a DataFrame has at least k records

See ``docs/testing.md``.

Examples
--------
>>> from hypothesis import given, settings
>>> import veil
>>> from veil.testing import anonymization_inputs, assert_no_rows_lost, assert_satisfies
>>> @settings(max_examples=5, deadline=None)
... @given(anonymization_inputs(max_rows=12))
... def test_release(inputs):
...     dataset, models = inputs
...     result = veil.anonymize(dataset, models, suppression_limit=1.0, suppressed="drop", seed=0)
...     assert_satisfies(result, dataset, models)
...     assert_no_rows_lost(result, dataset)
>>> test_release()
"""

from veil._lazy import require

require("hypothesis", feature="veil.testing (hypothesis strategies)")

from veil.testing._assertions import assert_k_anonymous, assert_no_rows_lost, assert_satisfies
from veil.testing._models import MODEL_FAMILIES, SENSITIVE_FAMILIES, anonymization_inputs, models
from veil.testing._tables import datasets, hierarchies, tables

__all__ = [
    "tables",
    "hierarchies",
    "datasets",
    "models",
    "anonymization_inputs",
    "MODEL_FAMILIES",
    "SENSITIVE_FAMILIES",
    "assert_satisfies",
    "assert_no_rows_lost",
    "assert_k_anonymous",
]
