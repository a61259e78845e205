from __future__ import annotations

import pandas as pd
import pytest

from veil.errors import ColumnNotFoundError
from veil.sanitize import Mask, Plan, safe_harbor, scan
from veil.sanitize._safe_harbor import ACTUAL_KNOWLEDGE


def test_safe_harbor_on_every_type(identifiers):
    result = safe_harbor(identifiers, restricted_zip3=["021"], as_of="2025-01-01", rng=0)
    out = result.frame
    dropped = {a.column for a in result.report.done if a.action == "drop"}
    assert dropped == {"patient_name", "c_email", "c_phone", "fax", "c_ssn", "c_card", "c_ip", "c_ip6", "c_url",
                       "c_street", "mrn", "health_plan_id", "account_number", "drivers_license", "c_vin", "c_mac",
                       "fingerprint_template", "photo", "c_uuid", "city"}
    assert list(out.columns) == ["zip_code", "birth_date", "discharged", "age", "sex", "diagnosis"]
    assert set(out["zip_code"]) == {"000"}                       # 021xx are all restricted here
    assert out["birth_date"].str.fullmatch(r"\d{4}").all()
    assert out["discharged"].eq("2021").all()
    assert set(out["age"]) <= {str(a) for a in range(91)}        # 90 stands for "90 or older"
    assert pd.to_numeric(out["age"]).notna().all()              # the column stays numeric
    assert result.report.kept == ("sex", "diagnosis")
    assert result.report.undecided[-1].reason == ACTUAL_KNOWLEDGE


def test_zip_without_list_is_undecided():
    t = pd.DataFrame({"zip": ["02139", "10001"] * 10, "dx": ["a", "b"] * 10})
    result = safe_harbor(t)
    assert result.frame["zip"].tolist()[:2] == ["021", "100"]
    reasons = {u.column: u.reason for u in result.report.undecided}
    assert "no list" in reasons["zip"]


def test_uncertain_findings_are_kept_and_listed():
    t = pd.DataFrame({"code": ["12345", "54321"] * 10,
                      "measure": [f"{i}.{i % 3}7" for i in range(20)],
                      "note": ["Seen today, follow up next week with the cardiologist"] * 20})
    result = safe_harbor(t)
    assert list(result.frame.columns) == ["code", "measure", "note"]
    assert {u.column for u in result.report.undecided} == {"code", "measure", "note", None}


def test_link_columns_get_random_ids(identifiers):
    result = safe_harbor(identifiers, link=["mrn"], rng=1)
    assert result.frame["mrn"].str.startswith("ID").all()
    assert set(result.mappings["mrn"]["original"]) == set(identifiers["mrn"])
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        safe_harbor(identifiers, link=["nope"])


def test_overrides_and_precomputed_scan(identifiers):
    report = scan(identifiers)
    result = safe_harbor(identifiers, scan=report, overrides=Plan({"c_email": Mask(keep=2)}))
    assert result.frame["c_email"].str.startswith("pe").all()
    assert {a.column: a.action for a in result.report.done}["c_email"] == "mask"


def test_old_birth_dates_are_aggregated():
    t = pd.DataFrame({"dob": ["1930-01-01", "1990-01-01"] * 10})
    out = safe_harbor(t, as_of="2025-01-01").frame["dob"]
    assert out.tolist()[:2] == ["<=1935", "1990"]
