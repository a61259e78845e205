import pandas as pd
import pytest

from veil.dp import parse_predicate, parse_query
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

DF = pd.DataFrame({"age": [30, 50, None, 45], "sex": ["F", "M", "F", None], "# sold": [1, 2, 3, 4]})


@pytest.mark.parametrize("text,expected", [
    ("age > 40", [False, True, False, True]),
    ("age >= 45 and sex = 'M'", [False, True, False, False]),
    ("sex in (F, M)", [True, True, True, False]),
    ("not age <= 40", [False, True, True, True]),
    ("`# sold` >= 3 or sex == \"M\"", [False, True, True, True]),
    ("(age < 40 or age > 48) and sex != M", [True, False, False, False]),
])
def test_predicates(text, expected):
    assert parse_predicate(text).mask(DF).tolist() == expected


def test_str_roundtrip():
    p = parse_predicate("age > 40 and (sex = F or `# sold` in (1, 2))")
    assert parse_predicate(str(p)).mask(DF).tolist() == p.mask(DF).tolist()


@pytest.mark.parametrize("bad", ["age >", "age ~ 3", "__import__('os')", "age > 3 extra", ""])
def test_bad_syntax_is_refused(bad):
    with pytest.raises(ParameterError):
        parse_predicate(bad)


def test_unknown_column():
    with pytest.raises(ColumnNotFoundError, match="height"):
        parse_predicate("height > 1").mask(DF)


def test_parse_query():
    q = parse_query("histogram sex, age where age > 3")
    assert q.kind == "histogram" and q.columns == ("sex", "age") and q.where is not None
    assert parse_query("quantile 0.5 age").q == 0.5
    with pytest.raises(ParameterError, match="Unknown query"):
        parse_query("delete from t")


@pytest.mark.parametrize("where,column", [
    ("zip = 12345", "zip"),            # a number against a text column
    ("zip in (1, 2)", "zip"),
    ("age = 'forty'", "age"),          # text against a numeric column
    ("age > old", "age"),              # a bare word is text
])
def test_predicates_are_typed_and_name_the_column(where, column):
    frame = pd.DataFrame({"zip": ["12345", "02139"], "age": [40, 50]})
    with pytest.raises(SchemaError, match=f"The column '{column}'"):
        parse_predicate(where).mask(frame)


def test_well_typed_predicates_still_match():
    frame = pd.DataFrame({"zip": ["12345", "02139"], "age": [40, 50]})
    assert parse_predicate("zip = '02139' and age >= 50").mask(frame).tolist() == [False, True]
