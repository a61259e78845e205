"""A risk-only flow in headless Chromium: open Adult, choose the QIs, see `veil risk`'s figures and
the class-size histogram."""

from __future__ import annotations

import pytest

from tests.browser.waits import until

pytestmark = pytest.mark.browser

ADULT_QIS = {"sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"}


def test_risk_only_flow_on_adult(chrome, web_server, screenshot):
    from selenium.webdriver.common.by import By

    chrome.get(web_server.url)
    chrome.find_element(By.ID, "adult").click()
    until(chrome, lambda d: d.find_elements(By.ID, "columns"), seconds=30)
    chrome.find_element(By.LINK_TEXT, "Risk").click()
    until(chrome, lambda d: d.find_elements(By.ID, "risk-form"), seconds=30)
    ticked = [box.get_attribute("value") for box in chrome.find_elements(By.CSS_SELECTOR, "#risk-qis input")
              if box.is_selected()]
    assert {"sex", "age", "race", "education"} <= set(ticked)  # the scanner's suggestions
    for box in chrome.find_elements(By.CSS_SELECTOR, "#risk-qis input"):  # the eight QIs of Adult
        if box.is_selected() != (box.get_attribute("value") in ADULT_QIS):
            box.click()
    screenshot("choose-qis")
    chrome.find_element(By.ID, "risk-run").click()
    until(chrome, lambda d: d.find_elements(By.ID, "risk-figures"), seconds=120)
    uniques = chrome.find_element(By.ID, "risk-uniques").text
    assert uniques == "46.5%"  # veil risk adult.csv --qi (all 8): sample uniques 0.46486 (14,021 of 30,162)
    assert chrome.find_element(By.ID, "risk-prosecutor").text == "100.0%"
    histogram = chrome.find_element(By.ID, "class-size-histogram")
    chrome.execute_script("arguments[0].scrollIntoView()", histogram)
    assert histogram.is_displayed()
    assert chrome.execute_script("return arguments[0].complete && arguments[0].naturalWidth", histogram) > 100
    assert chrome.find_element(By.ID, "individual-histogram").is_displayed()
    screenshot("figures")
    assert "Never-married" not in chrome.page_source  # no value of the table on the page
