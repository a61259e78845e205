"""The rules every request passes before it reaches a page.

1. **Host** must be one the server answers as (``127.0.0.1:PORT``, ``localhost:PORT``, or the
   ``--host`` given): a page served under another name is a DNS-rebinding attempt (400).
2. **The token.**  ``/?token=TOKEN`` (the start URL) sets the session cookie (HttpOnly,
   SameSite=Strict) and redirects to ``/`` so that the token leaves the address bar; every other
   request without that cookie is refused (401).
3. **Origin.**  A state-changing request (anything but GET/HEAD) whose ``Origin`` is present and
   not the server's own is refused (403); so is one without the CSRF token, taken from the
   ``X-CSRF-Token`` header or the ``csrf`` query parameter (every form's action carries it).
4. **Size.**  A request body over the upload limit is refused (413) before it is read whole.
5. **Headers** on every response: ``Content-Security-Policy: default-src 'self'`` (no inline
   script, no frame), ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: same-origin`` (with ``no-referrer`` a browser sends ``Origin: null`` on its own forms),
   ``Cache-Control: no-store``.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from http import cookies
from urllib.parse import parse_qs

__all__ = ["Guard", "SecurityMiddleware", "COOKIE", "CSP"]

COOKIE = "veil_session"
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; "
       "frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"same-origin"), (b"cache-control", b"no-store"), (b"x-frame-options", b"DENY")]
SAFE_METHODS = {"GET", "HEAD"}


@dataclass
class Guard:
    """The secrets of one server: the start ``token``, the ``session`` cookie value it is
    exchanged for, the ``csrf`` token of its forms, the ``hosts`` it answers as, and the body limit."""

    hosts: frozenset[str]
    max_body: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    session: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @classmethod
    def for_address(cls, host: str, port: int, max_body: int) -> "Guard":
        names = {host, "127.0.0.1", "localhost"} if host in ("127.0.0.1", "localhost") else {host}
        if host in ("::1", "[::1]"):
            names = {"[::1]", "localhost"}
        return cls(frozenset(f"{n}:{port}" for n in names), max_body)

    def origins(self) -> set[str]:
        return {f"http://{h}" for h in self.hosts}


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode(), b.encode())


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def _cookie(scope: dict) -> str | None:
    raw = _header(scope, b"cookie")
    if not raw:
        return None
    jar = cookies.SimpleCookie()
    try:
        jar.load(raw)
    except cookies.CookieError:
        return None
    return jar[COOKIE].value if COOKIE in jar else None


class SecurityMiddleware:
    """ASGI middleware applying :class:`Guard`'s rules (see the module docstring)."""

    def __init__(self, app, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await _plain(send, *refusal)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if scope["path"] == "/" and "token" in query:
            await self._exchange(send)
            return

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, self._bounded(receive), with_headers)

    def _refusal(self, scope: dict) -> tuple[int, str] | None:
        g = self.guard
        if _header(scope, b"host") not in g.hosts:
            return 400, "veil serve: this host name is not the one the server was started on."
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if scope["path"] == "/" and "token" in query:
            return None if _same(query["token"][0], g.token) else (401, "veil serve: wrong token.")
        if scope["path"].startswith("/static/"):
            return None
        if not _same(_cookie(scope), g.session):
            return 401, "veil serve: open the address `veil serve` printed (it carries the token)."
        if scope["method"] not in SAFE_METHODS:
            origin = _header(scope, b"origin")
            if origin is not None and origin not in g.origins():
                return 403, "veil serve: a request from another site is refused."
            sent = _header(scope, b"x-csrf-token") or (query.get("csrf") or [None])[0]
            if not _same(sent, g.csrf):
                return 403, "veil serve: the form's CSRF token is missing or wrong; reload the page."
            length = _header(scope, b"content-length")
            if length is not None and length.isdigit() and int(length) > g.max_body:
                return 413, f"veil serve: the upload is larger than the limit ({g.max_body // 2**20} MB)."
        return None

    async def _exchange(self, send) -> None:
        cookie = (f"{COOKIE}={self.guard.session}; HttpOnly; SameSite=Strict; Path=/").encode()
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", b"/"), (b"set-cookie", cookie), *HEADERS]})
        await send({"type": "http.response.body", "body": b""})

    def _bounded(self, receive):
        limit, seen = self.guard.max_body, 0

        async def bounded():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        return bounded


class BodyTooLarge(Exception):
    """A request body grew past the upload limit while it was read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the upload is larger than the limit ({limit // 2**20} MB).")


async def _plain(send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *HEADERS]})
    await send({"type": "http.response.body", "body": body})
