from __future__ import annotations

import hashlib
import hmac
import pickle

import numpy as np
import pandas as pd
import pytest

from veil.errors import ColumnNotFoundError, ParameterError, SchemaError
from veil.sanitize import (PseudonymKey, age_90_plus, birth_year, bottom_code, drop, mask, pseudonymize_hmac,
                           pseudonymize_random, shift_dates, top_code, truncate_dates, zip3)

KEY = "k" * 16 + "-secret-value"


def test_hmac_matches_the_standard_library():
    s = pd.Series(["123-45-6789", "987-65-4321", "123-45-6789", ""], name="ssn")
    out = pseudonymize_hmac(s, key=KEY, length=20, context="ssn")
    expected = hmac.new(KEY.encode(), b"ssn\x00123-45-6789", hashlib.sha256).hexdigest()[:20]
    assert out[0] == expected and out[2] == expected and out[1] != expected
    assert pd.isna(out[3]) and out.name == "ssn"


def test_hmac_context_separates_columns():
    s = pd.Series(["a", "b"])
    assert (pseudonymize_hmac(s, key=KEY, context="x") != pseudonymize_hmac(s, key=KEY, context="y")).all()
    assert (pseudonymize_hmac(s, key=KEY) == pseudonymize_hmac(s.copy(), key=KEY.encode())).all()


@pytest.mark.parametrize("key, message", [
    (None, r"^The 'key' parameter of pseudonymize_hmac is missing"),
    ("short-secret", r"^The 'key' parameter of pseudonymize_hmac must be at least 16 bytes long\. "
                     r"Got a key of 12 bytes instead"),
    (b"0123456789abcde", r"at least 16 bytes long\. Got a key of 15 bytes"),
    (12345678901234567890, r"must be bytes or str\. Got int instead\."),
])
def test_bad_keys(key, message):
    with pytest.raises(ParameterError, match=message) as info:
        pseudonymize_hmac(pd.Series(["a"]), key=key)
    if isinstance(key, (str, bytes)):
        assert str(key) not in str(info.value) and "short-secret" not in str(info.value)


def test_key_is_never_shown():
    key = PseudonymKey(KEY)
    assert KEY not in repr(key) and KEY not in str(key) and "redacted" in repr(key)
    with pytest.raises(TypeError):
        pickle.dumps(key)


def test_random_ids_and_mapping():
    s = pd.Series(["x", "y", "x", None, "z"])
    out, mapping = pseudonymize_random(s, rng=1, prefix="P")
    assert out[0] == out[2] and len({out[0], out[1], out[4]}) == 3 and pd.isna(out[3])
    assert sorted(mapping["pseudonym"]) == ["P1", "P2", "P3"]
    back = dict(zip(mapping["pseudonym"], mapping["original"]))
    assert [back[v] for v in out[[0, 1, 4]]] == ["x", "y", "z"]
    a, _ = pseudonymize_random(s, rng=1, prefix="P")
    assert a.equals(out)


def test_random_ids_do_not_follow_value_order():
    s = pd.Series([f"v{i:03d}" for i in range(200)])
    out, _ = pseudonymize_random(s, rng=0)
    assert (out != pd.Series([f"ID{i:03d}" for i in range(1, 201)])).any()


def test_mask_keeps_length():
    s = pd.Series(["02139", "AB", "", "1234567"])
    assert mask(s, keep=3).tolist()[:2] == ["021**", "AB"]
    assert pd.isna(mask(s, keep=3)[2]) and mask(s, keep=3)[3] == "123****"
    assert mask(s, keep=1, fill="").tolist()[0] == "0"
    with pytest.raises(ParameterError, match="'keep' parameter of mask must be an int in \\[0, inf\\)"):
        mask(s, keep=-1)


def test_zip3_with_restricted_list():
    s = pd.Series(["02139", "03601-1234", "", "10001"])
    out = zip3(s, restricted_zip3=["036"])
    assert out[0] == "021" and out[1] == "000" and pd.isna(out[2]) and out[3] == "100"
    assert zip3(pd.Series([2139, 10001])).tolist() == ["021", "100"]


def test_zip3_errors_name_rows_not_values():
    s = pd.Series(["02139", "Boston", "1234"], index=[1, 2, 3])
    # "1234" may be a ZIP that lost its leading zero: only "Boston" is no ZIP at all (four-digit values: below)
    with pytest.raises(SchemaError, match=r"1 value\(s\) that are not 5-digit ZIP codes at rows 2\.") as info:
        zip3(s)
    assert "Boston" not in str(info.value)
    with pytest.raises(ParameterError, match="three-digit strings"):
        zip3(s, restricted_zip3=[36])


def test_top_and_bottom_coding():
    s = pd.Series([10, 50, 120])
    assert top_code(s, threshold=100).tolist() == [10, 50, 100]
    assert bottom_code(s, threshold=20).tolist() == [20, 50, 120]
    assert top_code(pd.Series(["10", "150", ""]), threshold=100, label=">100").tolist()[:2] == ["10", ">100"]
    with pytest.raises(SchemaError, match="non-numeric value\\(s\\) at rows 1"):
        top_code(pd.Series(["1", "x"]), threshold=5)


def test_age_90_plus():
    # default: ages over 89 become the number 90 ("90 or older"); the column stays numeric text
    out = age_90_plus(pd.Series(["45", "89", "90", "104", ""]))
    assert out.tolist()[:4] == ["45", "89", "90", "90"] and pd.isna(out[4])
    assert pd.to_numeric(out).max() == 90
    ints = age_90_plus(pd.Series([45, 89, 90, 104]))
    assert ints.tolist() == [45, 89, 90, 90] and pd.api.types.is_integer_dtype(ints)
    labelled = age_90_plus(pd.Series(["45", "89", "90", "104", ""]), label="90+")
    assert labelled.tolist()[:4] == ["45", "89", "90+", "90+"] and pd.isna(labelled[4])


def test_truncate_dates():
    s = pd.Series(["1980-03-14", "03/04/1990", "", "2001-12-31 10:00"])
    out = truncate_dates(s)
    assert out.tolist()[:2] == ["1980", "1990"] and pd.isna(out[2]) and out[3] == "2001"
    assert truncate_dates(s, to="month")[0] == "1980-03"


def test_unparseable_dates_name_the_rows():
    s = pd.Series(["1980-01-01", "not a date", "31/31/2000", "1990-05-05"], index=[10, 11, 12, 13])
    with pytest.raises(SchemaError, match=r"2 value\(s\) that are not dates at rows 11, 12\.") as info:
        truncate_dates(s)
    assert "not a date" not in str(info.value)


def test_many_bad_rows_are_summarised():
    s = pd.Series(["x"] * 25)
    with pytest.raises(SchemaError, match=r"rows 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 15 more"):
        truncate_dates(s)


def test_birth_year_aggregates_ages_over_89():
    s = pd.Series(["1934-06-01", "1935-12-31", "1936-01-01", "2000-02-02"])
    assert birth_year(s, as_of="2025-06-30").tolist() == ["<=1935", "<=1935", "1936", "2000"]


def test_shift_dates_keeps_intervals_per_person():
    dates = pd.Series(["2020-01-01", "2020-01-11", "2020-03-01", "2020-03-04"])
    people = pd.Series(["a", "a", "b", "b"])
    out = shift_dates(dates, by=people, key=KEY, max_days=30)
    assert (out[1] - out[0]).days == 10 and (out[3] - out[2]).days == 3
    offsets = (out - pd.to_datetime(dates)).dt.days
    assert offsets.abs().between(1, 30).all()
    again = shift_dates(dates, by=people, key=KEY, max_days=30)
    assert again.equals(out)
    other = shift_dates(dates, by=people, key=KEY + "x", max_days=30)
    rand = shift_dates(dates, by=people, rng=3, max_days=30)
    assert (rand[1] - rand[0]).days == 10
    assert not other.equals(out)


def test_shift_dates_errors():
    dates = pd.Series(["2020-01-01", "2020-01-02"])
    with pytest.raises(ParameterError, match="exactly one of 'key'.*Got neither"):
        shift_dates(dates, by=pd.Series(["a", "b"]))
    with pytest.raises(SchemaError, match="person id is missing at rows 1"):
        shift_dates(dates, by=pd.Series(["a", ""]), rng=0)


def test_drop_missing_column():
    frame = pd.DataFrame({"a": [1]})
    assert list(drop(frame, ["a"]).columns) == []
    with pytest.raises(ColumnNotFoundError, match=r"column\(s\) 'b' not in the table\. Available columns: 'a'"):
        drop(frame, ["b"])


def test_actions_do_not_modify_input():
    s = pd.Series(["02139", "10001"])
    before = s.copy()
    mask(s), zip3(s), pseudonymize_hmac(s, key=KEY)
    assert s.equals(before)
    assert isinstance(np.asarray(s), np.ndarray)
