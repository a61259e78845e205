import pandas as pd
import pytest

from veil.dp import QueryAuditor, QueryRefusedError

STAFF = pd.DataFrame({
    "name": ["Ann", "Bob", "Cem", "Dora", "Eve", "Finn", "Gus"],
    "dept": ["A"] * 7,
    "age": [31, 35, 43, 29, 38, 52, 47],
    "salary": [50, 60, 90, 45, 55, 70, 65],
})


def test_refuses_identifiers_and_small_sets():
    aud = QueryAuditor(data=STAFF, identifiers=["name"], threshold=3)
    with pytest.raises(QueryRefusedError, match="identifier"):
        aud.count("name = Cem")
    with pytest.raises(QueryRefusedError, match="fewer than 3"):
        aud.count("age = 43")
    assert aud.count("age > 30") == 6


def test_differencing_attack_defeats_query_restriction():
    # Two allowed queries (6 and 7 rows, both >= threshold, no identifier used)
    # whose difference is exactly Cem's salary (the only person aged 43).
    aud = QueryAuditor(data=STAFF, identifiers=["name"], threshold=3)
    everyone = aud.sum("salary", "dept = A")
    all_but_43 = aud.sum("salary", "dept = A and age != 43")
    assert everyone - all_but_43 == 90  # Cem's salary, revealed
