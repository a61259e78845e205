"""The Roles page: the scanner's roles pre-filled, saved as ReleaseConfig's ``attributes`` and
``deidentify``, checked with the CLI's errors, and what the release policy does with each column."""

from __future__ import annotations

import html
import re

import pytest

from veil.config import ReleaseConfig, check_consistency, load_config

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
PEOPLE = "name,email,age,zip,diagnosis,note\n" + "".join(
    f"Person{i},p{i}@example.org,{20 + i % 10},{10000 + i % 7},d{i % 3},n{i % 2}\n" for i in range(40))


def treatments(page: str) -> dict[str, str]:
    return dict(re.findall(r'<tr data-column="([^"]+)">.*?data-treatment="([^"]*)"', page, flags=re.S))


def selected(page: str, kind: str) -> dict[str, str]:
    rows = re.findall(rf'data-{kind}-for="([^"]+)">(.*?)</select>', page, flags=re.S)
    return {name: re.search(r'<option value="([^"]+)" selected', body).group(1) for name, body in rows}


def error_of(page: str) -> str:
    return html.unescape(re.search(r'<p class="error" id="error" role="alert">([^<]*)</p>', page).group(1))


@pytest.fixture
def people(web):
    client, app = web
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", PEOPLE.encode())})
    return client, app


def form(roles: dict[str, str], columns: list[str], actions: dict[str, str] | None = None) -> dict[str, str]:
    out = {f"role-{i}": roles[c] for i, c in enumerate(columns)}
    out.update({f"action-{columns.index(c)}": a for c, a in (actions or {}).items()})
    return out


def test_roles_are_the_scanners_suggestions_until_saved(people):
    client, app = people
    page = client.get("/roles").text
    assert "not saved yet" in page
    roles = selected(page, "role")
    assert roles["email"] == "identifier" and roles["age"] == "quasi-identifier" and roles["note"] == "insensitive"
    assert treatments(page)["email"] == "dropped" and treatments(page)["age"] == "generalized"
    assert "attributes" not in app.state.workspace.state.config


def test_the_role_choices_are_the_configs_roles_and_withheld(people):
    client, _ = people
    page = client.get("/roles").text
    options = re.findall(r'<option value="([^"]+)"', page.split('data-role-for="age">')[1].split("</select>")[0])
    assert options == ["identifier", "quasi-identifier", "sensitive", "insensitive", "withheld"]


def test_saving_writes_the_attributes_a_release_config_holds(people):
    client, app = people
    columns = ["name", "email", "age", "zip", "diagnosis", "note"]
    roles = {"name": "identifier", "email": "identifier", "age": "quasi-identifier", "zip": "quasi-identifier",
             "diagnosis": "sensitive", "note": "withheld"}
    answer = client.post(f"/roles?csrf={client.csrf}", data=form(roles, columns, {"email": "pseudonymize-random"}))
    assert answer.status_code == 200  # redirected to the page
    config = app.state.workspace.state.config
    assert config["attributes"] == {
        "name": {"role": "identifier"}, "email": {"role": "identifier"},
        "age": {"role": "quasi-identifier", "hierarchy": {"spec": "auto"}},
        "zip": {"role": "quasi-identifier", "hierarchy": {"spec": "auto"}},
        "diagnosis": {"role": "sensitive"},
    }
    assert config["deidentify"] == {"columns": {"email": {"action": "pseudonymize", "method": "random"}}}
    release = ReleaseConfig(**config, models=[{"type": "k-anonymity", "k": 2}], base_dir=str(app.state.workspace.root))
    check_consistency(release)
    assert treatments(answer.text) == {"name": "dropped", "email": "pseudonymized", "age": "generalized",
                                       "zip": "generalized", "diagnosis": "unchanged", "note": "dropped"}
    assert "withheld (no role)" in answer.text and "dropped (an identifier is never written)" in answer.text


def test_the_saved_config_is_read_by_load_config(people, tmp_path):
    import json

    client, app = people
    columns = ["name", "email", "age", "zip", "diagnosis", "note"]
    roles = dict(zip(columns, ["identifier", "identifier", "quasi-identifier", "quasi-identifier", "sensitive",
                               "insensitive"]))
    client.post(f"/roles?csrf={client.csrf}", data=form(roles, columns, {"name": "pseudonymize"}))
    config = dict(app.state.workspace.state.config, models=[{"type": "k-anonymity", "k": 2}])
    path = app.state.workspace.root / "release.json"
    path.write_text(json.dumps(config))
    loaded = load_config(path)
    assert loaded.names("identifier") == ["name", "email"] and loaded.deidentify == {
        "columns": {"name": {"action": "pseudonymize"}}}


def test_a_keyed_pseudonym_without_a_key_is_warned_about(people, monkeypatch):
    client, _ = people
    monkeypatch.delenv("VEIL_PSEUDONYM_KEY", raising=False)
    columns = ["name", "email", "age", "zip", "diagnosis", "note"]
    roles = dict(zip(columns, ["identifier", "identifier", "quasi-identifier", "quasi-identifier", "sensitive",
                               "insensitive"]))
    page = client.post(f"/roles?csrf={client.csrf}", data=form(roles, columns, {"name": "pseudonymize"})).text
    assert 'id="key-missing"' in page and "VEIL_PSEUDONYM_KEY" in page
    monkeypatch.setenv("VEIL_PSEUDONYM_KEY", "k" * 32)
    assert 'id="key-missing"' not in client.get("/roles").text


def test_no_quasi_identifier_is_the_clis_error_and_the_state_is_kept(people):
    client, app = people
    columns = ["name", "email", "age", "zip", "diagnosis", "note"]
    before = dict(app.state.workspace.state.config)
    roles = dict.fromkeys(columns, "insensitive") | {"name": "identifier", "email": "identifier"}
    answer = client.post(f"/roles?csrf={client.csrf}", data=form(roles, columns))
    assert answer.status_code == 400
    assert error_of(answer.text) == ("error: attributes: no attribute has role quasi-identifier; there is nothing "
                                     "to anonymize.")
    assert app.state.workspace.state.config == before
    assert selected(answer.text, "role")["age"] == "insensitive"  # the form as sent, to fix


def test_an_unknown_role_or_action_is_refused_naming_the_key(people):
    client, app = people
    answer = client.post(f"/roles?csrf={client.csrf}", data={"role-2": "secret"}, headers={"accept": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("error: attributes.age.role must be one of identifier, "
                                             "quasi-identifier, sensitive, insensitive (or withheld). Got 'secret'")
    answer = client.post(f"/roles?csrf={client.csrf}", data={"action-0": "shred"}, headers={"accept": "application/json"})
    assert answer.json()["error"].startswith("error: deidentify.columns.name: the action must be one of drop")
    assert "attributes" not in app.state.workspace.state.config


def test_a_published_column_the_scanner_flags_is_shown_as_refused(people):
    client, _ = people
    columns = ["name", "email", "age", "zip", "diagnosis", "note"]
    roles = dict(zip(columns, ["identifier", "insensitive", "quasi-identifier", "quasi-identifier", "sensitive",
                               "insensitive"]))
    page = client.post(f"/roles?csrf={client.csrf}", data=form(roles, columns)).text
    row = page.split('<tr data-column="email">')[1].split("</tr>")[0]
    assert "the release would refuse it" in row
    assert "the release would refuse it" not in page.split('<tr data-column="note">')[1].split("</tr>")[0]


def test_roles_need_an_open_table(web):
    client, _ = web
    answer = client.get("/roles", headers={"accept": "application/json"})
    assert answer.status_code == 400 and answer.json() == {"error": "error: open a table first (Data)."}
