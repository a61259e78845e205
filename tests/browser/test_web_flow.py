"""The whole Adult flow in headless Chromium: open Adult, roles (8 quasi-identifiers, salary-class
sensitive), hierarchies by builder, 5-anonymity + distinct 2-diversity, run, results; the results
show the figures `veil anonymize` gives on the downloaded configuration, and the downloaded release
passes `veil check` with the same k and l.

Roles and hierarchies go through the Roles and Hierarchies pages' forms: age by intervals, the
other quasi-identifiers by the automatic builder (no hierarchy file).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.waits import until

pytestmark = pytest.mark.browser

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
WAIT = 180


def _wait(chrome, condition, message=""):
    return until(chrome, condition, message, WAIT)


def _roles_and_hierarchies(chrome, origin, screenshot):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    chrome.get(origin + "/roles")
    for column in [*QIS, "salary-class"]:
        select = chrome.find_element(By.CSS_SELECTOR, f'select[data-role-for="{column}"]')
        Select(select).select_by_value("sensitive" if column == "salary-class" else "quasi-identifier")
    chrome.find_element(By.ID, "save-roles").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "next-hierarchies"))
    screenshot("2-roles")
    chrome.get(origin + "/hierarchies")
    section = chrome.find_element(By.CSS_SELECTOR, 'section[data-qi="age"]')
    Select(section.find_element(By.CSS_SELECTOR, "select.builder-select")).select_by_value("interval")
    params = section.find_element(By.CSS_SELECTOR, "input.params")
    params.clear()
    params.send_keys("5,10,20")
    section.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    saved_age = 'section[data-qi="age"] code.saved-entry'
    _wait(chrome, lambda d: d.find_element(By.CSS_SELECTOR, saved_age).text == "interval:5,10,20")
    for qi in QIS:  # every hierarchy is a builder's: intervals for age, the automatic choice for the others
        saved = chrome.find_element(By.CSS_SELECTOR, f'section[data-qi="{qi}"] code.saved-entry').text
        assert saved == ("interval:5,10,20" if qi == "age" else "auto"), (qi, saved)
    chrome.execute_script("document.querySelector('section[data-qi=\"age\"]').scrollIntoView()")
    screenshot("3-hierarchies")


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

    _roles_and_hierarchies(chrome, origin, screenshot)

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
    screenshot("4-models")
    chrome.find_element(By.ID, "save-models").click()
    _wait(chrome, lambda d: d.current_url.startswith(origin + "/run"))
    shown = chrome.find_element(By.ID, "config-yaml").text
    assert "distinct-l-diversity" in shown and "sensitive: salary-class" in shown
    screenshot("5-run")

    chrome.find_element(By.ID, "run").click()
    _wait(chrome, lambda d: d.current_url == origin + "/results" and d.find_elements(By.ID, "summary"),
          "the run did not reach the results")
    figures = {row.get_attribute("data-figure"): row.get_attribute("data-value")
               for row in chrome.find_elements(By.CSS_SELECTOR, "#summary tr[data-figure]")}
    levels = {row.get_attribute("data-column"): int(row.get_attribute("data-level"))
              for row in chrome.find_elements(By.CSS_SELECTOR, "#levels tr[data-level]")}
    assert chrome.find_element(By.ID, "verified").text.startswith("met and verified")
    assert chrome.find_element(By.ID, "risk-chart").is_displayed()
    screenshot("6-results")

    # the lattice: the least generalized solutions; a click shows a node's figures
    _wait(chrome, lambda d: d.find_elements(By.CSS_SELECTOR, "#frontier button.node"), "no lattice")
    chrome.find_element(By.CSS_SELECTOR, "#frontier button.node.chosen").click()
    _wait(chrome, lambda d: d.find_elements(By.CSS_SELECTOR, "#node-figures tr[data-figure=k]"))
    node = {r.get_attribute("data-figure"): r.find_element(By.TAG_NAME, "td").text
            for r in chrome.find_elements(By.CSS_SELECTOR, "#node-figures tr[data-figure]")}
    assert node["satisfied"] == "yes" and node["suppressed"].startswith(f"{int(figures['suppressed'])} ")
    chrome.execute_script("document.getElementById('node').scrollIntoView()")
    screenshot("7-node")
    # any node: every quasi-identifier at its top level puts all the records in one group
    from selenium.webdriver.support.ui import Select

    for select in chrome.find_elements(By.CSS_SELECTOR, "#node-picker select"):
        Select(select).select_by_index(len(select.find_elements(By.TAG_NAME, "option")) - 1)
    chrome.find_element(By.ID, "show-node").click()
    _wait(chrome, lambda d: d.find_element(By.CSS_SELECTOR, "#node-figures tr[data-figure=k] td").text == "30162")
    assert chrome.find_element(By.CSS_SELECTOR, "#node-figures tr[data-figure=classes] td").text == "1"
    screenshot("8-top-node")

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


def test_an_own_csv_runs_with_the_defaults_alone(chrome, web_server, screenshot, tmp_path):
    """A steward who opens their own CSV and presses Run: the scanner's roles, automatic
    hierarchies and 5-anonymity with 5 % suppression give a verified release."""
    import numpy as np
    import pandas as pd
    from selenium.webdriver.common.by import By

    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"age": rng.integers(18, 90, 600), "zip": rng.choice([f"1{i:04d}" for i in range(40)], 600),
                          "sex": rng.choice(["female", "male"], 600), "diagnosis": rng.choice(["flu", "asthma", "gout"], 600)})
    path = tmp_path / "clinic.csv"
    frame.to_csv(path, index=False)
    chrome.get(web_server.url)
    closers = chrome.find_elements(By.CSS_SELECTOR, "form[action^='/close'] button")
    if closers:  # the module's server may still have Adult open
        closers[0].click()
        _wait(chrome, lambda d: d.find_elements(By.ID, "upload-file"))
    chrome.find_element(By.ID, "upload-file").send_keys(str(path))
    chrome.find_element(By.CSS_SELECTOR, "#upload button[type=submit]").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "columns"))
    chrome.find_element(By.LINK_TEXT, "Run").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "config-yaml"))
    assert chrome.find_element(By.ID, "suggested-roles").is_displayed()
    screenshot("run-with-defaults")
    chrome.find_element(By.ID, "run").click()
    _wait(chrome, lambda d: d.current_url.endswith("/results") and d.find_elements(By.ID, "summary"))
    figures = {r.get_attribute("data-figure"): r.get_attribute("data-value")
               for r in chrome.find_elements(By.CSS_SELECTOR, "#summary tr[data-figure]")}
    assert int(figures["k"]) >= 5 and figures["verified"] == "True"
    screenshot("results-with-defaults")


def test_use_these_levels_and_ticking_dp(chrome, web_server, screenshot, tmp_path):
    """The usability pass: a node of the lattice becomes the configuration ("Use these levels"),
    and ticking dp sets and locks what SafePub requires on the Models page."""
    import numpy as np
    import pandas as pd
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rng = np.random.default_rng(11)
    frame = pd.DataFrame({"age": rng.integers(18, 90, 400), "sex": rng.choice(["female", "male"], 400),
                          "zip": rng.choice([f"1{i:04d}" for i in range(20)], 400)})
    path = tmp_path / "ward.csv"
    frame.to_csv(path, index=False)
    chrome.get(web_server.url)
    closers = chrome.find_elements(By.CSS_SELECTOR, "form[action^='/close'] button")
    if closers:
        closers[0].click()
        _wait(chrome, lambda d: d.find_elements(By.ID, "upload-file"))
    chrome.find_element(By.ID, "upload-file").send_keys(str(path))
    chrome.find_element(By.CSS_SELECTOR, "#upload button[type=submit]").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "columns"))
    chrome.get(web_server.origin + "/run")
    chrome.find_element(By.ID, "run").click()
    _wait(chrome, lambda d: d.current_url.endswith("/results") and d.find_elements(By.ID, "summary"))
    _wait(chrome, lambda d: d.find_elements(By.CSS_SELECTOR, "#node-picker select"), "no lattice")
    selects = chrome.find_elements(By.CSS_SELECTOR, "#node-picker select")
    names = [s.get_attribute("name") for s in selects]
    tops = []
    for select in selects:
        options = select.find_elements(By.TAG_NAME, "option")
        Select(select).select_by_index(len(options) - 1)
        tops.append(len(options) - 1)
    chrome.find_element(By.ID, "show-node").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "use-levels"), "no Use these levels button")
    chrome.execute_script("document.getElementById('node').scrollIntoView()")
    screenshot("ux-use-levels")
    chrome.find_element(By.ID, "use-levels").click()
    _wait(chrome, lambda d: d.current_url.endswith("/run") and d.find_elements(By.ID, "config-yaml"))
    import yaml

    document = yaml.safe_load(chrome.find_element(By.ID, "config-yaml").text)
    assert {n: (document["attributes"][n]["min_level"], document["attributes"][n]["max_level"]) for n in names} == {
        n: (t, t) for n, t in zip(names, tops)}
    assert chrome.find_element(By.ID, "config-changed").is_displayed()  # the last run's "done" is not shown
    assert not chrome.find_element(By.ID, "job-progress").is_displayed()
    screenshot("ux-run-after-levels")

    chrome.get(web_server.origin + "/models")
    more = chrome.find_element(By.ID, "more-models")
    assert not chrome.find_element(By.ID, "use-dp").is_displayed()  # folded under "More privacy models"
    more.find_element(By.TAG_NAME, "summary").click()
    chrome.find_element(By.ID, "use-dp").click()
    assert Select(chrome.find_element(By.ID, "algorithm")).first_selected_option.get_attribute("value") == "safepub"
    suppression = chrome.find_element(By.ID, "suppression")
    assert suppression.get_attribute("value") == "100" and suppression.get_attribute("readonly") is not None
    assert chrome.find_element(By.ID, "dp.delta").get_attribute("value") == "1e-05"
    chrome.execute_script("document.getElementById('model-dp').scrollIntoView()")
    screenshot("ux-models-dp")


def test_k_map_against_a_population_then_the_release_evaluated_with_its_run(chrome, web_server, screenshot, tmp_path):
    """A sample of a population: the population added on the Models page without replacing the open
    table, k-map chosen with it, a verified release; the Evaluate page then proposes the run's report
    and matches the release through the run's hierarchies."""
    import numpy as np
    import pandas as pd
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rng = np.random.default_rng(5)
    population = pd.DataFrame({"age": rng.integers(18, 90, 3000), "sex": rng.choice(["female", "male"], 3000),
                               "zip": rng.choice([f"1{i:04d}" for i in range(8)], 3000),
                               "diagnosis": rng.choice(["flu", "asthma", "gout"], 3000)})
    population.to_csv(tmp_path / "census.csv", index=False)
    population.sample(500, random_state=5).to_csv(tmp_path / "survey.csv", index=False)
    chrome.get(web_server.url)
    closers = chrome.find_elements(By.CSS_SELECTOR, "form[action^='/close'] button")
    if closers:
        closers[0].click()
        _wait(chrome, lambda d: d.find_elements(By.ID, "upload-file"))
    chrome.find_element(By.ID, "upload-file").send_keys(str(tmp_path / "survey.csv"))
    chrome.find_element(By.CSS_SELECTOR, "#upload button[type=submit]").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "columns"))
    chrome.get(web_server.origin + "/models")
    chrome.find_element(By.ID, "population-file").send_keys(str(tmp_path / "census.csv"))
    chrome.find_element(By.ID, "population-add").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "use-k-map") and
          d.find_element(By.ID, "use-k-map").get_attribute("disabled") is None)
    chrome.find_element(By.CSS_SELECTOR, "#more-models summary").click()
    chrome.find_element(By.ID, "use-k-map").click()
    k = chrome.find_element(By.ID, "k-map.k")
    k.clear()
    k.send_keys("10")
    population_choice = Select(chrome.find_element(By.ID, "k-map.population"))
    assert "census.csv" in [o.text for o in population_choice.options]
    assert "survey.csv" not in [o.text for o in population_choice.options]  # not its own population
    population_choice.select_by_visible_text("census.csv")
    chrome.execute_script("document.getElementById('model-k-map').scrollIntoView()")
    screenshot("models-k-map")
    chrome.find_element(By.ID, "save-models").click()
    _wait(chrome, lambda d: d.current_url.endswith("/run") and d.find_elements(By.ID, "config-yaml"))
    assert "population: census.csv" in chrome.find_element(By.ID, "config-yaml").text
    chrome.find_element(By.ID, "run").click()
    _wait(chrome, lambda d: d.current_url.endswith("/results") and d.find_elements(By.ID, "summary"))
    figures = {r.get_attribute("data-figure"): r.get_attribute("data-value")
               for r in chrome.find_elements(By.CSS_SELECTOR, "#summary tr[data-figure]")}
    assert figures["verified"] == "True", figures
    screenshot("results-k-map")

    chrome.find_element(By.LINK_TEXT, "Evaluate").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "evaluate-form"))
    release = chrome.find_element(By.CSS_SELECTOR, "#eval-release option:checked").text
    assert release.startswith("run-") and release.endswith("-release.csv")
    report = chrome.find_element(By.CSS_SELECTOR, "#eval-report option:checked").text
    assert report == release.replace("-release.csv", "-report.json")
    chrome.find_element(By.CSS_SELECTOR, '#evaluate-form input[name="attacks"][value="singling-out"]').click()
    n_attacks = chrome.find_element(By.NAME, "n_attacks")
    n_attacks.clear()
    n_attacks.send_keys("60")
    chrome.find_element(By.CSS_SELECTOR, '#evaluate-form input[name="seed"]').send_keys("1")
    chrome.find_element(By.ID, "evaluate-run").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "evaluation-table") or d.find_elements(By.ID, "error"))
    assert "through the run's hierarchies" in chrome.find_element(By.ID, "evaluation-facts").text
    screenshot("evaluated-with-run")
