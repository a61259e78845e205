"""The HTML report as a person sees it: rendered in headless Chromium.

`make test` installs Debian's ``chromium`` and ``chromium-driver`` (see the
Makefile); the test drives them through Selenium with the driver's path given
explicitly, so nothing is downloaded.  It fails, rather than skips, when they
are missing: a report nobody has looked at is not tested.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import veil
from veil.models import DistinctLDiversity, KAnonymity
from veil.report import write_html

pytestmark = pytest.mark.browser

SECTIONS = ("release", "columns", "transformation", "models", "utility", "risk", "class-sizes",
            "record-risk", "distributions", "search", "lattice")


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    assert chromium and driver_path, "Debian's chromium and chromium-driver are needed: run `make test`."
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    adult = veil.datasets.load_adult()
    result = veil.anonymize(adult, [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)],
                            suppression_limit=0.05)
    report = dict(result.report)
    report.setdefault("columns", [{"name": n, "role": "quasi-identifier", "treatment": "generalized",
                                   "level": lvl} for n, lvl in report["transformation"].items()])
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_html(report, path, classes=result.classes, original=result.classes.base)
    return path, result


def test_every_key_section_is_visible_with_its_figures(browser, report_page):
    from selenium.webdriver.common.by import By

    path, result = report_page
    browser.get(path.as_uri())
    assert browser.title == "Anonymization report"
    for section in SECTIONS:
        element = browser.find_element(By.ID, section)
        assert element.is_displayed(), section
        assert element.size["height"] > 20 and element.size["width"] > 300, section
    badge = browser.find_element(By.CSS_SELECTOR, "header .badge")
    assert badge.is_displayed() and badge.text == "verified"
    release = browser.find_element(By.ID, "release").text
    assert f"{result.report['suppressed']:,}" in release and f"{result.report['records']:,}" in release


def test_every_plot_decodes_and_is_drawn(browser, report_page):
    from selenium.webdriver.common.by import By

    path, result = report_page
    browser.get(path.as_uri())
    images = browser.find_elements(By.CSS_SELECTOR, "figure img")
    classes = result.classes  # a chart of the released values of each QI with 1 to 30 of them
    charted = sum(1 <= np.unique(classes.codes[:, i]).size <= 30 for i in range(len(classes.quasi_identifiers)))
    assert len(images) == 3 + charted
    for image in images:
        width = browser.execute_script("return arguments[0].naturalWidth", image)
        assert width > 300  # the PNG decoded in the browser
        assert image.size["width"] > 300


def test_the_lattice_figure_is_drawn_with_the_chosen_node(browser, report_page, tmp_path):
    import matplotlib.image
    from selenium.webdriver.common.by import By

    path, result = report_page
    browser.get(path.as_uri())
    figure = browser.find_element(By.ID, "lattice-figure")
    browser.execute_script("arguments[0].scrollIntoView()", figure)
    assert figure.is_displayed()
    assert figure.size["width"] > 500 and figure.size["height"] > 150
    block = result.report["lattice"]
    segments = figure.find_elements(By.CSS_SELECTOR, "rect[data-status]")
    nonzero = sum(1 for h in block["heights"] for key in ("satisfying", "failing", "not_evaluated") if h[key])
    assert len(segments) == nonzero
    for segment in segments:  # every segment laid out by the browser, at least a sliver high
        box = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", segment)
        assert box["width"] > 10 and box["height"] >= 1
    chosen = figure.find_element(By.ID, "lattice-chosen")
    assert chosen.is_displayed()
    bar = figure.find_element(By.CSS_SELECTOR, "g.lattice-bar.chosen")
    assert int(bar.get_attribute("data-height")) == block["chosen"]["height"]
    marker = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", chosen)
    column = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", bar)
    assert column["left"] <= marker["left"] + marker["width"] / 2 <= column["right"]  # over its bar
    # the figure's pixels hold the three colours (satisfying, failing, not evaluated)
    shot = tmp_path / "lattice.png"
    assert figure.screenshot(str(shot))
    pixels = (matplotlib.image.imread(shot)[..., :3] * 255).round().astype(int).reshape(-1, 3)
    for colour in ("#1e7d45", "#b03a2e", "#c9d1d9"):
        rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(pixels - rgb).max(axis=1) <= 3).sum() > 20, colour


def test_the_screenshot_shows_a_page(browser, report_page, tmp_path):
    import matplotlib.image

    path, _ = report_page
    browser.get(path.as_uri())
    shot = tmp_path / "shot.png"
    assert browser.save_screenshot(str(shot))
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[0] >= 600 and pixels.shape[1] >= 1000  # the viewport, less the browser chrome
    # text and tables on white: a fair share of the pixels are not background
    ink = (pixels[..., :3].mean(axis=2) < 0.9).mean()
    assert 0.01 < ink < 0.6
    assert np.unique(pixels.reshape(-1, pixels.shape[-1])[:, :3], axis=0).shape[0] > 20  # not a blank page
