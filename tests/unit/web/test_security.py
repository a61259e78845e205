"""The security rules of `veil serve` (docs/web.md, "Security"), through Starlette's TestClient:
token and cookie, Host, Origin / Sec-Fetch-Site / CSRF, the body limit, the headers of every
response, file names and symbolic links, and no traceback in any answer."""

from __future__ import annotations

import os
import re

import pytest
from starlette.routing import Mount, Route

from veil.web._security import CSP, Guard


def _paths(app) -> list[tuple[str, str]]:
    """(method, path) of every route of the app, path parameters filled with a plain name."""
    pairs = []
    for route in app.router.routes:
        if isinstance(route, Mount):
            pairs.append(("GET", route.path + "/veil.css"))
        elif isinstance(route, Route):
            path = re.sub(r"\{[^}]+\}", "x", route.path)
            pairs += [(method, path) for method in sorted(route.methods or {"GET"}) if method != "HEAD"]
    return pairs


def _anonymous(app):
    from starlette.testclient import TestClient

    return TestClient(app, base_url="http://testserver")


def _names(root) -> list[str]:
    return sorted(os.listdir(root))


def test_every_page_refuses_a_request_without_the_cookie(web):
    client, app = web
    stranger = _anonymous(app)
    pairs = _paths(app)
    assert ("GET", "/") in pairs and ("POST", "/job/cancel") in pairs and len(pairs) >= 6
    for method, path in pairs:
        answer = stranger.request(method, path, params={"csrf": client.csrf}, headers={"X-CSRF-Token": client.csrf})
        if path.startswith("/static/"):  # package files, no data: served to anyone who reached the Host
            assert answer.status_code == 200, path
            continue
        assert answer.status_code == 401, (method, path, answer.status_code)
        assert answer.text.startswith("veil serve: open the address")
    assert stranger.post("/static/veil.css").status_code == 401


def test_a_wrong_token_or_cookie_is_refused_and_sets_nothing(web):
    client, app = web
    stranger = _anonymous(app)
    guard = app.state.guard
    wrong = guard.token[:-2] + ("AA" if not guard.token.endswith("AA") else "BB")
    answer = stranger.get(f"/?token={wrong}", follow_redirects=False)
    assert answer.status_code == 401 and "set-cookie" not in answer.headers
    assert stranger.get("/?token=", follow_redirects=False).status_code == 401
    stranger.cookies.set(guard.cookie, guard.session[:-1])
    assert stranger.get("/").status_code == 401
    stranger.cookies.set(guard.cookie, guard.token)  # the token is not the session
    assert stranger.get("/").status_code == 401


def test_the_token_gives_an_httponly_strict_session_cookie_and_leaves_the_address_bar(web):
    client, app = web
    answer = _anonymous(app).get(f"/?token={app.state.guard.token}", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    cookie = answer.headers["set-cookie"]
    parts = [p.strip() for p in cookie.split(";")]
    assert parts[0] == f"{app.state.guard.cookie}={app.state.guard.session}"
    assert sorted(parts[1:]) == ["HttpOnly", "Path=/", "SameSite=Strict"]  # no Expires: it ends with the browser
    assert answer.headers["content-security-policy"] == CSP


def test_the_cookie_is_named_after_the_port_and_other_cookies_of_the_host_do_not_matter(web):
    client, app = web
    assert Guard.for_address("127.0.0.1", 8765, 1).cookie == "veil_session_8765"
    guard = app.state.guard
    raw = f'other="a b; c"; broken; {guard.cookie}={guard.session}; x=\\001'
    answer = _anonymous(app).get("/", headers={"Cookie": raw})
    assert answer.status_code == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://testserver.evil.example",
                                    "https://testserver", "http://localhost"])
def test_a_cross_origin_post_is_refused_and_changes_nothing(web, origin):
    client, app = web
    answer = client.post(f"/open/adult?csrf={client.csrf}", headers={"Origin": origin})
    assert answer.status_code == 403 and answer.text.startswith("veil serve: a request from another site")
    assert app.state.workspace.state.data is None and "adult.csv" not in _names(app.state.workspace.root)


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_post_that_the_browser_says_comes_from_another_site_is_refused(web, site):
    client, app = web
    answer = client.post(f"/open/adult?csrf={client.csrf}", headers={"Sec-Fetch-Site": site})
    assert answer.status_code == 403
    assert app.state.workspace.state.data is None


def test_the_own_origin_and_same_origin_fetch_pass(web):
    client, app = web
    answer = client.post(f"/open/adult?csrf={client.csrf}",
                         headers={"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"})
    assert answer.status_code == 200 and app.state.workspace.state.data == "adult.csv"


@pytest.mark.parametrize("how", ["none", "wrong", "empty", "header-wrong"])
def test_a_post_without_the_right_csrf_token_is_refused(web, how):
    client, app = web
    params = {"none": {}, "wrong": {"csrf": client.csrf[::-1]}, "empty": {"csrf": ""}, "header-wrong": {}}[how]
    headers = {"X-CSRF-Token": "x" * len(client.csrf)} if how == "header-wrong" else {}
    answer = client.post("/open/adult", params=params, headers=headers)
    assert answer.status_code == 403 and "CSRF" in answer.text
    assert app.state.workspace.state.data is None


def test_a_post_without_origin_needs_the_csrf_token_and_passes_with_it_in_the_header(web):
    client, app = web
    assert client.post("/open/adult").status_code == 403
    answer = client.post("/open/adult", headers={"X-CSRF-Token": client.csrf})
    assert answer.status_code == 200 and app.state.workspace.state.data == "adult.csv"


@pytest.mark.parametrize("host", ["evil.example", "testserver.evil.example", "127.0.0.1", "testserver:81", ""])
def test_a_foreign_host_header_is_refused_even_with_the_cookie(web, host):
    client, app = web
    answer = client.get("/", headers={"Host": host})
    assert answer.status_code == 400 and "host name" in answer.text


def test_the_host_names_a_server_answers_as():
    loop = Guard.for_address("127.0.0.1", 8765, 1)
    assert loop.hosts == {"127.0.0.1:8765", "localhost:8765"}
    assert loop.accepts_host("LOCALHOST:8765", ("127.0.0.1", 8765))
    for foreign in ("evil.example:8765", "127.0.0.1:8766", "[::1]:8765", "127.0.0.1", None):
        assert not loop.accepts_host(foreign, ("127.0.0.1", 8765))
    assert Guard.for_address("::1", 9, 1).hosts == {"[::1]:9", "localhost:9"}
    assert Guard.for_address("127.0.0.2", 9, 1).hosts == {"127.0.0.2:9"}
    assert Guard.for_address("192.168.1.5", 9, 1).hosts == {"192.168.1.5:9"}
    assert Guard.for_address("127.0.0.1", 80, 1).accepts_host("localhost", None)  # port 80 goes unnamed
    wild = Guard.for_address("0.0.0.0", 8765, 1)
    assert wild.accepts_host("127.0.0.1:8765", ("127.0.0.1", 8765))
    # an address literal only when it is the connection's own local address
    assert wild.accepts_host("10.1.2.3:8765", ("10.1.2.3", 8765))
    assert wild.accepts_host("10.1.2.3:8765", ("::ffff:10.1.2.3", 8765))
    assert wild.accepts_host("[fe80::1]:8765", ("fe80::1", 8765))
    assert not wild.accepts_host("10.1.2.4:8765", ("10.1.2.3", 8765))
    assert not wild.accepts_host("rebind.evil.example:8765", ("10.1.2.3", 8765))


def test_every_response_carries_the_security_headers(web):
    client, app = web
    from starlette.routing import Route as R

    async def boom(request):
        raise RuntimeError("secret-value-4711 in the message")

    app.router.routes.append(R("/boom", boom))
    answers = [client.get("/"), client.get("/static/veil.js"), client.get("/job"), client.get("/no-such-page"),
               client.get("/boom"), client.post("/open/adult"), _anonymous(app).get("/"),
               client.get("/", headers={"Host": "evil.example"}), client.post(f"/open/file?csrf={client.csrf}")]
    assert [a.status_code for a in answers] == [200, 200, 200, 404, 500, 403, 401, 400, 400]
    for answer in answers:
        assert answer.headers["content-security-policy"] == CSP
        assert "default-src 'self'" in CSP and "unsafe-inline" not in CSP
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["cache-control"] == "no-store"
        assert "Traceback" not in answer.text and "secret-value-4711" not in answer.text
    assert "error: internal error" in answers[4].text


def test_no_page_has_inline_script_or_style_or_a_traceback(web):
    client, app = web
    pages = [client.post(f"/open/adult?csrf={client.csrf}"), client.get("/no-such-page")]
    pages += [client.get(path) for method, path in _paths(app) if method == "GET" and not path.startswith("/static/")]
    for page in pages:
        assert page.status_code < 500, (page.url, page.status_code)
        if not page.headers.get("content-type", "").startswith("text/html"):
            continue
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page.text), page.url
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=", page.text), page.url
        assert "Traceback" not in page.text, page.url


@pytest.mark.parametrize("name", ["../x.csv", "/etc/passwd", ".hidden", "a/b.csv", "a\\b.csv", "..", "x\x00.csv",
                                  "../../../../tmp/evil.csv", ".", "-rf.csv"])
def test_an_upload_name_that_is_not_a_plain_file_name_is_rejected_and_writes_nothing(web, tmp_path, name):
    client, app = web
    root = app.state.workspace.root
    around = {p: _names(p) for p in (root, root.parent, tmp_path)}
    answer = client.post(f"/open/upload?csrf={client.csrf}", files={"file": (name, b"a,b\n1,2\n")})
    assert answer.status_code == 400, (name, answer.status_code)
    assert "error: file name" in answer.text and "not a plain file name" in answer.text
    assert {p: _names(p) for p in around} == around
    assert app.state.workspace.state.data is None


def test_plain_names_with_spaces_accents_and_a_browser_copy_number_are_accepted(web):
    client, app = web
    for name in ("visits 2024.csv", "données.csv", "data (1).csv", "a_b-c+d.csv"):
        answer = client.post(f"/open/upload?csrf={client.csrf}", files={"file": (name, b"a,b\n1,2\n")})
        assert answer.status_code == 200, (name, answer.text)
        assert (app.state.workspace.root / name).read_bytes() == b"a,b\n1,2\n"


def test_a_symlink_out_of_the_workspace_is_refused_by_name(web, tmp_path):
    from veil.errors import ParameterError

    client, app = web
    workspace = app.state.workspace
    outside = tmp_path / "outside.csv"
    outside.write_text("name,salary\nsecret-person,999999\n")
    (workspace.root / "leak.csv").symlink_to(outside)
    (workspace.root / "loop.csv").symlink_to(workspace.root / "loop.csv")
    (workspace.root / "dangling.csv").symlink_to(tmp_path / "nowhere" / "x.csv")
    for name in ("leak.csv", "loop.csv", "dangling.csv"):
        answer = client.post(f"/open/file?csrf={client.csrf}", data={"name": name})
        assert answer.status_code == 400 and "leads outside the workspace" in answer.text, name
        assert "secret-person" not in answer.text
        with pytest.raises(ParameterError, match="leads outside the workspace"):
            workspace.existing(name)
        with pytest.raises(ParameterError):
            workspace.path(name)
    assert workspace.state.data is None
    assert "leak.csv" not in workspace.files() and "loop.csv" not in workspace.files()
    # writing through the link's name would replace the link, never the file outside: refused all the same
    answer = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("leak.csv", b"x\n1\n")})
    assert answer.status_code == 400 and outside.read_text().startswith("name,salary")


def test_a_symlink_to_another_workspace_file_is_accepted(web):
    client, app = web
    workspace = app.state.workspace
    workspace.write_bytes("real.csv", b"a,b\n1,2\n3,4\n")
    (workspace.root / "alias.csv").symlink_to("real.csv")
    assert workspace.existing("alias.csv") == workspace.root / "alias.csv"
    answer = client.post(f"/open/file?csrf={client.csrf}", data={"name": "alias.csv"})
    assert answer.status_code == 200 and workspace.state.data == "alias.csv"
    sub = workspace.root / "sub"
    sub.mkdir()
    (sub / "deep.csv").write_text("a\n1\n")
    (workspace.root / "deep.csv").symlink_to(sub / "deep.csv")  # not directly in the workspace
    with pytest.raises(Exception, match="leads outside the workspace"):
        workspace.existing("deep.csv")


def test_an_upload_over_the_limit_is_413_and_writes_nothing(web, tmp_path):
    client, app = web
    root = app.state.workspace.root
    before = _names(root)
    big = b"a,b\n" + b"1,2\n" * (3 * 2**19)  # 6 MiB > 5 MiB, the fixture's limit
    answer = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("big.csv", big)})
    assert answer.status_code == 413 and "larger than the limit (5 MB)" in answer.text
    assert _names(root) == before

    def chunks():  # without a Content-Length, the limit holds on the bytes read
        yield b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.csv\"\r\n\r\n"
        for _ in range(6):
            yield b"x" * 2**20
        yield b"\r\n--b--\r\n"

    answer = client.post(f"/open/upload?csrf={client.csrf}", content=chunks(),
                         headers={"Content-Type": "multipart/form-data; boundary=b"})
    assert answer.status_code == 413 and "error: the upload is larger than the limit" in answer.text
    assert _names(root) == before and app.state.workspace.state.data is None


def test_a_failed_write_leaves_no_partial_file(web):
    from veil.errors import OutputError

    client, app = web
    workspace = app.state.workspace
    workspace.write_bytes("people.csv", b"a,b\n1,2\n")

    class Broken:
        """An upload whose reading fails half-way (a disk full, a connection lost)."""

        def __init__(self) -> None:
            self.calls = 0

        def read(self, size=-1):
            self.calls += 1
            if self.calls > 2:
                raise OSError(28, "No space left on device")
            return b"x" * 1000

    with pytest.raises(OutputError, match=r"^cannot write 'people.csv' in the workspace: No space left on device\.$"):
        workspace.write_stream("people.csv", Broken(), chunk=1000)
    assert _names(workspace.root) == ["people.csv"]  # the previous file, whole; no temporary left
    assert (workspace.root / "people.csv").read_bytes() == b"a,b\n1,2\n"

    class Interrupted(Broken):
        def read(self, size=-1):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        workspace.write_stream("other.csv", Interrupted())
    assert _names(workspace.root) == ["people.csv"]


def test_the_workspace_is_private(web):
    client, app = web
    assert app.state.workspace.root.stat().st_mode & 0o777 == 0o700


def test_a_websocket_is_refused(web):
    from starlette.websockets import WebSocketDisconnect

    client, app = web
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/"):
            pass


def test_a_killed_servers_half_written_upload_is_swept_when_a_server_takes_the_workspace(tmp_path):
    from veil.web._workspace import Workspace

    root = tmp_path / "given"
    root.mkdir(mode=0o700)
    (root / ".upload-abc123").write_bytes(b"half of a table")
    (root / "kept.csv").write_text("a\n1\n")
    workspace = Workspace(root)
    workspace.claim()
    try:
        assert sorted(p.name for p in root.iterdir()) == [".veil-serve.lock", "kept.csv"]
    finally:
        workspace.close()
    assert (root / "kept.csv").exists()  # a given workspace is kept


def test_a_given_workspace_is_created_private_and_an_existing_one_must_be_private_already(tmp_path):
    from veil.errors import ParameterError
    from veil.web._workspace import Workspace

    new = tmp_path / "a" / "b"
    assert Workspace(new).root.stat().st_mode & 0o777 == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp: its mode must not be changed
    with pytest.raises(ParameterError, match=r"can be read or entered by other users \(mode 1777\); make it private"):
        Workspace(shared)
    assert shared.stat().st_mode & 0o7777 == 0o1777
    shared.chmod(0o700)
    assert Workspace(shared).root == shared.resolve()
    (tmp_path / "file.csv").write_text("a\n")
    with pytest.raises(ParameterError, match="is not a folder"):
        Workspace(tmp_path / "file.csv")
