"""One job at a time per workspace (veil.web._jobs) and its two routes, GET /job and POST /job/cancel;
a cancelled release writes nothing."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from veil.errors import DataFormatError, ParameterError
from veil.web._jobs import NO_JOB, JobRunner

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
KEYS = ["name", "status", "phase", "phase_text", "done", "total", "error", "seconds", "cancelling", "then"]


def _until(predicate, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_job_reports_its_progress_and_its_result():
    runner = JobRunner()
    gate = threading.Event()

    def work(progress):
        progress("search", 32, 6480)
        gate.wait(10)
        return "the result"

    job = runner.start("release", work, then="/results")
    _until(lambda: job.done == 32)
    shown = runner.as_json()
    assert list(shown) == KEYS
    assert shown["status"] == "running" and shown["phase"] == "search" and (shown["done"], shown["total"]) == (32, 6480)
    assert shown["phase_text"] == "searching the transformations"  # the page's words, the same in the template and job.js
    assert shown["then"] == "/results" and shown["cancelling"] is False
    gate.set()
    assert runner.wait(10).status == "done" and job.result == "the result" and job.error is None


def test_a_jobs_next_page_is_a_path_of_this_server():
    runner = JobRunner()
    for then in ("https://evil.example/", "//evil.example/x", "javascript:alert(1)"):
        with pytest.raises(ValueError, match="must be a path of this server"):
            runner.start("x", lambda progress: None, then=then)
    assert runner.job is None


def test_a_second_job_while_one_runs_is_refused_in_one_line():
    runner = JobRunner()
    gate = threading.Event()
    runner.start("release", lambda progress: gate.wait(10))
    with pytest.raises(ParameterError) as refused:
        runner.start("risk", lambda progress: None)
    assert str(refused.value) == "a job (release) is running: wait for it or cancel it."
    gate.set()
    runner.wait(10)
    assert runner.start("risk", lambda progress: 1) is runner.job  # free again once it ended
    assert runner.wait(10).status == "done"


def test_a_cancelled_job_stops_at_its_next_progress_call_and_keeps_no_error():
    runner = JobRunner()
    reached = []

    def work(progress):
        for step in range(10_000):
            progress("search", step, 10_000)
            reached.append(step)
            time.sleep(0.001)
        return "finished"

    job = runner.start("release", work)
    _until(lambda: len(reached) > 3)
    runner.cancel()
    assert runner.as_json()["cancelling"] is True or job.status == "cancelled"
    runner.wait(10)
    assert job.status == "cancelled" and job.error is None and job.result is None and len(reached) < 10_000


def test_a_cancelled_job_is_cancelled_even_if_the_library_turned_the_signal_into_its_own_error():
    runner = JobRunner()
    started = threading.Event()

    def work(progress):
        started.set()
        while True:
            try:
                progress("search", 1, 2)
            except Exception as exc:  # a library wrapping every error
                raise DataFormatError("wrapped") from exc
            time.sleep(0.005)

    runner.start("release", work)
    started.wait(10)
    runner.cancel()
    assert runner.wait(10).status == "cancelled" and runner.job.error is None


def test_a_failed_job_keeps_the_one_line_error_and_an_internal_error_only_its_type(caplog):
    runner = JobRunner()

    def bad_input(progress):
        raise DataFormatError("line 3 has 4 fields, expected 3")

    runner.start("release", bad_input)
    assert runner.wait(10).as_json()["error"] == "line 3 has 4 fields, expected 3"

    def broken(progress):
        raise KeyError("secret-value-4711")

    with caplog.at_level(logging.ERROR, logger="veil.web"):
        runner.start("release", broken)
        job = runner.wait(10)
    assert job.status == "failed" and job.error == "internal error (KeyError); nothing was written."
    assert [r.getMessage() for r in caplog.records] == ["internal error in job release: KeyError"]
    assert "secret-value-4711" not in caplog.text


def test_progress_values_that_are_not_numbers_are_not_shown():
    runner = JobRunner()
    runner.start("x", lambda progress: progress("write", "a path?", object()))
    shown = runner.wait(10).as_json()
    assert shown["done"] is None and shown["total"] is None and shown["phase"] == "write"


def test_the_job_routes(web):
    client, app = web
    assert client.get("/job").json() == NO_JOB
    assert client.post("/job/cancel").status_code == 403  # state-changing: the CSRF token is required
    gate = threading.Event()
    app.state.jobs.start("release", lambda progress: (progress("search", 1, 4), gate.wait(10)))
    _until(lambda: client.get("/job").json()["phase"] == "search")
    answer = client.post("/job/cancel", headers={"X-CSRF-Token": client.csrf, "Accept": "application/json"})
    assert answer.status_code == 200 and answer.json()["cancelling"] is True
    gate.set()
    app.state.jobs.wait(10)
    assert client.get("/job").json()["status"] == "done"  # it made no progress call after the cancel
    form = client.post(f"/job/cancel?csrf={client.csrf}", headers={"Referer": "http://testserver/run?x=1"},
                       follow_redirects=False)
    assert form.status_code == 303 and form.headers["location"] == "/run"
    form = client.post(f"/job/cancel?csrf={client.csrf}", headers={"Referer": "http://evil.example//evil"},
                       follow_redirects=False)
    assert form.headers["location"] == "/"


def test_the_job_panel_renders_for_every_status(web):
    from veil.web._render import environment

    client, app = web
    template = environment().get_template("job.html.j2")
    context = {"action": lambda path: path + "?csrf=t"}
    assert 'id="job-progress"' in template.render(job=None, **context)
    runner = JobRunner()
    runner.start("release", lambda progress: (_ for _ in ()).throw(DataFormatError("bad <b>line</b> 3")))
    html = template.render(job=runner.wait(10), **context)
    assert "error: bad &lt;b&gt;line&lt;/b&gt; 3" in html and 'data-status="failed"' in html


def _adult_config(output: Path) -> dict:
    import yaml

    config = yaml.safe_load((EXAMPLES / "adult-k5-l2.yaml").read_text())
    config["base_dir"] = str(EXAMPLES)
    config["metric"] = "kl"  # not monotone: the search visits the lattice for several seconds
    config["output"] = {"path": str(output / "release.csv"), "report": str(output / "release.json")}
    return config


@pytest.mark.slow
def test_a_release_cancelled_mid_search_writes_nothing(web):
    from veil.config import ReleaseConfig
    from veil.release import run_config

    client, app = web
    root = app.state.workspace.root
    before = sorted(p.name for p in root.iterdir())
    config = ReleaseConfig(**_adult_config(root))
    app.state.jobs.start("release", lambda progress: run_config(config, progress=progress))

    def searching() -> bool:
        shown = client.get("/job").json()
        assert shown["status"] == "running", shown
        return shown["phase"] == "search" and shown["done"] is not None and shown["done"] > 0

    _until(searching, 60)
    client.post("/job/cancel", headers={"X-CSRF-Token": client.csrf})
    job = app.state.jobs.wait(60)
    assert job.status == "cancelled", job.as_json()
    assert job.phase == "search" and job.done < job.total  # stopped mid-search
    assert sorted(p.name for p in root.iterdir()) == before  # no release, no report, no temporary file
