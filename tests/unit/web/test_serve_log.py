"""No raw value in the server's log: a real `veil serve` is sent a table with a distinctive value
and every kind of bad request we can think of that carries it (a ragged line, a malformed form, a
bad file name, the value in the path, the query and a header), and an internal error is provoked
in process; the value never appears on the server's stdout or stderr, and no answer carries a
traceback."""

from __future__ import annotations

import time
import warnings

import pytest
from starlette.responses import StreamingResponse
from starlette.routing import Route

from .test_serve import Served, csrf_token, serve  # noqa: F401 - serve is a fixture

import httpx2 as httpx  # noqa: E402 - the test client the web tests use

VALUE = "Zorblax-7731"


def _bad_requests(served: Served, csrf: str) -> list:
    post, origin = served.client.post, {"Origin": served.origin}
    answers = [
        post(f"/open/upload?csrf={csrf}", headers=origin,
             files={"file": ("people.csv", f"name,age\nAnn,34\n{VALUE},45,x,y\n".encode())}),
        served.client.get("/"),  # the ragged file was refused: the page still offers to open one
        post(f"/open/upload?csrf={csrf}", headers={**origin, "Content-Type": "multipart/form-data; boundary=b"},
             content=f"garbage {VALUE} --b\r\n{VALUE}".encode()),
        post(f"/open/upload?csrf={csrf}", headers=origin, files={"file": (f"../{VALUE}.csv", b"a\n1\n")}),
        post(f"/open/file?csrf={csrf}", headers=origin, data={"name": VALUE}),
        served.client.get(f"/{VALUE}?q={VALUE}", headers={"X-Note": VALUE}),
        post(f"/open/file?csrf={VALUE}", headers=origin, data={"name": VALUE}),
        post(f"/open/file?csrf={csrf}", headers={"Origin": f"http://{VALUE}.example"}),
        served.client.get(f"/?token={VALUE}"),
        served.client.get("/", headers={"Host": f"{VALUE}.example"}),
        post(f"/open/upload?csrf={csrf}", headers=origin,
             files={"file": ("wide.parquet", f"PAR1 {VALUE} not parquet".encode())}),
        served.client.get("/"),
    ]
    return answers


def test_a_value_from_the_data_never_reaches_the_server_log(tmp_path, serve):
    served = serve("--workspace", str(tmp_path / "ws"))
    served.login()
    answers = _bad_requests(served, csrf_token(served))
    assert [a.status_code for a in answers] == [400, 200, 400, 400, 400, 404, 403, 403, 401, 400, 400, 200]
    assert "line 3: expected 2 fields" in answers[0].text  # the CLI's one-line error, at the upload
    for answer in answers:
        assert "Traceback" not in answer.text and 'File "' not in answer.text
    code, out, err = served.stop()
    assert code == 0
    assert VALUE not in out and VALUE not in err, err
    assert "Traceback" not in err and err.strip() == "", err


@pytest.fixture
def in_process(tmp_path):
    """A real uvicorn server in a thread of this process (so a route can be added to it)."""
    from veil.web._server import Serving

    serving = Serving("127.0.0.1", 0, str(tmp_path / "ws"), 5)
    serving.start_in_thread()
    client = httpx.Client(base_url=f"http://127.0.0.1:{serving.port}", timeout=30)
    assert client.get(f"/?token={serving.guard.token}").status_code == 303
    yield serving, client
    client.close()
    serving.stop()
    serving.thread.join(30)


def test_an_internal_error_is_logged_by_its_type_only(capfd, in_process):
    serving, client = in_process

    async def boom(request):
        raise RuntimeError(f"cannot parse {VALUE}")

    async def late(request):
        async def body():
            yield b"first part\n"
            raise KeyError(VALUE)

        return StreamingResponse(body())

    serving.app.router.routes.insert(0, Route("/boom", boom))
    serving.app.router.routes.insert(0, Route("/late", late))
    answer = client.get("/boom")
    assert answer.status_code == 500 and VALUE not in answer.text and "Traceback" not in answer.text
    assert "error: internal error; nothing was written." in answer.text
    with pytest.raises(httpx.HTTPError):  # the answer had begun: the connection is cut, nothing more said
        client.get("/late").read()
    serving.app.state.jobs.start("release", lambda progress: {}[VALUE])
    failed = serving.app.state.jobs.wait(10)
    assert failed.error == "internal error (KeyError); nothing was written."

    def warns(progress):
        warnings.warn(f"column holds {VALUE}", UserWarning, stacklevel=1)  # the line named below

    serving.app.state.jobs.start("risk", warns)
    serving.app.state.jobs.wait(10)
    time.sleep(0.2)
    out, err = capfd.readouterr()
    assert VALUE not in out + err and "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("veil serve:")]
    assert lines == ["veil serve: internal error on GET /boom: RuntimeError",
                     "veil serve: internal error on GET /late: KeyError",
                     "veil serve: internal error in job release: KeyError",
                     f"veil serve: warning: UserWarning at test_serve_log.py:{warns.__code__.co_firstlineno + 1}"], err
