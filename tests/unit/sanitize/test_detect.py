from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from veil.errors import ColumnNotFoundError, ParameterError
from veil.sanitize import KINDS, SAFE_HARBOR_ITEMS, luhn_valid, scan

EXPECTED = {
    "patient_name": ("name", "direct-identifier"),
    "c_email": ("email", "direct-identifier"),
    "c_phone": ("phone", "direct-identifier"),
    "fax": ("fax", "direct-identifier"),
    "c_ssn": ("ssn", "direct-identifier"),
    "c_card": ("credit_card", "direct-identifier"),
    "c_ip": ("ip_address", "direct-identifier"),
    "c_ip6": ("ip_address", "direct-identifier"),
    "c_url": ("url", "direct-identifier"),
    "c_street": ("street_address", "direct-identifier"),
    "zip_code": ("zip", "quasi-identifier"),
    "birth_date": ("date_of_birth", "quasi-identifier"),
    "discharged": ("date", "quasi-identifier"),
    "age": ("age", "quasi-identifier"),
    "mrn": ("medical_record_number", "direct-identifier"),
    "health_plan_id": ("health_plan_number", "direct-identifier"),
    "account_number": ("account_number", "direct-identifier"),
    "drivers_license": ("license_number", "direct-identifier"),
    "c_vin": ("vehicle_identifier", "direct-identifier"),
    "c_mac": ("device_identifier", "direct-identifier"),
    "fingerprint_template": ("biometric", "direct-identifier"),
    "photo": ("photo", "direct-identifier"),
    "c_uuid": ("unique_identifier", "direct-identifier"),
    "city": ("geographic", "quasi-identifier"),
    "sex": ("sex", "quasi-identifier"),
    "diagnosis": ("none", "none"),
}


def test_every_identifier_type_is_found(identifiers):
    report = scan(identifiers)
    got = {c: (f.kind, f.category) for c, f in report.columns.items()}
    assert got == EXPECTED


def test_every_safe_harbor_item_has_a_detector():
    covered = {k.safe_harbor for k in KINDS if k.safe_harbor is not None}
    assert covered == set(SAFE_HARBOR_ITEMS) == set(range(1, 19))


def test_values_alone_identify_specific_patterns(identifiers):
    # neutral names: the pattern must carry the finding, and say its share
    f = scan(identifiers).columns["c_email"]
    pattern = [e for e in f.evidence if e.source == "pattern" and e.kind == "email"]
    assert pattern and pattern[0].share == 1.0 and pattern[0].examined == len(identifiers)
    assert not pattern[0].sampled
    assert f.confidence >= 0.9


def test_numbers_failing_luhn_are_not_cards(cards):
    broken = [c[:-1] + str((int(c[-1]) + 1) % 10) for c in cards]
    frame = pd.DataFrame({"c": broken * 2, "ok": cards * 2})
    report = scan(frame)
    assert report.columns["c"].kind != "credit_card"
    assert report.columns["ok"].kind == "credit_card"
    share = [e.share for e in report.columns["c"].evidence if e.kind == "credit_card"]
    assert share == [0.0]


def test_luhn_reference_numbers():
    # 79927398713 is the textbook Luhn example; 4111 1111 1111 1111 the usual test card
    values = pd.Series(["79927398713", "79927398710", "4111 1111 1111 1111", "4111-1111-1111-1112"])
    assert luhn_valid(values).tolist() == [True, False, True, False]


@pytest.mark.parametrize("value", ["john at example dot com", "john@example", "@example.com",
                                   "john@@example.com", "john@example.c", "john doe@example.com"])
def test_strings_that_look_like_emails_are_not(value):
    frame = pd.DataFrame({"contact_info": [value] * 30})
    assert scan(frame).columns["contact_info"].kind != "email"


def test_a_column_named_email_without_addresses_is_not_reported_as_email():
    frame = pd.DataFrame({"email": ["yes", "no"] * 20})
    f = scan(frame).columns["email"]
    assert f.kind == "none" and f.candidate == "email" and f.candidate_confidence < 0.5


@pytest.mark.parametrize("value", ["000-12-3456", "666-12-3456", "912-12-3456", "123-00-4567", "123-45-0000"])
def test_invalid_ssns_are_not_ssns(value):
    frame = pd.DataFrame({"c": [value] * 30})
    assert scan(frame).columns["c"].kind != "ssn"


def test_ip_octets_over_255_are_not_ips():
    frame = pd.DataFrame({"c": ["256.1.1.1", "10.0.0.300"] * 20})
    assert scan(frame).columns["c"].kind != "ip_address"


def test_five_digit_numbers_without_a_zip_name_are_only_a_candidate():
    frame = pd.DataFrame({"code": ["12345", "54321", "11111"] * 10})
    f = scan(frame).columns["code"]
    assert (f.kind, f.candidate) == ("none", "zip")
    assert f.candidate_confidence == pytest.approx(0.3)


def test_unique_column_is_an_identifier_whatever_its_name():
    frame = pd.DataFrame({"colour": [f"x{i}q" for i in range(50)], "dup": ["a"] * 50})
    f = scan(frame).columns["colour"]
    assert (f.kind, f.category, f.unique) == ("unique_identifier", "direct-identifier", True)
    ev = [e for e in f.evidence if e.source == "uniqueness"][0]
    assert ev.examined == 50 and not ev.sampled and "full column" in ev.detail
    assert scan(frame).columns["dup"].kind == "none"


def test_uniqueness_uses_the_full_column_not_the_sample():
    values = [f"v{i}" for i in range(500)]
    values[-1] = values[0]  # one duplicate, far from the start
    frame = pd.DataFrame({"c": values})
    f = scan(frame, sample_size=100).columns["c"]
    assert not f.unique and f.distinct == 499


def test_unique_decimals_are_a_measurement_not_an_identifier():
    frame = pd.DataFrame({"c": [f"{i}.{i % 7}5" for i in range(40)], "k": [f"K{i}" for i in range(40)]})
    report = scan(frame)
    c = report.columns["c"]
    assert (c.kind, c.category, c.candidate) == ("none", "none", "unique_identifier")
    assert c.candidate_confidence == pytest.approx(0.3)  # below the default threshold of 0.5
    assert "continuous measurement" in [e for e in c.evidence if e.source == "uniqueness"][0].detail
    assert report.columns["k"].kind == "unique_identifier"
    assert scan(frame, threshold=0.3).columns["c"].kind == "unique_identifier"  # a candidate, not nothing


def _survey(n: int = 3000, seed: int = 1) -> pd.DataFrame:
    """Columns of a person-level survey (issue 33): scores, coded categories, a row number."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "rownum": [str(i) for i in range(20_001, 20_001 + n)],  # five digits, like ZIP codes
        "mcs": [f"{x:.8f}" for x in rng.normal(50, 10, n)],
        "pcs": [f"{x:.8f}" for x in rng.normal(45, 12, n)],
        "education": rng.choice(["1. < HS Grad", "2. HS Grad", "3. Some College", "4. College Grad",
                                 "5. Advanced Degree"], n),
        "region": rng.choice(["1. New England", "2. Middle Atlantic", "3. East North Central"], n),
        "maritl": rng.choice(["1. Never Married", "2. Married", "3. Widowed", "4. Divorced"], n),
        "maritalcat": rng.choice(["married", "single", "widowed"], n),
        "educcat": rng.choice(["hs", "college", "grad"], n),
        "racegrp": rng.choice(["white", "black", "hispanic", "other"], n),
    })


def test_survey_scores_are_not_identifiers():
    report = scan(_survey())
    for column in ("mcs", "pcs"):
        finding = report.columns[column]
        assert finding.unique and not finding.is_direct_identifier, column
    assert "mcs" not in report.direct_identifiers and "pcs" not in report.direct_identifiers


def test_survey_categories_get_their_own_kind_and_are_quasi_identifiers():
    report = scan(_survey())
    kinds = {c: report.columns[c].kind for c in ("education", "region", "maritl", "maritalcat", "educcat",
                                                  "racegrp")}
    assert kinds == {"education": "education", "region": "region", "maritl": "marital_status",
                     "maritalcat": "marital_status", "educcat": "education", "racegrp": "race"}
    assert set(kinds) <= set(report.quasi_identifiers)
    # a word that matches a weak pattern for a minority of values is no evidence ("other" is a sex)
    assert not [e for e in report.columns["racegrp"].evidence if e.source == "pattern"]


def test_a_row_number_is_an_identifier_without_zip_evidence():
    finding = scan(_survey()).columns["rownum"]
    assert (finding.kind, finding.category) == ("unique_identifier", "direct-identifier")
    assert not [e for e in finding.evidence if e.kind == "zip"]
    assert "row or record number" in [e for e in finding.evidence if e.source == "uniqueness"][0].detail
    # a ZIP column keeps its ZIP evidence
    zips = pd.DataFrame({"zip": [f"{47600 + i % 40}" for i in range(200)]})
    assert scan(zips).columns["zip"].kind == "zip"


def test_tiny_tables_are_not_called_unique():
    frame = pd.DataFrame({"c": ["a", "b", "c"]})
    assert scan(frame).columns["c"].kind == "none"
    assert scan(frame, min_rows_for_uniqueness=3).columns["c"].kind == "unique_identifier"


def test_empty_strings_count_as_missing(identifiers):
    frame = pd.DataFrame({"c": ["a@b.org", ""] * 20})
    f = scan(frame).columns["c"]
    assert f.kind == "email" and f.missing == 20


def test_sampling_is_deterministic_and_reported():
    rng = np.random.default_rng(0)
    values = np.where(rng.random(30_000) < 0.7, "a@b.org", "nope")
    frame = pd.DataFrame({"c": values})
    a = scan(frame, sample_size=1000, seed=5)
    b = scan(frame, sample_size=1000, seed=5)
    assert a.to_dict() == b.to_dict()
    ev = [e for e in a.columns["c"].evidence if e.kind == "email"][0]
    assert ev.sampled and ev.examined == 1000 and abs(ev.share - 0.7) < 0.06


def test_report_contract_and_no_values(identifiers):
    payload = scan(identifiers).to_dict()
    text = json.dumps(payload)
    for column in ("c_email", "c_ssn", "c_card", "patient_name"):
        for value in identifiers[column].head(5):
            assert value not in text
    for name, entry in payload["columns"].items():
        assert {"kind", "category", "evidence", "confidence"} <= set(entry)
        assert entry["category"] in {"direct-identifier", "quasi-identifier", "none"}
        assert 0 <= entry["confidence"] <= 1


def test_column_names_are_normalised():
    frame = pd.DataFrame({"PatientDOB": ["1980-01-02"] * 12, "E-Mail Address": ["a@b.org"] * 12})
    report = scan(frame)
    assert report.columns["PatientDOB"].kind == "date_of_birth"
    assert report.columns["E-Mail Address"].kind == "email"


def test_numeric_dtypes_are_scanned():
    frame = pd.DataFrame({"zip": np.array([2139, 10001, 94110] * 5), "age": np.arange(15)})
    report = scan(frame)
    assert report.columns["zip"].kind == "zip" and report.columns["age"].kind == "age"


def test_free_text_is_flagged():
    frame = pd.DataFrame({"comment": ["The patient called on Monday and asked about the results"] * 20})
    assert scan(frame).columns["comment"].kind == "free_text"


def test_scan_errors():
    frame = pd.DataFrame({"a": ["x"]})
    with pytest.raises(ParameterError, match=r"^The 'sample_size' parameter of scan must be an int in \[100, inf\)"):
        scan(frame, sample_size=5)
    with pytest.raises(ColumnNotFoundError, match="'b'"):
        scan(frame, columns=["b"])
    with pytest.raises(ParameterError, match="DataFrame"):
        scan([1, 2])
