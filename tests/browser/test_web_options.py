"""The algorithm's options on the Models page in headless Chromium: the chosen algorithm's fields
only (generated from its declared options), saved as typed values that the run uses."""

from __future__ import annotations

import pytest

from tests.browser.waits import until

pytestmark = pytest.mark.browser
WAIT = 120


def test_choosing_an_algorithm_shows_its_options_and_the_run_uses_them(chrome, web_server, screenshot, tmp_path):
    import numpy as np
    import pandas as pd
    import yaml
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"age": rng.integers(18, 90, 500), "sex": rng.choice(["female", "male"], 500),
                          "zip": rng.choice([f"1{i:04d}" for i in range(20)], 500)})
    path = tmp_path / "clinic-options.csv"
    frame.to_csv(path, index=False)
    chrome.get(web_server.url)
    closers = chrome.find_elements(By.CSS_SELECTOR, "form[action^='/close'] button")
    if closers:  # the module's server may have another table open
        closers[0].click()
        until(chrome, lambda d: d.find_elements(By.ID, "upload-file"), "no upload form", WAIT)
    chrome.find_element(By.ID, "upload-file").send_keys(str(path))
    chrome.find_element(By.CSS_SELECTOR, "#upload button[type=submit]").click()
    until(chrome, lambda d: d.find_elements(By.ID, "columns"), "no columns", WAIT)

    chrome.get(web_server.origin + "/models")
    algorithm = Select(chrome.find_element(By.ID, "algorithm"))
    assert algorithm.first_selected_option.get_attribute("value") == "lattice"
    assert chrome.find_element(By.ID, "no-options").is_displayed()
    assert not chrome.find_element(By.ID, "options-mondrian").is_displayed()
    algorithm.select_by_value("mondrian")
    until(chrome, lambda d: d.find_element(By.ID, "options-mondrian").is_displayed(), "mondrian's options hidden", WAIT)
    assert not chrome.find_element(By.ID, "no-options").is_displayed()
    assert not chrome.find_element(By.ID, "options-safepub").is_displayed()
    strict = chrome.find_element(By.ID, "option.mondrian.strict")
    assert strict.is_selected()  # its declared default
    strict.click()
    seed = chrome.find_element(By.ID, "option.mondrian.seed")
    assert seed.get_attribute("min") == "0" and seed.get_attribute("type") == "number"
    seed.send_keys("3")
    chrome.execute_script("document.getElementById('options-mondrian').scrollIntoView()")
    screenshot("models-mondrian-options")
    chrome.find_element(By.ID, "save-models").click()
    until(chrome, lambda d: d.current_url.endswith("/run") and d.find_elements(By.ID, "config-yaml"), "not on Run", WAIT)
    document = yaml.safe_load(chrome.find_element(By.ID, "config-yaml").text)
    assert document["algorithm"] == "mondrian" and document["algorithm_options"] == {"strict": False, "seed": 3}
    chrome.find_element(By.ID, "run").click()
    until(chrome, lambda d: d.current_url.endswith("/results") and d.find_elements(By.ID, "summary"), "no results", WAIT)
    figures = {r.get_attribute("data-figure"): r.get_attribute("data-value")
               for r in chrome.find_elements(By.CSS_SELECTOR, "#summary tr[data-figure]")}
    assert int(figures["k"]) >= 5 and figures["verified"] == "True"
    screenshot("results-mondrian-options")
