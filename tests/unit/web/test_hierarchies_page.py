"""The Hierarchies page: builders as the config's ``hierarchy`` entries, the preview's counts (checked
against a pandas group-by of the Adult table), the ARX CSV download, uploads, and the CLI's errors."""

from __future__ import annotations

import html
import io
import re

import numpy as np
import pandas as pd
import pytest

from veil.config import ReleaseConfig, check_consistency
from veil.datasets import adult_path, load_adult
from veil.hierarchy import from_csv

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
JSON = {"accept": "application/json"}


@pytest.fixture
def adult(web):
    """Adult open, the 8 QIs quasi-identifiers and salary-class sensitive (saved)."""
    client, app = web
    client.post(f"/open/adult?csrf={client.csrf}")
    roles = {f"role-{i}": "quasi-identifier" for i in range(8)} | {"role-8": "sensitive"}
    client.post(f"/roles?csrf={client.csrf}", data=roles)
    return client, app


def preview(client, qi, builder, params="", file="", levels=None, **more):
    return client.post(f"/hierarchies/{qi}/preview", json={"builder": builder, "params": params, "file": file,
                                                           "levels": levels or {}, **more},
                       headers={"X-CSRF-Token": client.csrf, **JSON})


def frame() -> pd.DataFrame:
    return load_adult().frame.astype(str)


def test_the_page_lists_the_quasi_identifiers_with_auto_preselected(adult):
    client, _ = adult
    page = client.get("/hierarchies").text
    assert re.findall(r'<section class="card hierarchy" id="qi-[^"]+" data-qi="([^"]+)"', page) == QIS
    assert page.count('<option value="auto" data-default="" data-help="" selected>') == 8
    for builder in ("interval", "mask", "date", "round", "group", "ordered", "suppress", "file", "taxonomy"):
        assert f'<option value="{builder}"' in page
    assert "<option>adult_hierarchy_age.csv</option>" in page and "<option>adult.csv</option>" not in page


def test_age_by_intervals_counts_groups_and_classes_as_pandas_does(adult):
    client, _ = adult
    answer = preview(client, "age", "interval", "5,10,20")
    assert answer.status_code == 200
    data = answer.json()
    assert data["entry"] == {"spec": "interval:5,10,20"} and data["source"] == "interval:5,10,20"
    table = frame()
    age = table["age"].astype(int)
    others = [q for q in QIS if q != "age"]
    for level, width in enumerate([1, 5, 10, 20]):
        groups = (age // width).value_counts()
        combined = table[others].assign(age=age // width).value_counts()
        row = data["levels"][level]
        assert (row["groups"], row["smallest"], row["largest"]) == (len(groups), groups.min(), groups.max())
        assert (row["classes"], row["smallest_class"]) == (len(combined), combined.min())
    top = data["levels"][4]
    assert (top["groups"], top["labels"], top["classes"]) == (1, ["*"], len(table[others].value_counts()))
    assert data["levels"][0]["labels"] is None  # the values themselves only when asked
    assert data["levels"][1]["labels"][:2] == ["[15, 20)", "[20, 25)"]
    shown = preview(client, "age", "interval", "5,10,20", show_values=True).json()
    assert shown["levels"][0]["labels"] == ["17", "18", "19", "20", "21", "22"]


def test_the_other_quasi_identifiers_count_at_their_chosen_levels(adult):
    client, app = adult
    levels = {"sex": 1, "race": 1, "marital-status": 1, "native-country": 1, "workclass": 1, "occupation": 1,
              "education": 0}
    data = preview(client, "age", "interval", "10", levels=levels).json()
    table = frame()
    # sex, race, marital-status and workclass are `auto` = suppress (level 1 is *); native-country and occupation
    # `auto` = group by frequency: take their level-1 labels from the library's own hierarchy of the release
    from veil.config import build_hierarchies
    from veil.release import dataset_from_config

    config = app.state.workspace.state.config
    release = ReleaseConfig(**config, models=[{"type": "k-anonymity", "k": 5}], base_dir=str(app.state.workspace.root))
    built = build_hierarchies(release, dataset_from_config(release)).hierarchies
    coarse = pd.DataFrame({q: built[q].labels[1][built[q].maps[1]][built[q].leaf_index(table[q].to_numpy())]
                           for q in ("native-country", "occupation")})
    for level, width in ((0, 1), (1, 10)):
        keys = pd.DataFrame({"education": table["education"], "age": table["age"].astype(int) // width,
                             "native-country": coarse["native-country"], "occupation": coarse["occupation"]})
        counts = keys.value_counts()
        assert (data["levels"][level]["classes"], data["levels"][level]["smallest_class"]) == (len(counts), counts.min())
    assert app.state.workspace.state.results["hierarchies.levels"] == {**levels, "age": 0}


def test_a_taxonomy_file_of_adult_previews_its_levels(adult):
    client, _ = adult
    data = preview(client, "education", "file", file="adult_hierarchy_education.csv").json()
    assert data["entry"] == {"file": "adult_hierarchy_education.csv"}
    h = from_csv(adult_path("adult_hierarchy_education.csv"))
    table = frame()
    for level in range(h.n_levels):
        groups = pd.Series(h.labels[level][h.maps[level]][h.leaf_index(table["education"].to_numpy())]).value_counts()
        assert (data["levels"][level]["groups"], data["levels"][level]["smallest"]) == (len(groups), groups.min())
    assert data["levels"][2]["labels"] == ["Higher education", "Secondary education", "Primary education"]


def test_auto_says_what_it_chose_and_why(adult):
    client, _ = adult
    data = preview(client, "education", "auto").json()
    assert data["source"].startswith("auto (ordered:2,4,8) because ordered categories")


def test_a_bad_builder_parameter_is_the_clis_one_line_error(adult):
    client, app = adult
    answer = preview(client, "age", "interval", "5,x")
    assert answer.status_code == 400
    assert answer.json() == {"error": "error: attributes.age.hierarchy: The hierarchy spec 'interval:5,x' needs "
                                      "numbers; got 'x'."}
    assert preview(client, "age", "intervals", "5").json()["error"].startswith(
        "error: attributes.age.hierarchy: the builder must be one of auto, interval")
    not_numbers = preview(client, "education", "interval", "5").json()["error"]
    assert not_numbers.startswith("error: ") and "education" in not_numbers and "\n" not in not_numbers
    page = client.post(f"/hierarchies/age?csrf={client.csrf}", data={"builder": "mask", "params": "0"})
    assert page.status_code == 400
    assert html.unescape(re.search(r'id="error" role="alert">([^<]*)<', page.text).group(1)) == (
        "error: age: attributes.age.hierarchy: The hierarchy spec 'mask:0' needs integers above 0; got '0'.")
    assert app.state.workspace.state.config["attributes"]["age"]["hierarchy"] == {"spec": "auto"}


def test_an_unknown_or_non_qi_column_is_refused(adult):
    client, _ = adult
    for name in ("salary-class", "height"):
        answer = preview(client, name, "auto")
        assert answer.status_code == 400
        assert answer.json()["error"] == (f"error: {name!r} is not a quasi-identifier; the quasi-identifiers are: "
                                          + ", ".join(QIS) + ".")


def test_saving_writes_the_entry_a_config_file_holds_and_it_validates(adult):
    client, app = adult
    client.post(f"/hierarchies/age?csrf={client.csrf}", data={"builder": "interval", "params": "5, 10,20"})
    client.post(f"/hierarchies/education?csrf={client.csrf}",
                data={"builder": "file", "file": "adult_hierarchy_education.csv"})
    client.post(f"/hierarchies/native-country?csrf={client.csrf}", data={"builder": "group", "params": "50,500"})
    attributes = app.state.workspace.state.config["attributes"]
    assert attributes["age"] == {"role": "quasi-identifier", "hierarchy": {"spec": "interval:5,10,20"}}
    assert attributes["education"]["hierarchy"] == {"file": "adult_hierarchy_education.csv"}
    assert attributes["native-country"]["hierarchy"] == {"spec": "group:50,500"}
    release = ReleaseConfig(**app.state.workspace.state.config, models=[{"type": "k-anonymity", "k": 5}],
                            base_dir=str(app.state.workspace.root))
    check_consistency(release)
    page = client.get("/hierarchies").text  # the form shows what was saved
    assert 'id="params-1" value="5,10,20"' in page
    roles_page = client.get("/roles")  # saving the roles again keeps the hierarchies
    client.post(f"/roles?csrf={client.csrf}", data={f"role-{i}": "quasi-identifier" for i in range(8)} | {"role-8": "sensitive"})
    assert app.state.workspace.state.config["attributes"]["age"]["hierarchy"] == {"spec": "interval:5,10,20"}
    assert roles_page.status_code == 200


def test_the_download_is_the_arx_csv_veil_reads_back(adult, tmp_path):
    client, app = adult
    client.post(f"/hierarchies/age?csrf={client.csrf}", data={"builder": "interval", "params": "5,10"})
    answer = client.get("/hierarchies/age.csv")
    assert answer.status_code == 200 and answer.headers["content-disposition"] == 'attachment; filename="age-hierarchy.csv"'
    assert answer.text.splitlines()[0] == "17;[15, 20);[10, 20);*"
    (tmp_path / "age.csv").write_text(answer.text)
    h = from_csv(tmp_path / "age.csv")
    assert h.n_levels == 4 and sorted(h.labels[0].tolist(), key=int) == sorted(frame()["age"].unique(), key=int)
    current = client.get("/hierarchies/age.csv", params={"builder": "mask", "params": "1"})  # the unsaved choice
    assert current.text.splitlines()[0] == "17;1*;**"


def test_an_uploaded_hierarchy_is_saved_and_used_when_it_covers_the_column(adult):
    client, app = adult
    rows = "".join(f"{v};{'young' if int(v) < 40 else 'old'};*\n" for v in sorted(frame()["age"].unique(), key=int))
    answer = client.post(f"/hierarchies/age/upload?csrf={client.csrf}", files={"file": ("my age.csv", rows.encode())})
    assert answer.status_code == 200
    root = app.state.workspace.root
    assert (root / "my age.csv").read_text() == rows
    assert app.state.workspace.state.config["attributes"]["age"]["hierarchy"] == {"file": "my age.csv"}
    data = preview(client, "age", "file", file="my age.csv").json()
    young = (frame()["age"].astype(int) < 40).sum()
    assert [r["groups"] for r in data["levels"]] == [72, 2, 1] and data["levels"][1]["smallest"] == min(young, 30162 - young)


def test_an_uploaded_hierarchy_that_misses_a_value_is_refused_and_nothing_is_written(adult):
    client, app = adult
    rows = "".join(f"{v};x;*\n" for v in range(18, 91))  # 17 is missing
    answer = client.post(f"/hierarchies/age/upload?csrf={client.csrf}", files={"file": ("short.csv", rows.encode())},
                         headers=JSON)
    assert answer.status_code == 400
    assert answer.json() == {"error": "error: The hierarchy of column 'age' does not cover the value '17'; add a row "
                                      "for it to the hierarchy."}
    root = app.state.workspace.root
    assert not (root / "short.csv").exists() and not [p for p in root.iterdir() if p.name.startswith(".")]
    assert app.state.workspace.state.config["attributes"]["age"]["hierarchy"] == {"spec": "auto"}
    ragged = client.post(f"/hierarchies/age/upload?csrf={client.csrf}", files={"file": ("r.csv", b"17;x;*\n18;*\n")},
                         headers=JSON).json()["error"]
    assert ragged.startswith("error: ") and "'r.csv'" in ragged and ".upload-" not in ragged
    named_as_data = client.post(f"/hierarchies/age/upload?csrf={client.csrf}",
                                files={"file": ("adult.csv", rows.encode())}, headers=JSON).json()
    assert named_as_data == {"error": "error: 'adult.csv' is the open table; give the hierarchy file another name."}
    traversal = client.post(f"/hierarchies/age/upload?csrf={client.csrf}",
                            files={"file": ("../x.csv", rows.encode())}, headers=JSON)
    assert traversal.status_code == 400 and "not a plain file name" in traversal.json()["error"]


def test_hierarchies_need_saved_roles(web):
    client, _ = web
    client.post(f"/open/adult?csrf={client.csrf}")
    answer = client.get("/hierarchies", headers=JSON)
    assert answer.status_code == 400
    assert answer.json() == {"error": "error: save the roles first (Roles): hierarchies are built for the "
                                      "quasi-identifiers."}


def test_the_preview_refuses_a_body_that_is_not_a_choice(adult):
    client, _ = adult
    bad = client.post("/hierarchies/age/preview", content=b"[1]", headers={"X-CSRF-Token": client.csrf, **JSON})
    assert bad.status_code == 400 and bad.json()["error"].startswith("error: the preview needs a JSON body")
    levels = preview(client, "age", "auto", levels={"sex": "high"})
    assert levels.json() == {"error": "error: levels must map each quasi-identifier to a level number."}
    assert np.isfinite(preview(client, "age", "auto", levels={"sex": 99}).json()["levels"][0]["classes"])


def test_the_configuration_the_pages_wrote_runs_as_a_release(adult):
    """What web-run's Run page does with the state: ``run_config(ReleaseConfig(**config))``, and
    ``veil check`` finds k=5 on the written file with the hierarchies the pages saved."""
    from veil.release import run_config

    client, app = adult
    client.post(f"/hierarchies/age?csrf={client.csrf}", data={"builder": "interval", "params": "5,10,20"})
    client.post(f"/hierarchies/education?csrf={client.csrf}",
                data={"builder": "file", "file": "adult_hierarchy_education.csv"})
    workspace = app.state.workspace
    config = dict(workspace.state.config, models=[{"type": "k-anonymity", "k": 5}], suppression_limit=0.05,
                  output={"path": "release.csv", "report": "report.json", "seed": 1})
    release = ReleaseConfig(**config, base_dir=str(workspace.root))
    check_consistency(release)
    result, written = run_config(release)
    assert (workspace.root / "release.csv").is_file() and result.report["hierarchies"]["age"] == "interval:5,10,20"
    assert result.report["hierarchies"]["education"] == "adult_hierarchy_education.csv"
    released = pd.read_csv(workspace.root / "release.csv", sep=None, engine="python", dtype=str)
    kept = released[released["age"] != "*"]
    assert kept.groupby(QIS, dropna=False).size().min() >= 5


def test_a_column_name_with_a_space_a_slash_and_an_accent_works_in_every_route(web):
    from urllib.parse import quote

    client, app = web
    body = "zip code;âge/years;x\n" + "".join(f"{10000 + i % 4};{20 + i % 30};{i % 2}\n" for i in range(60))
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("odd.csv", body.encode())})
    client.post(f"/roles?csrf={client.csrf}", data={"role-0": "quasi-identifier", "role-1": "quasi-identifier",
                                                    "role-2": "sensitive"})
    for name, builder, params in (("zip code", "mask", "1"), ("âge/years", "interval", "10")):
        path = quote(name, safe="")
        answer = client.post(f"/hierarchies/{path}/preview", json={"builder": builder, "params": params, "file": "",
                                                                    "levels": {}},
                             headers={"X-CSRF-Token": client.csrf, **JSON})
        assert answer.status_code == 200 and answer.json()["qi"] == name
        client.post(f"/hierarchies/{path}?csrf={client.csrf}", data={"builder": builder, "params": params})
        assert app.state.workspace.state.config["attributes"][name]["hierarchy"] == {"spec": f"{builder}:{params}"}
        assert client.get(f"/hierarchies/{path}.csv").status_code == 200
        assert client.get(f"/column/{path}/values", headers=JSON).json()["column"] == name
    assert client.get("/hierarchies").status_code == 200
