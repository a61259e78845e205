"""`veil serve` as a real process: the start-up line, a clean stop on SIGTERM and SIGINT (exit 0,
no traceback, the temporary workspace removed, a given one kept), and the one-line refusals at
start (a port in use, a remote --host without --allow-remote, a workspace already served)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import httpx2 as httpx  # noqa: E402 - the test client the web tests use

LINE = re.compile(r"^veil serve: http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{40,})$")
SRC = str(Path(__file__).resolve().parents[3] / "src")


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONWARNINGS", None)
    return env


class Served:
    """A `python -m veil serve` process with TMPDIR in a folder of the test (so its temporary
    workspace can be watched), its stdout and stderr kept."""

    def __init__(self, tmp: Path, *args: str) -> None:
        self.tmp = tmp / "tmpdir"
        self.tmp.mkdir(exist_ok=True)
        self.process = subprocess.Popen([sys.executable, "-m", "veil", "serve", "--port", "0", *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(self.tmp))
        self.first = self.process.stdout.readline().decode().rstrip("\n")
        match = LINE.match(self.first)
        if not match:
            self.process.kill()
            _, err = self.process.communicate(timeout=30)
            raise AssertionError(f"no start line: {self.first!r}; stderr: {err.decode()!r}")
        self.port, self.token = int(match.group(1)), match.group(2)
        self.origin = f"http://127.0.0.1:{self.port}"
        self.client = httpx.Client(base_url=self.origin, timeout=30)

    def login(self) -> str:
        answer = self.client.get(f"/?token={self.token}", follow_redirects=False)
        assert answer.status_code == 303, answer.text
        return answer.headers["set-cookie"]

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str, str]:
        self.client.close()
        self.process.send_signal(sig)
        out, err = self.process.communicate(timeout=30)
        return self.process.returncode, self.first + "\n" + out.decode(), err.decode()

    def temporaries(self) -> list[str]:
        return sorted(p.name for p in self.tmp.iterdir() if p.name.startswith("veil-serve-"))


@pytest.fixture
def serve(tmp_path):
    """``serve(*args)`` starts a :class:`Served`; any still running at the end of the test is killed
    (a failed assertion must not leave a server behind)."""
    started: list[Served] = []

    def start(*args: str) -> Served:
        started.append(Served(tmp_path, *args))
        return started[-1]

    yield start
    for served in started:
        if served.process.poll() is None:
            served.process.kill()
            served.process.communicate(timeout=30)


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "veil", "serve", *args], capture_output=True, text=True,
                          timeout=60, env=_env(tmp))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serves_after_one_line_and_stops_cleanly_removing_the_temporary_workspace(tmp_path, serve, sig):
    served = serve()
    assert len(served.temporaries()) == 1  # the private temporary workspace, while it runs
    workspace = served.tmp / served.temporaries()[0]
    assert workspace.stat().st_mode & 0o777 == 0o700
    cookie = served.login()
    assert f"veil_session_{served.port}=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = served.client.get("/")
    assert page.status_code == 200 and "Open a table" in page.text
    code, out, err = served.stop(sig)
    assert code == 0, err
    assert out.splitlines() == [served.first]  # exactly one line on stdout
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert served.temporaries() == []


def test_a_given_workspace_is_kept_with_its_files(tmp_path, serve):
    given = tmp_path / "mine"
    served = serve("--workspace", str(given))
    served.login()
    answer = served.client.post(f"/open/upload?csrf={csrf_token(served)}", files={"file": ("people.csv", b"a,b\n1,2\n")},
                                headers={"Origin": served.origin})
    assert answer.status_code in (200, 303), answer.text
    code, _, err = served.stop()
    assert code == 0, err
    assert (given / "people.csv").read_bytes() == b"a,b\n1,2\n"
    assert given.stat().st_mode & 0o777 == 0o700


def csrf_token(served: Served) -> str:
    return re.search(r'name="csrf-token" content="([^"]+)"', served.client.get("/").text).group(1)


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = _run(tmp_path, "--port", str(port))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use; choose another --port (0 picks a "
        f"free one)."]
    assert list(tmp_path.glob("veil-serve-*")) == []  # no temporary workspace left behind


def test_a_remote_host_without_allow_remote_is_refused_saying_why(tmp_path):
    done = _run(tmp_path, "--port", "0", "--host", "0.0.0.0")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --host 0.0.0.0 would let other machines reach")
    assert "--allow-remote" in lines[0]


def test_allow_remote_warns_on_stderr_and_still_checks_the_host(tmp_path, serve):
    served = serve("--host", "0.0.0.0", "--allow-remote")
    assert served.client.get("/", headers={"Host": f"evil.example:{served.port}"}).status_code == 400
    assert served.client.get("/", headers={"Host": f"{socket.gethostname()}:{served.port}"}).status_code == 401
    assert served.client.get("/", headers={"Host": f"10.9.8.7:{served.port}"}).status_code == 400
    served.login()
    assert served.client.get("/").status_code == 200
    code, out, err = served.stop()
    assert code == 0
    warnings = [line for line in err.splitlines() if line]
    assert len(warnings) == 1 and warnings[0].startswith("veil serve: warning: listening on 0.0.0.0 (--allow-remote)")


def test_a_second_server_on_the_same_workspace_is_refused(tmp_path, serve):
    given = tmp_path / "shared"
    served = serve("--workspace", str(given))
    try:
        done = _run(tmp_path, "--port", "0", "--workspace", str(given))
    finally:
        code, _, _ = served.stop()
    assert done.returncode == 2 and code == 0
    assert done.stderr.strip().splitlines() == [
        f"error: another veil serve is using the workspace {str(given.resolve())!r}; stop it or choose another "
        f"--workspace."]


def test_a_chunked_upload_over_the_limit_is_413_with_nothing_written_or_logged(tmp_path, serve):
    given = tmp_path / "ws"
    served = serve("--workspace", str(given), "--max-upload-mb", "1")
    served.login()
    csrf = csrf_token(served)
    boundary = "veilboundary"

    def body():  # no Content-Length: the limit must hold on the bytes read
        yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.csv\"\r\n"
               f"Content-Type: text/csv\r\n\r\n").encode()
        for _ in range(3 * 16):
            yield b"x" * 65536
        yield f"\r\n--{boundary}--\r\n".encode()

    answer = served.client.post(f"/open/upload?csrf={csrf}", content=body(),
                                headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                                         "Origin": served.origin})
    assert answer.status_code == 413
    assert "error: the upload is larger than the limit (1 MB)" in answer.text
    assert "Traceback" not in answer.text
    big = b"x" * (2 * 2**20)
    declared = served.client.post(f"/open/upload?csrf={csrf}", files={"file": ("big.csv", big)},
                                  headers={"Origin": served.origin})
    assert declared.status_code == 413
    code, out, err = served.stop()
    assert code == 0 and err.strip() == "", err
    assert sorted(p.name for p in given.iterdir()) == [".veil-serve.lock"]


def test_stopping_cancels_the_running_job_and_removes_the_workspace(tmp_path, monkeypatch):
    """In process (a thread serves): the stop path cancels a job that would otherwise run for a minute."""
    from veil.web._server import Serving

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    serving = Serving("127.0.0.1", 0, None, 1)
    root = serving.workspace.root
    assert root.parent == tmp_path and root.is_dir()
    written = root / "late.csv"

    def work(progress):
        for step in range(600):
            progress("search", step, 600)
            time.sleep(0.1)
        written.write_text("should never be written")

    serving.start_in_thread()
    thread = serving.thread
    try:
        deadline = time.monotonic() + 30
        job = serving.app.state.jobs.start("release", work)
        while job.done is None and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
    finally:
        serving.stop()
        thread.join(30)
    assert not thread.is_alive()
    assert job.status == "cancelled" and time.monotonic() - started < 10
    assert not written.exists() and not root.exists()
