"""The whole Adult flow in headless Chromium: open Adult, roles (8 quasi-identifiers, salary-class
sensitive), hierarchies by builder, 5-anonymity + distinct 2-diversity, run, results; the results
show the figures `veil anonymize` gives on the downloaded configuration, and the downloaded release
passes `veil check` with the same k and l.

Roles and hierarchies go through the Roles and Hierarchies pages when the server has them;
otherwise through the Run page's "Start from a configuration file" form, with builder specs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
#: The hierarchies, by builder (no file): intervals for age, the automatic choice for the others.
BUILDERS = {"age": "interval:5,10,20", **{q: "auto" for q in QIS if q != "age"}}
WAIT = 180


def _wait(chrome, condition, message=""):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(chrome, WAIT).until(condition, message)


def _roles_by_form(chrome, origin):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    chrome.get(origin + "/roles")
    for column in [*QIS, "salary-class"]:
        select = chrome.find_element(By.CSS_SELECTOR, f'select[data-role-for="{column}"]')
        Select(select).select_by_value("sensitive" if column == "salary-class" else "quasi-identifier")
    chrome.find_element(By.ID, "save-roles").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "next-hierarchies"))
    chrome.get(origin + "/hierarchies")
    section = chrome.find_element(By.CSS_SELECTOR, 'section[data-qi="age"]')
    Select(section.find_element(By.CSS_SELECTOR, "select.builder-select")).select_by_value("interval")
    params = section.find_element(By.CSS_SELECTOR, "input.params")
    params.clear()
    params.send_keys("5,10,20")
    section.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    _wait(chrome, lambda d: "interval:5,10,20" in d.find_element(By.CSS_SELECTOR, 'section[data-qi="age"]').text)


def _roles_by_configuration(chrome, origin):
    from selenium.webdriver.common.by import By

    lines = ["attributes:"]
    for q in QIS:
        kind = ", kind: numeric" if q == "age" else ""
        lines.append(f"  {q}: {{role: quasi-identifier{kind}, hierarchy: '{BUILDERS[q]}'}}")
    lines.append("  salary-class: {role: sensitive}")
    chrome.get(origin + "/run")
    chrome.find_element(By.CSS_SELECTOR, "#load-config summary").click()
    chrome.find_element(By.ID, "config-text").send_keys("\n".join(lines) + "\n")
    chrome.find_element(By.ID, "load-config-button").click()
    _wait(chrome, lambda d: "salary-class:" in d.find_element(By.ID, "config-yaml").text)


def _fetch(chrome, path: str) -> str:
    """A download, fetched by the page itself (its session cookie, its origin)."""
    return chrome.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"fetch({json.dumps(path)}).then(r => r.text()).then(done);")


def _veil(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    return subprocess.run([sys.executable, "-m", "veil", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_whole_adult_flow(chrome, web_server, screenshot, tmp_path):  # noqa: PLR0915 - one story, step by step
    from selenium.webdriver.common.by import By

    origin = web_server.origin
    chrome.get(web_server.url)
    chrome.find_element(By.ID, "adult").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "columns"))
    screenshot("1-open")

    nav = [a.text for a in chrome.find_elements(By.CSS_SELECTOR, "header nav a")]
    (_roles_by_form if "Roles" in nav else _roles_by_configuration)(chrome, origin)
    screenshot("2-roles-and-hierarchies")

    chrome.get(origin + "/models")
    counts = {row.get_attribute("data-k"): row.find_element(By.CSS_SELECTOR, ".violating").text
              for row in chrome.find_elements(By.CSS_SELECTOR, "#violations-before tr[data-k]")}
    assert set(counts) == {"2", "3", "5"} and all(counts.values())
    assert chrome.find_element(By.ID, "use-k-anonymity").is_selected()
    assert chrome.find_element(By.ID, "k-anonymity.k").get_attribute("value") == "5"
    chrome.find_element(By.ID, "use-distinct-l-diversity").click()
    l_field = chrome.find_element(By.ID, "distinct-l-diversity.l")
    l_field.clear()
    l_field.send_keys("2")
    sensitive = chrome.find_element(By.CSS_SELECTOR, 'input[name="distinct-l-diversity.sensitive"][value="salary-class"]')
    assert sensitive.is_selected()
    screenshot("3-models")
    chrome.find_element(By.ID, "save-models").click()
    _wait(chrome, lambda d: d.current_url.startswith(origin + "/run"))
    shown = chrome.find_element(By.ID, "config-yaml").text
    assert "distinct-l-diversity" in shown and "sensitive: salary-class" in shown
    screenshot("4-run")

    chrome.find_element(By.ID, "run").click()
    _wait(chrome, lambda d: d.current_url == origin + "/results" and d.find_elements(By.ID, "summary"),
          "the run did not reach the results")
    figures = {row.get_attribute("data-figure"): row.get_attribute("data-value")
               for row in chrome.find_elements(By.CSS_SELECTOR, "#summary tr[data-figure]")}
    levels = {row.get_attribute("data-column"): int(row.get_attribute("data-level"))
              for row in chrome.find_elements(By.CSS_SELECTOR, "#levels tr[data-level]")}
    assert chrome.find_element(By.ID, "verified").text.startswith("met and verified")
    assert chrome.find_element(By.ID, "risk-chart").is_displayed()
    screenshot("5-results")

    # the lattice: the least generalized solutions; a click shows a node's figures
    _wait(chrome, lambda d: d.find_elements(By.CSS_SELECTOR, "#frontier button.node"), "no lattice")
    chrome.find_element(By.CSS_SELECTOR, "#frontier button.node.chosen").click()
    _wait(chrome, lambda d: d.find_elements(By.CSS_SELECTOR, "#node-figures tr[data-figure=k]"))
    node = {r.get_attribute("data-figure"): r.find_element(By.TAG_NAME, "td").text
            for r in chrome.find_elements(By.CSS_SELECTOR, "#node-figures tr[data-figure]")}
    assert node["satisfied"] == "yes" and node["suppressed"].startswith(f"{int(figures['suppressed'])} ")
    chrome.execute_script("document.getElementById('node').scrollIntoView()")
    screenshot("6-node")

    # the downloaded configuration, run by the CLI beside a copy of the data: the same figures
    (tmp_path / "release-config.yaml").write_text(_fetch(chrome, "/results/download/config"))
    (tmp_path / "downloaded-release.csv").write_text(_fetch(chrome, "/results/download/release"))
    from veil.datasets import adult_path

    shutil.copy(adult_path(), tmp_path / "adult.csv")
    run = _veil("anonymize", "release-config.yaml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["transformation"] == levels
    assert int(figures["k"]) == report["achieved"]["k"] >= 5
    assert int(figures["suppressed"]) == report["suppressed"]
    assert float(figures["loss"]) == report["utility"]["loss"]
    assert int(figures["records"]) == report["records"] == 30162

    check = _veil("check", "downloaded-release.csv", "--qi", ",".join(QIS), "--sensitive", "salary-class",
                  "--require", "k>=5,l[salary-class]>=2", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
