"""Waiting in the browser tests: a condition is tried until it holds; an element that the page
replaced meanwhile (a navigation, a form's answer swapped in) is looked up again, not an error."""

from __future__ import annotations


def until(chrome, condition, message: str = "", seconds: float = 30):
    """The first truthy value of ``condition(chrome)`` within ``seconds``; stale or missing elements retry."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    ignored = (NoSuchElementException, StaleElementReferenceException)
    return WebDriverWait(chrome, seconds, ignored_exceptions=ignored).until(condition, message)


def page_text(chrome) -> str:
    """The page's visible text, read in one script (no element reference that a navigation can stale)."""
    return chrome.execute_script("return document.body ? document.body.innerText : ''")
