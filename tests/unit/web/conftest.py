"""A web app on a temporary workspace, driven by Starlette's TestClient (no socket)."""

from __future__ import annotations

import re

import pytest


@pytest.fixture
def web(tmp_path):
    """``(client, app)``: a client already holding the session cookie; ``client.csrf`` is the form token."""
    from starlette.testclient import TestClient

    from veil.web._app import create_app
    from veil.web._security import Guard
    from veil.web._workspace import Workspace

    guard = Guard(hosts=frozenset({"testserver"}), max_body=5 * 2**20)
    app = create_app(Workspace(tmp_path / "ws"), guard)
    client = TestClient(app, base_url="http://testserver")
    answer = client.get(f"/?token={guard.token}", follow_redirects=False)
    assert answer.status_code == 303 and "HttpOnly" in answer.headers["set-cookie"]
    client.csrf = guard.csrf
    client.guard = guard
    return client, app


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
