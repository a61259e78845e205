from __future__ import annotations

import json

import pandas as pd
import pytest

from veil.errors import ColumnNotFoundError, ConfigError, ParameterError, SchemaError
from veil.sanitize import (Drop, Mask, Plan, PseudonymizeHMAC, PseudonymizeRandom, ShiftDates, deidentify)

KEY = b"0123456789abcdef-more"


@pytest.fixture
def table():
    return pd.DataFrame({
        "pid": ["p1", "p1", "p2"],
        "email": ["a@x.org", "a@x.org", "b@y.org"],
        "zip": ["02139", "02139", "10001"],
        "admit": ["2020-01-01", "2020-01-05", "2021-06-01"],
        "dx": ["flu", "flu", "cold"],
    })


def test_from_dict_builds_specs():
    plan = Plan.from_dict({"columns": {
        "email": {"action": "drop"},
        "zip": {"action": "mask", "keep": 3},
        "pid": {"action": "pseudonymize", "method": "random", "prefix": "P"},
        "mrn": {"action": "pseudonymize"},
        "admit": {"action": "shift_dates", "by": "pid", "max_days": 30},
        "dx": "keep",
    }})
    assert plan.columns["email"] == Drop() and plan.columns["zip"] == Mask(keep=3)
    assert plan.columns["pid"] == PseudonymizeRandom(prefix="P")
    assert plan.columns["mrn"] == PseudonymizeHMAC()
    assert plan.columns["admit"] == ShiftDates(by="pid", max_days=30)
    assert plan.needs_key
    assert Plan.from_dict(json.loads(json.dumps(plan.to_dict()))) == plan


@pytest.mark.parametrize("data, message", [
    ({"columns": {"zip": {"action": "mask", "keep": "x"}}},
     r"^deidentify\.columns\.zip\.keep: The 'keep' parameter of Mask must be an int"),
    ({"columns": {"zip": {"action": "explode"}}}, r"^deidentify\.columns\.zip\.action: must be one of"),
    ({"columns": {"zip": {"action": "mask", "kep": 3}}},
     r"^deidentify\.columns\.zip: unknown key\(s\) 'kep' for action 'mask'; allowed: keep, fill\.$"),
    ({"columns": {"id": {"action": "pseudonymize", "method": "sha1"}}}, r"columns\.id\.method: must be one of"),
    ({"columns": ["zip"]}, r"^deidentify\.columns: must be a mapping"),
    ({"colums": {}}, r"^deidentify: unknown key\(s\) 'colums'"),
    ({"columns": {"d": {"action": "shift_dates"}}}, r"columns\.d: The 'by' parameter of ShiftDates"),
])
def test_from_dict_errors_name_the_path(data, message):
    with pytest.raises(ConfigError, match=message):
        Plan.from_dict(data, path="deidentify")


def test_deidentify_applies_everything(table):
    plan = Plan({"email": Drop(), "zip": Mask(keep=3), "pid": PseudonymizeHMAC(context="pid"),
                 "admit": ShiftDates(by="pid", max_days=10)})
    result = deidentify(table, plan, key=KEY)
    assert list(result.frame.columns) == ["pid", "zip", "admit", "dx"]
    assert result.frame["zip"].tolist() == ["021**", "021**", "100**"]
    assert result.frame["pid"][0] == result.frame["pid"][1] != result.frame["pid"][2]
    # the shift used the original ids, so p1's two dates keep their 4-day gap
    assert (result.frame["admit"][1] - result.frame["admit"][0]).days == 4
    assert result.report.kept == ("dx",)
    done = {a.column: a for a in result.report.done}
    assert done["email"].changed == 3 and done["zip"].changed == 3
    text = json.dumps(result.report.to_dict(), default=str)
    assert "a@x.org" not in text and KEY.decode() not in text and "0123456789abcdef" not in repr(result)
    assert table["email"][0] == "a@x.org"  # input untouched


def test_random_mapping_is_apart(table):
    result = deidentify(table, Plan({"pid": PseudonymizeRandom()}), rng=0)
    assert "p1" not in result.frame.to_csv()
    m = result.mapping_frame()
    assert set(m["original"]) == {"p1", "p2"} and set(m["column"]) == {"pid"}


def test_missing_column_and_by_column(table):
    with pytest.raises(ColumnNotFoundError, match=r"deidentify: column\(s\) 'ssn' not in the table"):
        deidentify(table, Plan({"ssn": Drop()}))
    with pytest.raises(ColumnNotFoundError, match="'person'"):
        deidentify(table, Plan({"admit": ShiftDates(by="person")}), rng=0)


def test_missing_key(table):
    with pytest.raises(ParameterError, match="^The 'key' parameter of deidentify is missing"):
        deidentify(table, Plan({"pid": PseudonymizeHMAC()}))
    with pytest.raises(ParameterError, match="at least 16 bytes"):
        deidentify(table, Plan({"pid": PseudonymizeHMAC()}), key="short")


def test_bad_dates_fail_the_whole_plan(table):
    bad = table.assign(admit=["2020-01-01", "soon", "2021-06-01"])
    with pytest.raises(SchemaError, match="at rows 1"):
        deidentify(bad, Plan({"email": Drop(), "admit": ShiftDates(by="pid")}), rng=0)
    assert list(bad.columns) == ["pid", "email", "zip", "admit", "dx"]


def test_plan_rejects_non_specs():
    with pytest.raises(ParameterError, match="column 'a' must be an action specification"):
        Plan({"a": "drop"})
