"""The Data page: open the bundled Adult, an upload or a workspace file; the columns table shows counts
only; a column's values only when asked; a file veil cannot read leaves the open table as it was."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pandas as pd

from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path, load_adult

JSON = {"accept": "application/json"}


def reasons(html: str) -> dict[str, str]:
    rows = re.findall(r'<tr data-column="([^"]+)">.*?class="reason">([^<]*)<', html, flags=re.S)
    return {name: text.replace("&#39;", "'") for name, text in rows}


def test_open_adult_shows_every_column_with_counts_and_no_value(web):
    client, app = web
    page = client.post(f"/open/adult?csrf={client.csrf}")
    assert page.status_code == 200
    adult = load_adult().frame
    for column in adult.columns:
        assert f'data-column="{column}"' in page.text
    assert ">2<" in page.text  # sex has 2 distinct values
    for value in ("Never-married", "Bachelors", "Private"):  # values are never shown unasked
        assert value not in page.text
    assert app.state.workspace.state.config == {"input": {"path": "adult.csv", "sep": ";"}}


def test_adult_brings_its_arx_hierarchy_files_into_the_workspace(web):
    client, app = web
    client.post(f"/open/adult?csrf={client.csrf}")
    root = app.state.workspace.root
    for qi in ADULT_QUASI_IDENTIFIERS:
        name = f"adult_hierarchy_{qi}.csv"
        assert (root / name).read_bytes() == Path(adult_path(name)).read_bytes()
    # the open page lists data files, not the hierarchy files beside them
    client.post(f"/close?csrf={client.csrf}")
    page = client.get("/")
    assert "<option>adult.csv</option>" in page.text and "adult_hierarchy_age.csv" not in page.text


def test_the_reason_shows_the_strongest_evidence_first_and_no_weak_person_name_pattern(web):
    client, _ = web
    shown = reasons(client.post(f"/open/adult?csrf={client.csrf}").text)
    assert shown["sex"] == "column name 'sex' matches sex or gender"  # the name says enough
    assert shown["race"] == "column name 'race' matches race or ethnicity"
    assert shown["age"].startswith("column name 'age' matches age in years")
    assert shown["native-country"].startswith("a word of column name 'native_country' matches state")
    assert all("person name" not in text for text in shown.values())
    assert shown["salary-class"] == "no identifying evidence"


def test_a_unique_column_says_so_after_its_name(web):
    client, _ = web
    body = "email,age\n" + "".join(f"p{i}@example.org,{30 + i % 3}\n" for i in range(20))
    shown = reasons(client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("p.csv", body.encode())}).text)
    assert shown["email"] == ("column name 'email' matches e-mail address; all 20 non-missing values are distinct "
                              "(full column, not sampled): unique per row")


def test_a_name_the_values_contradict_is_said_and_suggests_no_quasi_identifier(web):
    client, _ = web
    body = "visit_count,x\n" + "".join(f"{i % 5},{i % 2}\n" for i in range(60))
    page = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("v.csv", body.encode())}).text
    assert reasons(page)["visit_count"] == ("column name 'visit_count' matches date (Safe Harbor: any date directly "
                                            "related to an individual); but most of its values do not look like it")
    assert re.search(r'<tr data-column="visit_count">.*?<td class="role-insensitive">', page, flags=re.S)


def test_the_suggested_roles_of_adult(web):
    client, _ = web
    page = client.post(f"/open/adult?csrf={client.csrf}").text
    roles = dict(re.findall(r'<tr data-column="([^"]+)">.*?<td class="role-([a-z-]+)">', page, flags=re.S))
    # native-country: the scanner's candidate (a word of the name) below its threshold, suggested as a QI
    assert roles == {**dict.fromkeys(ADULT_QUASI_IDENTIFIERS, "quasi-identifier"), "salary-class": "insensitive"}


def test_a_columns_values_are_shown_only_when_asked_with_their_counts(web):
    client, _ = web
    client.post(f"/open/adult?csrf={client.csrf}")
    answer = client.get("/column/marital-status/values", headers=JSON)
    assert answer.status_code == 200
    counts = load_adult().frame["marital-status"].astype(str).value_counts()
    data = answer.json()
    assert data["distinct"] == 7 and data["more"] == 0 and data["rows"] == 30162
    assert [(v["value"], v["count"]) for v in data["values"]] == list(zip(counts.index, counts.tolist()))
    many = client.get("/column/native-country/values", headers=JSON).json()
    assert len(many["values"]) == 10 and many["more"] == 41 - 10


def test_an_unknown_column_is_the_one_line_error_naming_it(web):
    client, _ = web
    client.post(f"/open/adult?csrf={client.csrf}")
    answer = client.get("/column/salary/values", headers=JSON)
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("error: no column 'salary' in 'adult.csv'; its columns are: sex, age")
    assert html.unescape(client.get("/column/salary/values").text).count("error: no column 'salary'") == 1  # the page too


def test_upload_opens_the_file_and_keeps_it_in_the_private_workspace(web, tmp_path):
    client, app = web
    body = "name,age,zip\nAnn,34,12345\nBob,45,12346\n"
    page = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", body.encode())})
    assert page.status_code == 200 and 'data-column="zip"' in page.text
    assert (app.state.workspace.root / "people.csv").read_text() == body
    assert (app.state.workspace.root.stat().st_mode & 0o777) == 0o700
    assert app.state.workspace.state.config == {"input": {"path": "people.csv"}}


def test_a_semicolon_csv_opens_with_its_separator_sniffed(web):
    client, app = web
    body = "age;zip;job\n" + "".join(f"{20 + i};{10000 + i};clerk\n" for i in range(30))
    page = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("semi.csv", body.encode())})
    assert page.status_code == 200
    assert [c for c in re.findall(r'<tr data-column="([^"]+)">', page.text)] == ["age", "zip", "job"]
    assert client.get("/column/job/values", headers=JSON).json()["values"] == [{"value": "clerk", "count": 30}]


def test_a_parquet_file_opens(web):
    client, app = web
    buffer = io.BytesIO()
    pd.DataFrame({"age": [30, 41, 52], "sex": ["F", "M", "F"]}).to_parquet(buffer)
    page = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("t.parquet", buffer.getvalue())})
    assert page.status_code == 200
    assert re.findall(r'<tr data-column="([^"]+)">', page.text) == ["age", "sex"]
    assert client.get("/column/sex/values", headers=JSON).json()["values"][0] == {"value": "F", "count": 2}


def test_a_malformed_file_is_the_readers_one_line_error_and_the_open_table_stays(web):
    client, app = web
    client.post(f"/open/adult?csrf={client.csrf}")
    state = app.state.workspace.state
    before = (state.data, state.sep, dict(state.config))
    ragged = "a;b;c\n1;2;3\n4;5\n"
    page = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("bad.csv", ragged.encode())})
    assert page.status_code == 400
    errors = re.findall(r'<p class="error" id="error" role="alert">([^<]*)</p>', page.text)
    assert errors == ["error: &#39;bad.csv&#39;, line 3: expected 3 fields (separated by &#39;;&#39;) but found 2; "
                      "1 row(s) are ragged (or a quote is left open). Fix the file or pass the right separator."]
    not_parquet = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("x.parquet", b"\x00garbage")},
                              headers=JSON)
    assert not_parquet.json() == {"error": "error: Cannot read 'x.parquet' as Parquet: it does not start with PAR1 "
                                           "(not a Parquet file)."}
    assert (state.data, state.sep, state.config) == before
    root = app.state.workspace.root
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith("adult")) == []  # nothing written
    assert 'data-column="salary-class"' in client.get("/").text
