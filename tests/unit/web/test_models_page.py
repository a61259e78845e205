"""The Models page: forms generated from the registries, the configuration's own checks, the
defaults, and the records violating k = 2, 3, 5 before anonymization."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from veil.config import load_config
from veil.errors import ConfigError
from veil.models import PrivacyModel
from veil.models._facts import Param
from veil.models.registry import registered


def open_table(app, frame: pd.DataFrame, attributes: dict) -> None:
    workspace = app.state.workspace
    workspace.write_bytes("people.csv", frame.to_csv(index=False).encode())
    workspace.state.data, workspace.state.config = "people.csv", {"attributes": attributes}


ROLES = {"zip": {"role": "quasi-identifier", "hierarchy": {"spec": "mask:1"}},
         "sex": {"role": "quasi-identifier", "hierarchy": {"flat": True}},
         "disease": {"role": "sensitive"}, "income": {"role": "sensitive"}, "note": {"role": "insensitive"}}


def small_table() -> pd.DataFrame:
    # classes on (zip, sex): (111, f) x1, (111, m) x2, (112, f) x3, (113, m) x4 -> sizes 1, 2, 3, 4
    rows = [("111", "f")] + [("111", "m")] * 2 + [("112", "f")] * 3 + [("113", "m")] * 4
    frame = pd.DataFrame(rows, columns=["zip", "sex"])
    frame["disease"] = ["flu", "hiv", "flu", "cold", "flu", "hiv", "flu", "cold", "hiv", "flu"]
    frame["income"] = ["low", "high"] * 5
    frame["note"] = ["x"] * 10
    return frame


@dataclass(frozen=True)
class Dummy(PrivacyModel):
    """A test model: every class holds at least ``m`` records (or ``strict``er)."""

    m: int
    share: float = 0.25
    strict: bool = False

    config_key: ClassVar[str] = "dummy-model"
    label: ClassVar[str] = "dummy {m}"
    parameters: ClassVar[tuple[Param, ...]] = (Param("m", "int", low=3, high=40), Param("share", "float", low=0, high=1),
                                              Param("strict", "bool"))

    def violating(self, classes):
        return np.asarray(classes.counts) < self.m

    def achieved_level(self, classes):
        return int(np.asarray(classes.counts).min()) if classes.n_classes else 0


def test_a_model_added_to_the_registry_gets_its_form_without_web_code(web):
    client, app = web
    open_table(app, small_table(), ROLES)
    assert 'id="model-dummy-model"' not in client.get("/models").text
    with registered(Dummy):
        page = client.get("/models").text
        block = page[page.index('id="model-dummy-model"'):]
        block = block[:block.index("</fieldset>")]
        assert 'name="dummy-model.m"' in block and 'min="3"' in block and 'max="40"' in block and 'step="1"' in block
        assert 'name="dummy-model.share"' in block and 'value="0.25"' in block and 'step="any"' in block
        assert 'type="checkbox" name="dummy-model.strict"' in block
        assert "an int in [3, 40]" in block
        answer = client.post(f"/models?csrf={client.csrf}", follow_redirects=False,
                             data={"model": ["dummy-model"], "dummy-model.m": "7", "dummy-model.share": "0.5",
                                   "dummy-model.strict": "1", "suppression": "2", "metric": "loss",
                                   "algorithm": "lattice"})
        assert answer.status_code == 303 and answer.headers["location"] == "/run"
        config = app.state.workspace.state.config
        assert config["models"] == [{"type": "dummy-model", "m": 7, "share": 0.5, "strict": True}]
        assert config["suppression_limit"] == 0.02 and config["metric"] == "loss" and config["algorithm"] == "lattice"


def test_defaults_are_k5_five_percent_loss_and_lattice(web):
    client, app = web
    open_table(app, small_table(), ROLES)
    page = client.get("/models").text
    assert re.search(r'id="use-k-anonymity" checked', page)
    assert 'name="k-anonymity.k" id="k-anonymity.k" value="5"' in page
    assert 'id="suppression" min="0" max="100" step="any" value="5"' in page
    assert '<option value="loss" selected>' in page and '<option value="lattice" data-options="no" selected>' in page


def test_sensitive_models_offer_the_sensitive_columns_and_give_one_entry_per_column(web):
    client, app = web
    open_table(app, small_table(), ROLES)
    page = client.get("/models").text
    block = page[page.index('id="model-distinct-l-diversity"'):]
    block = block[:block.index("</fieldset>")]
    offered = re.findall(r'name="distinct-l-diversity.sensitive" value="([^"]+)"', block)
    assert offered == ["disease", "income"]  # not the QIs, not the insensitive column
    client.post(f"/models?csrf={client.csrf}", data={
        "model": ["k-anonymity", "distinct-l-diversity"], "k-anonymity.k": "2", "distinct-l-diversity.l": "2",
        "distinct-l-diversity.sensitive": ["disease", "income"], "suppression": "0", "metric": "loss",
        "algorithm": "lattice"})
    assert app.state.workspace.state.config["models"] == [
        {"type": "k-anonymity", "k": 2},
        {"type": "distinct-l-diversity", "sensitive": "disease", "l": 2},
        {"type": "distinct-l-diversity", "sensitive": "income", "l": 2},
    ]


def _cli_error(tmp_path, models_yaml: str) -> str:
    """The message `veil anonymize CONFIG` gives for these models (load_config: the CLI's reader)."""
    (tmp_path / "people.csv").write_text("zip,sex,disease\n1,f,a\n")
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: people.csv}\nattributes:\n  zip: {role: quasi-identifier, hierarchy: {flat: true}}\n"
                      "  disease: {role: sensitive}\n" + models_yaml)
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    return f"error: {caught.value}"


def test_a_bad_parameter_is_the_cli_one_line_error_and_changes_nothing(web, tmp_path):
    client, app = web
    open_table(app, small_table(), ROLES)
    before = dict(app.state.workspace.state.config)
    page = client.post(f"/models?csrf={client.csrf}", data={
        "model": ["k-anonymity"], "k-anonymity.k": "0", "suppression": "5", "metric": "loss", "algorithm": "lattice"})
    assert page.status_code == 400
    expected = _cli_error(tmp_path, "models: [{type: k-anonymity, k: 0}]\n")
    assert "must be an int in [1, inf). Got 0 instead." in expected
    assert f'role="alert">{expected.replace(chr(39), "&#39;")}</p>' in page.text
    assert app.state.workspace.state.config == before
    assert 'name="k-anonymity.k" id="k-anonymity.k" value="0"' in page.text  # the steward's value is kept to fix


def test_no_model_and_a_bad_limit_are_refused(web):
    client, app = web
    open_table(app, small_table(), ROLES)
    page = client.post(f"/models?csrf={client.csrf}", data={"suppression": "5", "metric": "loss", "algorithm": "lattice"})
    assert page.status_code == 400 and "error: models: choose at least one privacy model." in page.text
    page = client.post(f"/models?csrf={client.csrf}", data={"model": ["k-anonymity"], "k-anonymity.k": "2",
                                                            "suppression": "150", "metric": "loss", "algorithm": "lattice"})
    assert page.status_code == 400 and "suppression_limit must be between 0% and 100%." in page.text
    page = client.post(f"/models?csrf={client.csrf}", data={"model": ["k-anonymity"], "k-anonymity.k": "2",
                                                            "suppression": "5", "metric": "loss", "algorithm": "mondrian",
                                                            "option.mondrian.seed": "-1"})
    assert page.status_code == 400
    assert "error: The &#39;seed&#39; option of mondrian must be an int in [0, inf). Got -1 instead." in page.text
    assert 'name="option.mondrian.seed" id="option.mondrian.seed" value="-1"' in page.text  # kept, to fix


def test_violation_counts_before_are_the_records_in_classes_smaller_than_k(web):
    client, app = web
    open_table(app, small_table(), ROLES)  # class sizes 1, 2, 3, 4 on (zip, sex)
    page = client.get("/models").text
    counts = dict(re.findall(r'<tr data-k="(\d)"><td>\d</td><td class="num violating">(\d+)</td>', page))
    assert counts == {"2": "1", "3": "3", "5": "10"}  # k=2: the 1; k=3: 1 + 2; k=5: all 10


def test_the_page_says_what_is_missing_before_a_table_and_roles(web):
    client, app = web
    assert 'id="no-data"' in client.get("/models").text
    open_table(app, small_table(), {"disease": {"role": "sensitive"}})
    assert 'id="no-qis"' in client.get("/models").text
