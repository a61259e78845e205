"""``veil.anonymize`` refuses arguments of the wrong type with its own error, naming the parameter
(not a TypeError or AttributeError from deep inside)."""

from __future__ import annotations

import pytest

import veil
from veil.datasets import load_adult
from veil.errors import ParameterError
from veil.models import KAnonymity


@pytest.fixture(scope="module")
def adult():
    return load_adult()


@pytest.mark.parametrize("arguments, message", [
    (dict(models=None), r"'models' parameter must be a list of privacy models .* Got NoneType"),
    (dict(models=KAnonymity(k=5)), r"wrap the single model in a list: \[KAnonymity\(\.\.\.\)\]"),
    (dict(models=["k>=5"]), r"'models' parameter must hold privacy models .* it holds a str"),
    (dict(models="k>=5"), r"'models' parameter must be a list of privacy models .* Got str"),
    (dict(models=[KAnonymity(k=5)], suppression_limit="0.05"), r"'suppression_limit' parameter of anonymize"),
    (dict(models=[KAnonymity(k=5)], suppression_limit=1.5), r"'suppression_limit' parameter of anonymize"),
    (dict(models=[KAnonymity(k=5)], seed=-1), r"'seed' parameter of anonymize must be an int in \[0, inf\)"),
    (dict(models=[KAnonymity(k=5)], seed=1.5), r"'seed' parameter of anonymize"),
])
def test_wrong_arguments_are_refused_by_name(adult, arguments, message):
    with pytest.raises(ParameterError, match=message):
        veil.anonymize(adult, **arguments)


def test_a_dataframe_instead_of_a_dataset_is_refused(adult):
    with pytest.raises(ParameterError, match=r"'dataset' parameter of anonymize must be a veil Dataset"):
        veil.anonymize(adult.frame, [KAnonymity(k=5)])
