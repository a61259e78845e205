"""`veil serve`'s security as headless Chromium meets it: no token, no page; the cookie is out of
scripts' reach; a form posted from another origin is refused (SameSite alone would let it through:
another port of 127.0.0.1 is the same site); the CSP blocks injected inline script; an upload with
a hidden name is refused in the page; the job panel (job.html.j2 + job.js) shows progress and cancels."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from tests.browser.waits import page_text as _text
from tests.browser.waits import until as _wait

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def evil_site():
    """Another origin on this machine (127.0.0.1, another port): serves whatever page the test sets."""
    pages: dict[str, bytes] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = pages.get(self.path, b"nothing here")
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", pages
    finally:
        server.shutdown()


def test_without_the_token_no_page_and_with_it_an_httponly_cookie(chrome, web_server, screenshot):
    from selenium.webdriver.common.by import By

    chrome.delete_all_cookies()
    chrome.get(web_server.origin + "/")
    assert "open the address `veil serve` printed" in _text(chrome)
    screenshot("no-token")
    chrome.get(web_server.origin + "/?token=not-the-token")
    assert "wrong token" in _text(chrome)
    chrome.get(web_server.url)
    _wait(chrome, lambda d: d.find_elements(By.TAG_NAME, "h1"))
    assert chrome.current_url == web_server.origin + "/"
    assert chrome.execute_script("return document.cookie") == ""  # HttpOnly: no script can read it
    cookies = chrome.get_cookies()
    assert len(cookies) == 1 and cookies[0]["httpOnly"] and cookies[0]["sameSite"] == "Strict"
    assert "expiry" not in cookies[0]
    screenshot("logged-in")


def test_a_form_posted_from_another_origin_is_refused(chrome, web_server, evil_site, screenshot):
    from selenium.webdriver.common.by import By

    chrome.get(web_server.url)
    csrf = chrome.find_element(By.CSS_SELECTOR, 'meta[name="csrf-token"]').get_attribute("content")
    origin, pages = evil_site
    # even with the right CSRF token (as if it had leaked): the Origin and Sec-Fetch-Site are foreign
    pages["/form"] = (f'<html><body><h1>Win a prize</h1><form method="post" action="{web_server.origin}/open/adult'
                      f'?csrf={csrf}"><button id="go" type="submit">Claim</button></form></body></html>').encode()
    chrome.get(origin + "/form")
    chrome.find_element(By.ID, "go").click()
    _wait(chrome, lambda d: "another site is refused" in _text(d))
    screenshot("cross-origin-refused")
    chrome.get(web_server.origin + "/")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Open a table"  # nothing was opened
    assert chrome.find_element(By.ID, "current-file").text == "no table open"


def test_a_script_on_another_origin_cannot_change_anything(chrome, web_server, evil_site, screenshot):
    from selenium.webdriver.common.by import By

    origin, pages = evil_site
    pages["/fetch"] = b"<html><body><h1 id='t'>fetching</h1></body></html>"
    chrome.get(origin + "/fetch")
    outcome = chrome.execute_async_script(
        "const done = arguments[0];"
        f"fetch('{web_server.origin}/open/adult', {{method: 'POST', credentials: 'include', mode: 'no-cors',"
        " headers: {'Content-Type': 'text/plain'}, body: 'x'}).then(() => done('sent'), e => done('blocked: ' + e));")
    assert outcome in ("sent", "blocked: TypeError: Failed to fetch")
    chrome.get(web_server.origin + "/")
    assert chrome.find_element(By.ID, "current-file").text == "no table open"
    screenshot("after-foreign-fetch")


def test_the_csp_blocks_injected_inline_script(chrome, web_server, screenshot):
    from selenium.webdriver.common.by import By

    chrome.get(web_server.url)
    _wait(chrome, lambda d: d.find_elements(By.TAG_NAME, "h1"))
    chrome.execute_script(
        "document.body.insertAdjacentHTML('beforeend', '<img id=\"x\" src=\"/nothing\" onerror=\"window.pwned=1\">');"
        "const s = document.createElement('script'); s.textContent = 'window.pwned2 = 1'; document.body.appendChild(s);"
        "const st = document.createElement('style'); st.textContent = 'h1 { color: rgb(255, 0, 0) }';"
        "document.head.appendChild(st);")
    time.sleep(0.5)  # the image's error event (there is nothing to wait for when the handler is blocked)
    assert chrome.execute_script("return [window.pwned, window.pwned2]") == [None, None]
    assert chrome.find_element(By.TAG_NAME, "h1").value_of_css_property("color") != "rgba(255, 0, 0, 1)"
    screenshot("csp")


def test_an_upload_with_a_hidden_name_is_refused_in_the_page(chrome, web_server, tmp_path, screenshot):
    from selenium.webdriver.common.by import By

    hidden = tmp_path / ".hidden.csv"
    hidden.write_text("a,b\n1,2\n")
    chrome.get(web_server.url)
    chrome.find_element(By.ID, "upload-file").send_keys(str(hidden))
    chrome.find_element(By.CSS_SELECTOR, "#upload button[type=submit]").click()
    error = _wait(chrome, lambda d: d.find_elements(By.ID, "error"))[0]
    assert error.is_displayed() and error.text.startswith("error: file name '.hidden.csv' is not a plain file name")
    assert "Traceback" not in chrome.page_source
    screenshot("hidden-name")
    assert not (web_server_workspace(web_server) / ".hidden.csv").exists()


def web_server_workspace(server):
    return server.log_path.parent / "workspace"


@pytest.fixture
def job_page(tmp_path):
    """A real server in this process with one extra page showing the job panel, and a way to start a job."""
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    from veil.web._render import environment
    from veil.web._server import Serving

    serving = Serving("127.0.0.1", 0, str(tmp_path / "ws"), 5)
    app = serving.app

    async def panel(request):
        panel_html = environment().get_template("job.html.j2").render(
            job=app.state.jobs.job, action=lambda path: f"{path}?csrf={serving.guard.csrf}")
        return HTMLResponse(f'<!doctype html><html><head><meta name="csrf-token" content="{serving.guard.csrf}">'
                            f'<link rel="stylesheet" href="/static/veil.css"><script src="/static/veil.js" defer>'
                            f'</script></head><body><main><h1>A job</h1>{panel_html}</main></body></html>')

    app.router.routes.insert(0, Route("/job-demo", panel))
    yield serving, serving.start_in_thread()
    serving.stop()
    serving.thread.join(30)


def test_the_job_panel_shows_progress_and_cancels(chrome, job_page, screenshot):
    from selenium.webdriver.common.by import By

    serving, url = job_page
    origin = url.split("/?")[0]

    def work(progress):
        for step in range(1200):
            progress("search", step, 1200)
            time.sleep(0.05)

    chrome.get(url)
    job = serving.app.state.jobs.start("release", work)
    chrome.get(origin + "/job-demo")
    panel = chrome.find_element(By.ID, "job-progress")
    _wait(chrome, lambda d: "of 1,200" in d.find_element(By.ID, "job-count").text)
    assert panel.is_displayed()
    assert chrome.find_element(By.ID, "job-phase").text == "searching the transformations"
    assert float(chrome.find_element(By.ID, "job-bar").get_attribute("value")) > 0
    screenshot("running")
    chrome.find_element(By.ID, "job-cancel").click()
    _wait(chrome, lambda d: d.find_element(By.ID, "job-message").is_displayed())
    assert chrome.find_element(By.ID, "job-message").text == "Cancelled: nothing was written."
    assert chrome.find_element(By.ID, "job-status").text == "cancelled"
    assert not chrome.find_element(By.ID, "job-cancel").is_displayed()
    assert job.status == "cancelled" and job.done < 1200
    screenshot("cancelled")


def test_a_finished_job_takes_the_page_to_its_next_page(chrome, job_page, screenshot):
    from selenium.webdriver.common.by import By

    serving, url = job_page
    origin = url.split("/?")[0]
    gate = threading.Event()

    def work(progress):
        progress("write", None, None)
        gate.wait(30)

    chrome.get(url)
    serving.app.state.jobs.start("release", work, then="/")
    chrome.get(origin + "/job-demo")
    _wait(chrome, lambda d: d.find_element(By.ID, "job-phase").text == "writing the files")
    assert chrome.find_element(By.ID, "job-bar").get_attribute("value") in (None, "0")  # no count: indeterminate
    gate.set()
    _wait(chrome, lambda d: d.current_url == origin + "/")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Open a table"
    screenshot("done")


def test_an_upload_over_the_limit_shows_the_error_and_writes_nothing(chrome, job_page, tmp_path, screenshot):
    from selenium.webdriver.common.by import By

    serving, url = job_page  # its limit is 5 MB
    big = tmp_path / "big.csv"
    big.write_bytes(b"a,b\n" + b"1,2\n" * (6 * 2**18))  # 6 MB
    chrome.get(url)
    chrome.find_element(By.ID, "upload-file").send_keys(str(big))
    chrome.find_element(By.CSS_SELECTOR, "#upload button[type=submit]").click()
    error = _wait(chrome, lambda d: d.find_elements(By.ID, "error"))[0]
    assert error.text == "error: the upload is larger than the limit (5 MB); nothing was written."
    assert chrome.find_element(By.LINK_TEXT, "Back").is_displayed()
    screenshot("too-large")
    assert sorted(p.name for p in serving.workspace.root.iterdir()) == [".veil-serve.lock"]


@pytest.fixture(scope="module")
def rebinding_chrome():
    """Chromium whose resolver maps rebind.test to 127.0.0.1: an attacker's name now pointing at this machine."""
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800",
                 "--host-resolver-rules=MAP rebind.test 127.0.0.1"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_a_dns_rebinding_page_gets_nothing(rebinding_chrome, web_server):
    from selenium.webdriver.common.by import By

    port = web_server.origin.rsplit(":", 1)[1]
    token = web_server.url.split("token=", 1)[1]
    rebinding_chrome.get(f"http://rebind.test:{port}/?token={token}")  # even with the token
    body = rebinding_chrome.find_element(By.TAG_NAME, "body").text
    assert body == "veil serve: this host name is not the one the server was started on."
    assert rebinding_chrome.get_cookies() == []
    rebinding_chrome.get(f"http://rebind.test:{port}/static/veil.css")
    assert "this host name is not the one" in rebinding_chrome.find_element(By.TAG_NAME, "body").text
    assert rebinding_chrome.save_screenshot(str(_screenshots() / "test_a_dns_rebinding_page_gets_nothing.png"))


def _screenshots():
    import os
    from pathlib import Path

    folder = Path(os.environ.get("VEIL_SCREENSHOTS", "/tmp/veil-screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
