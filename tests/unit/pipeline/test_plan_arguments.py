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


def test_a_dataframe_without_its_roles_is_refused(adult):
    # a DataFrame is anonymized in one call given its roles (quasi_identifiers=...); without them, refused
    with pytest.raises(ParameterError, match=r"'quasi_identifiers' parameter of anonymize must name"):
        veil.anonymize(adult.frame, [KAnonymity(k=5)])


def test_neither_a_dataframe_nor_a_dataset_is_refused(adult):
    with pytest.raises(ParameterError, match=r"'dataset' parameter of anonymize must be a pandas DataFrame or a "
                                             r"veil Dataset .* Got dict instead"):
        veil.anonymize(adult.frame.to_dict(), [KAnonymity(k=5)])


def test_check_refuses_a_require_that_is_neither_text_nor_requirements(adult):
    from veil.models import check

    with pytest.raises(ParameterError, match=r"'require' parameter of check must be a text .* Got int"):
        check(adult, require=123)


def test_assess_takes_one_sensitive_attribute_by_name(adult):
    from veil.risk import assess

    one = assess(adult, sensitive="salary-class", qi_subsets_max_size=0)
    listed = assess(adult, sensitive=["salary-class"], qi_subsets_max_size=0)
    assert list(one.sensitive) == ["salary-class"] and one.to_dict()["sensitive"] == listed.to_dict()["sensitive"]
