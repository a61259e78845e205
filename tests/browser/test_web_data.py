"""`veil serve` in headless Chromium: the start URL logs in, the bundled Adult opens, its columns show."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_start_url_opens_the_app_and_adult_shows_its_columns(chrome, web_server, screenshot):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chrome.get(web_server.url)
    assert chrome.current_url == web_server.origin + "/"  # the token left the address bar
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Open a table"
    screenshot("open")
    chrome.find_element(By.ID, "adult").click()
    WebDriverWait(chrome, 30).until(lambda d: d.find_elements(By.ID, "columns"), chrome.page_source[:2000])
    rows = chrome.find_elements(By.CSS_SELECTOR, "#columns tbody tr")
    assert [r.get_attribute("data-column") for r in rows][:3] == ["sex", "age", "race"]
    assert len(rows) == 9
    assert chrome.find_element(By.ID, "current-file").text == "adult.csv"
    screenshot("columns")
