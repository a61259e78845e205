"""`veil serve` in headless Chromium: the start URL logs in, Adult opens with its columns, a column's
values show on request, roles are set and saved, and two hierarchies are built by builder with the
live preview's counts changing."""

from __future__ import annotations

import pytest

from tests.browser.waits import until as _wait

pytestmark = pytest.mark.browser

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]


def _preview_rows(chrome, qi: str) -> list[tuple[str, ...]]:
    """The preview table of ``qi`` as texts, read in one script (the table is replaced as it updates)."""
    rows = chrome.execute_script(
        "return Array.from(document.querySelectorAll(`section[data-qi='${arguments[0]}'] table.preview tbody tr`))"
        ".map(r => Array.from(r.cells).map(c => c.innerText.trim()))", qi)
    return [tuple(r) for r in rows]


def test_start_url_opens_the_app_and_adult_shows_its_columns(chrome, web_server, screenshot):
    from selenium.webdriver.common.by import By

    chrome.get(web_server.url)
    assert chrome.current_url == web_server.origin + "/"  # the token left the address bar
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Open a table"
    screenshot("open")
    chrome.find_element(By.ID, "adult").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "columns"), "the columns table")
    rows = chrome.find_elements(By.CSS_SELECTOR, "#columns tbody tr")
    assert [r.get_attribute("data-column") for r in rows][:3] == ["sex", "age", "race"]
    assert len(rows) == 9
    assert chrome.find_element(By.ID, "current-file").text == "adult.csv"
    assert "Bachelors" not in chrome.page_source  # no value until asked
    chrome.find_element(By.CSS_SELECTOR, 'button[data-values="education"]').click()
    shown = _wait(chrome, lambda d: d.find_elements(By.CSS_SELECTOR, "#columns tr.values li"), "the values")
    assert shown[0].text == "HS-grad: 9,840 records" and len(shown) == 10
    assert "each with its number of records (of 30,162)" in chrome.find_element(By.CSS_SELECTOR, "#columns tr.values").text
    assert "and 6 other value(s)" in chrome.find_element(By.CSS_SELECTOR, "#columns tr.values").text
    screenshot("columns")


def test_roles_then_hierarchies_by_builder_with_a_live_preview(chrome, web_server, screenshot):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.expected_conditions import staleness_of
    from selenium.webdriver.support.ui import Select

    chrome.get(web_server.origin + "/roles")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Roles of the columns"
    assert "not saved yet" in chrome.page_source
    for name in QIS:
        Select(chrome.find_element(By.CSS_SELECTOR, f'select[data-role-for="{name}"]')).select_by_value("quasi-identifier")
    Select(chrome.find_element(By.CSS_SELECTOR, 'select[data-role-for="salary-class"]')).select_by_value("sensitive")
    chrome.find_element(By.ID, "save-roles").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "next-hierarchies"), "the saved roles")
    treatments = {row.get_attribute("data-column"): row.find_element(By.CSS_SELECTOR, "td.treatment").text
                  for row in chrome.find_elements(By.CSS_SELECTOR, "#roles tbody tr")}
    assert treatments == {**dict.fromkeys(QIS, "generalized"), "salary-class": "published as it is"}
    screenshot("roles")

    chrome.find_element(By.ID, "next-hierarchies").click()
    sections = {s.get_attribute("data-qi"): s for s in chrome.find_elements(By.CSS_SELECTOR, "section.hierarchy")}
    assert list(sections) == QIS
    _wait(chrome, lambda d: len(d.find_elements(By.CSS_SELECTOR, "section.hierarchy.previewed")) == 8, "8 previews")
    age, education = sections["age"], sections["education"]
    assert age.find_element(By.CSS_SELECTOR, ".source").text.startswith("this choice: auto (interval:")
    screenshot("hierarchies-auto")

    # age by intervals of 5, 10, 20 years
    Select(age.find_element(By.CSS_SELECTOR, ".builder-select")).select_by_value("interval")
    params = age.find_element(By.CSS_SELECTOR, ".params")
    params.clear()
    params.send_keys("5,10,20")
    _wait(chrome, lambda d: age.find_element(By.CSS_SELECTOR, ".source").text == "this choice: interval:5,10,20",
          "the age preview")
    rows = _preview_rows(chrome, "age")
    assert [r[2] for r in rows] == ["72", "16", "9", "5", "1"]  # groups per level
    assert rows[1][1].startswith("[15, 20), [20, 25)")
    classes_before = [r[4] for r in rows]
    assert classes_before[0] == "18,109"  # the 8 QIs as they are
    age.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    _wait(chrome, staleness_of(age), "the page saved")
    _wait(chrome, lambda d: len(d.find_elements(By.CSS_SELECTOR, "section.hierarchy.previewed")) == 8, "reloaded")
    age = chrome.find_element(By.CSS_SELECTOR, 'section[data-qi="age"]')
    assert age.find_element(By.CSS_SELECTOR, ".saved-entry").text == "interval:5,10,20"

    # education from Adult's ARX hierarchy file, previewed at its level 2
    education = chrome.find_element(By.CSS_SELECTOR, 'section[data-qi="education"]')
    Select(education.find_element(By.CSS_SELECTOR, ".builder-select")).select_by_value("file")
    Select(education.find_element(By.CSS_SELECTOR, ".file-select")).select_by_visible_text("adult_hierarchy_education.csv")
    _wait(chrome, lambda d: education.find_element(By.CSS_SELECTOR, ".source").text
          == "this choice: adult_hierarchy_education.csv", "the education preview")
    assert [r[2] for r in _preview_rows(chrome, "education")] == ["16", "5", "3", "1"]
    education.find_element(By.CSS_SELECTOR, 'tr[data-level="2"] input[type=radio]').click()
    # the combined counts of age change: education is now counted at its level 2
    _wait(chrome, lambda d: [r[4] for r in _preview_rows(d, "age")]
          not in ([], classes_before), "the age preview with education at level 2")
    age = chrome.find_element(By.CSS_SELECTOR, 'section[data-qi="age"]')
    after = [int(r[4].replace(",", "")) for r in _preview_rows(chrome, "age")]
    assert all(a < int(b.replace(",", "")) for a, b in zip(after, classes_before))
    education.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    _wait(chrome, staleness_of(education), "the page saved")
    _wait(chrome, lambda d: d.find_element(By.CSS_SELECTOR, 'section[data-qi="education"] .saved-entry').text
          == "adult_hierarchy_education.csv", "the saved education hierarchy")
    _wait(chrome, lambda d: len(d.find_elements(By.CSS_SELECTOR, "section.hierarchy.previewed")) == 8, "reloaded")
    chrome.execute_script("document.querySelector('section[data-qi=\"age\"]').scrollIntoView()")
    screenshot("hierarchies-built")
    assert "Bachelors" not in web_server.log() and "HS-grad" not in web_server.log()


HOSPITAL = "patient_name,mrn,zip,ward,insurance,diagnosis,smoker\n" + "".join(
    f"Person{chr(65 + i % 26)}{chr(97 + i // 26)},MRN{5000000 + 7 * i},{(i * 37) % 5000:05d},W{i % 3},"
    f"{['Public', 'Private', 'Self-pay', 'Military', 'Other'][i % 5]},J{i % 9}.{i % 4},{'yes' if i % 4 else 'no'}\n"
    for i in range(120))


def test_a_hospital_table_roles_follow_the_form_and_a_flagged_column_can_be_checked(chrome, web_server, screenshot,
                                                                                    tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    chrome.get(web_server.origin + "/")
    if chrome.find_elements(By.ID, "columns"):  # a table is open: open another
        chrome.find_element(By.CSS_SELECTOR, "form[action^='/close'] button").click()
        _wait(chrome, lambda d: d.find_elements(By.ID, "upload-file"), "the open page")
    source = tmp_path / "hospital.csv"
    source.write_text(HOSPITAL)
    chrome.find_element(By.ID, "upload-file").send_keys(str(source))
    chrome.find_element(By.CSS_SELECTOR, "#upload button[type=submit]").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "columns"), "the columns of the hospital table")
    row = chrome.find_element(By.CSS_SELECTOR, 'tr[data-column="zip"]')
    assert row.find_element(By.CSS_SELECTOR, "td.kind").text.startswith("text")
    assert chrome.find_element(By.CSS_SELECTOR, 'tr[data-column="diagnosis"] td.role-sensitive').text == "sensitive"
    screenshot("hospital-columns")

    chrome.find_element(By.ID, "next-roles").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "roles-form"), "the roles page")

    def release(column: str) -> str:
        return chrome.find_element(By.CSS_SELECTOR, f'tr[data-column="{column}"] td.treatment').text

    Select(chrome.find_element(By.CSS_SELECTOR, 'select[data-role-for="zip"]')).select_by_value("quasi-identifier")
    _wait(chrome, lambda d: release("zip") == "generalized", "the live generalized column")
    Select(chrome.find_element(By.CSS_SELECTOR, 'select[data-role-for="insurance"]')).select_by_value("insensitive")
    _wait(chrome, lambda d: "the release would refuse it" in release("insurance"), "the live refusal")
    assert "published as it is" in release("insurance")
    allow = chrome.find_element(By.CSS_SELECTOR, 'input[data-allow-for="insurance"]')
    assert allow.is_displayed() and allow.is_enabled()
    assert "5 distinct values" in chrome.find_element(By.CSS_SELECTOR, 'tr[data-column="insurance"]').text
    allow.click()
    _wait(chrome, lambda d: release("insurance") == "published as it is (you checked it)", "the checked column")
    Select(chrome.find_element(By.CSS_SELECTOR, 'select[data-role-for="smoker"]')).select_by_value("withheld")
    _wait(chrome, lambda d: release("smoker") == "withheld (not released)", "the live withheld column")
    assert "not saved yet" in chrome.page_source  # nothing saved until Save
    screenshot("hospital-roles-live")
    chrome.find_element(By.ID, "save-roles").click()
    _wait(chrome, lambda d: d.find_elements(By.ID, "next-hierarchies"), "the saved roles")
    assert release("insurance") == "published as it is (you checked it)"

    chrome.find_element(By.ID, "next-hierarchies").click()
    _wait(chrome, lambda d: d.find_elements(By.CSS_SELECTOR, "section.hierarchy.previewed"), "a preview")
    assert "k = 5 (the default" in chrome.find_element(By.ID, "k-note").text
    assert "preview to explore" in chrome.find_element(By.ID, "levels-note").text
    section = chrome.find_element(By.CSS_SELECTOR, "section.hierarchy")
    assert Select(section.find_element(By.CSS_SELECTOR, ".builder-select")).first_selected_option.text.startswith("auto")
    assert not section.find_element(By.CSS_SELECTOR, ".file-field").is_displayed()  # no file for auto
    assert not section.find_element(By.CSS_SELECTOR, ".params-field").is_displayed()
    header = chrome.find_element(By.CSS_SELECTOR, "section.hierarchy table.preview thead").text
    assert "records in classes below k = 5" in header
    first = chrome.find_element(By.CSS_SELECTOR, "section.hierarchy.previewed table.preview tbody tr")
    assert first.find_element(By.CSS_SELECTOR, "td.below-k").text.replace(",", "").isdigit()
    screenshot("hospital-hierarchies")
    assert "MRN5000000" not in web_server.log() and "Self-pay" not in web_server.log()
