"""DP in headless Chromium: a count answered under the workspace ledger, then a query over the
budget refused with the CLI's one-line error and the ledger unchanged."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def _ask(chrome, queries: str, epsilon: str) -> None:
    from selenium.webdriver.common.by import By

    box = chrome.find_element(By.ID, "queries")
    box.clear()
    box.send_keys(queries)
    field = chrome.find_element(By.ID, "epsilon")
    field.clear()
    field.send_keys(epsilon)
    chrome.find_element(By.ID, "ask").click()


def test_a_count_is_answered_and_a_query_over_the_budget_refused(chrome, web_server, screenshot):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chrome.get(web_server.url)
    chrome.find_element(By.ID, "adult").click()
    WebDriverWait(chrome, 30).until(lambda d: d.find_elements(By.ID, "columns"))
    chrome.find_element(By.LINK_TEXT, "DP").click()
    WebDriverWait(chrome, 30).until(lambda d: d.find_elements(By.ID, "budget-form"))
    budget = chrome.find_element(By.ID, "budget")
    budget.clear()
    budget.send_keys("1")
    chrome.find_element(By.ID, "set-budget").click()
    WebDriverWait(chrome, 30).until(lambda d: d.find_elements(By.ID, "query-form"))
    assert chrome.find_element(By.ID, "ledger-remaining").text == "1"

    _ask(chrome, "count where age > 40", "0.6")
    WebDriverWait(chrome, 30).until(lambda d: d.find_elements(By.ID, "answers-table"))
    answer = chrome.find_element(By.CSS_SELECTOR, "#answers-table tr.answer")
    assert answer.text.startswith("count where age > 40")
    assert chrome.find_element(By.ID, "ledger-remaining").text == "0.4"
    spends = chrome.find_elements(By.CSS_SELECTOR, "#ledger-spends tbody tr")
    assert len(spends) == 1
    screenshot("answered")

    _ask(chrome, "count", "0.5")
    WebDriverWait(chrome, 30).until(lambda d: d.find_elements(By.ID, "error"))
    error = chrome.find_element(By.ID, "error")
    assert error.is_displayed()
    assert error.text.startswith("error: The budget's epsilon is short: the 1 queries cost epsilon=0.5")
    assert "nothing was spent" in error.text
    assert chrome.find_element(By.ID, "ledger-remaining").text == "0.4"  # the ledger unchanged
    assert len(chrome.find_elements(By.CSS_SELECTOR, "#ledger-spends tbody tr")) == 1
    assert not chrome.find_elements(By.ID, "answers-table")
    screenshot("refused")
