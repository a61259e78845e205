"""DP in headless Chromium: a count answered under the workspace ledger, then a query over the
budget refused with the CLI's one-line error and the ledger unchanged."""

from __future__ import annotations

import pytest

from tests.browser.waits import until

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

    chrome.get(web_server.url)
    chrome.find_element(By.ID, "adult").click()
    until(chrome, lambda d: d.find_elements(By.ID, "columns"), seconds=30)
    chrome.find_element(By.LINK_TEXT, "DP").click()
    until(chrome, lambda d: d.find_elements(By.ID, "budget-form"), seconds=30)
    budget = chrome.find_element(By.ID, "budget")
    budget.clear()
    budget.send_keys("1")
    chrome.find_element(By.ID, "set-budget").click()
    until(chrome, lambda d: d.find_elements(By.ID, "query-form"), seconds=30)
    assert chrome.find_element(By.ID, "ledger-remaining").text == "1"

    _ask(chrome, "count where age > 40", "0.6")
    until(chrome, lambda d: d.find_elements(By.ID, "answers-table"), seconds=30)
    answer = chrome.find_element(By.CSS_SELECTOR, "#answers-table tr.answer")
    assert answer.text.startswith("count where age > 40")
    assert chrome.find_element(By.ID, "ledger-remaining").text == "0.4"
    spends = chrome.find_elements(By.CSS_SELECTOR, "#ledger-spends tbody tr")
    assert len(spends) == 1
    screenshot("answered")

    _ask(chrome, "count", "0.5")
    until(chrome, lambda d: d.find_elements(By.ID, "error"), seconds=30)
    error = chrome.find_element(By.ID, "error")
    assert error.is_displayed()
    assert error.text.startswith("error: The budget's epsilon is short: the 1 queries cost epsilon=0.5")
    assert "nothing was spent" in error.text
    assert chrome.find_element(By.ID, "ledger-remaining").text == "0.4"  # the ledger unchanged
    assert len(chrome.find_elements(By.CSS_SELECTOR, "#ledger-spends tbody tr")) == 1
    assert not chrome.find_elements(By.ID, "answers-table")
    screenshot("refused")


def test_a_synthetic_table_charged_to_the_same_ledger_then_evaluated(chrome, web_server, screenshot):
    from selenium.webdriver.common.by import By

    chrome.get(web_server.origin + "/synthesize")  # Adult is open, its ledger has 0.4 of 1 left
    until(chrome, lambda d: d.find_elements(By.ID, "synthesize-form"), seconds=30)
    assert chrome.find_element(By.ID, "ledger-remaining").text == "0.4"
    epsilon = chrome.find_element(By.ID, "synth-epsilon")
    assert epsilon.get_attribute("value") == "0.4"  # what is left, not more
    epsilon.clear()
    epsilon.send_keys("0.3")
    chrome.find_element(By.ID, "synth-bins").send_keys("age=17:91:15")
    chrome.find_element(By.ID, "synthesize-run").click()
    until(chrome, lambda d: d.find_elements(By.ID, "synth-report") or d.find_elements(By.ID, "error"), seconds=180)
    assert not chrome.find_elements(By.ID, "error"), chrome.find_element(By.ID, "error").text
    assert chrome.find_element(By.ID, "ledger-remaining").text == "0.1"
    assert chrome.find_element(By.ID, "download-csv").is_displayed()
    screenshot("synthesized")

    epsilon = chrome.find_element(By.ID, "synth-epsilon")  # more than the 0.1 left: veil synthesize's own line
    epsilon.clear()
    epsilon.send_keys("0.5")
    chrome.find_element(By.ID, "synthesize-run").click()
    until(chrome, lambda d: d.find_elements(By.ID, "error"), seconds=60)
    refusal = chrome.find_element(By.ID, "error").text
    assert refusal.startswith("error: The synthesis costs epsilon=0.5, delta=1e-09, but only epsilon=0.1"), refusal
    assert refusal.endswith("of the budget remains; nothing was spent or written."), refusal
    screenshot("synthesis-refused")

    chrome.find_element(By.LINK_TEXT, "Evaluate").click()
    until(chrome, lambda d: d.find_elements(By.ID, "evaluate-form"), seconds=30)
    release = chrome.find_element(By.CSS_SELECTOR, "#eval-release option:checked").text
    assert release == "synthetic.csv"
    # singling out is left out here: on some noisy synthetic Adults it takes minutes (the unit tests run it)
    chrome.find_element(By.CSS_SELECTOR, '#evaluate-form input[name="attacks"][value="singling-out"]').click()
    chrome.find_element(By.CSS_SELECTOR, "#evaluate-form details summary").click()
    chrome.find_element(By.CSS_SELECTOR, '#evaluate-form input[name="secret"][value="salary-class"]').click()
    n_attacks = chrome.find_element(By.NAME, "n_attacks")
    n_attacks.clear()
    n_attacks.send_keys("100")
    chrome.find_element(By.CSS_SELECTOR, '#evaluate-form input[name="seed"]').send_keys("1")  # a known, quick draw
    chrome.find_element(By.ID, "evaluate-run").click()
    until(chrome, lambda d: d.find_elements(By.ID, "evaluation-table") or d.find_elements(By.ID, "error"), seconds=300)
    rows = [r.text for r in chrome.find_elements(By.CSS_SELECTOR, "#evaluation-table tbody tr")]
    assert [r.split(" ")[0] for r in rows] == ["linkability", "inference"], rows
    assert chrome.find_element(By.ID, "download-evaluation-html").is_displayed()
    screenshot("evaluated")
