"""The rules every request passes before it reaches a page (docs/web.md, "Security").

1. **Host** must be a name the server answers as (:func:`host_names`; for a wildcard bind also
   the address the connection arrived on): a page served under another name is a
   DNS-rebinding attempt (400).
2. **The token.**  ``GET /?token=TOKEN`` (the start URL) sets the session cookie (HttpOnly,
   SameSite=Strict, named after the port) and redirects to ``/`` so that the token leaves the
   address bar; every other request without that cookie is refused (401).  Tokens are compared
   in constant time.
3. **Cross-site.**  A state-changing request (anything but GET/HEAD) is refused (403) when its
   ``Origin`` is present and is not ``http://`` + its Host, when ``Sec-Fetch-Site`` is present
   and not ``same-origin``/``none``, and when it lacks the CSRF token (the ``X-CSRF-Token``
   header or the ``csrf`` query parameter every form's action carries).  A request without
   ``Origin`` (not a browser's form) still needs the CSRF token, which only the server's pages hold.
4. **Size.**  A request body over the upload limit is refused (413): on its first read when its
   ``Content-Length`` says so (nothing of it is read), else (chunked) as soon as the bytes read
   pass the limit (:class:`BodyTooLarge`, raised inside the page's form parsing and answered
   413 by the app, with its error page).
5. **Headers** on every response: ``Content-Security-Policy: default-src 'self'`` (no inline
   script, no frame), ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: same-origin``
   (with ``no-referrer`` a browser sends ``Origin: null`` on its own forms),
   ``Cache-Control: no-store``, ``X-Frame-Options: DENY``.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from dataclasses import dataclass, field
from urllib.parse import parse_qs

__all__ = ["Guard", "SecurityMiddleware", "BodyTooLarge", "COOKIE", "CSP", "is_loopback", "is_wildcard",
           "host_names"]

COOKIE = "veil_session"
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; "
       "frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"same-origin"), (b"cache-control", b"no-store"), (b"x-frame-options", b"DENY")]
SAFE_METHODS = {"GET", "HEAD"}
SAME_SITE = {"same-origin", "none"}  # Sec-Fetch-Site values a state-changing request may carry
WILDCARDS = {"0.0.0.0", "::", "[::]", ""}


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Whether ``host`` binds every address of the machine (``0.0.0.0``, ``::``)."""
    return host in WILDCARDS


def _literal(address: str) -> str:
    """An address as it appears in a Host header (IPv6 in brackets, IPv4-mapped IPv6 as IPv4)."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address.lower()
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return f"[{ip.compressed}]" if ip.version == 6 else ip.compressed


def host_names(host: str) -> set[str]:
    """The names (without port) a server bound to ``host`` answers as; see docs/web.md."""
    given = _literal(host)
    if given in ("127.0.0.1", "localhost"):
        return {"127.0.0.1", "localhost"}
    if given == "[::1]":
        return {"[::1]", "localhost"}
    if is_wildcard(host):
        names = {"127.0.0.1", "localhost", "[::1]"}
        for name in (socket.gethostname(), socket.getfqdn()):
            if name:
                names.add(name.lower())
        return names
    return {given}


@dataclass
class Guard:
    """The secrets of one server: the start ``token``, the ``session`` cookie value it is
    exchanged for (in the cookie named ``cookie``), the ``csrf`` token of its forms, the
    ``hosts`` (``name:port``) it answers as, and the body limit.  ``local_port`` (a wildcard
    bind) also accepts the Host that is the connection's own local address at that port."""

    hosts: frozenset[str]
    max_body: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    session: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    cookie: str = COOKIE
    local_port: int | None = None

    @classmethod
    def for_address(cls, host: str, port: int, max_body: int) -> "Guard":
        names = host_names(host)
        hosts = {f"{n}:{port}" for n in names} | (names if port == 80 else set())
        return cls(frozenset(hosts), max_body, cookie=f"{COOKIE}_{port}",
                   local_port=port if is_wildcard(host) else None)

    def origins(self) -> set[str]:
        return {f"http://{h}" for h in self.hosts}

    def accepts_host(self, host: str | None, server: tuple | None) -> bool:
        """Whether a request's Host header names this server (``server``: the connection's local address)."""
        if host is None:
            return False
        host = host.lower()
        if host in self.hosts:
            return True
        if self.local_port is None or not server or not server[0]:
            return False
        return host == f"{_literal(str(server[0]))}:{self.local_port}"


def _same(a: str | None, b: str) -> bool:
    """Constant-time comparison of a sent secret with the expected one."""
    return a is not None and hmac.compare_digest(a.encode("utf-8", "replace"), b.encode())


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def cookie_values(scope: dict, name: str) -> list[str]:
    """Every value of the cookie ``name`` the request carries (other cookies of the host are ignored,
    however malformed)."""
    values = []
    for key, raw in scope.get("headers", []):
        if key != b"cookie":
            continue
        for part in raw.decode("latin-1").split(";"):
            key_text, sep, value = part.strip().partition("=")
            if sep and key_text == name:
                values.append(value.strip().strip('"'))
    return values


def _query(scope: dict) -> dict[str, list[str]]:
    return parse_qs(scope.get("query_string", b"").decode("latin-1"))


class SecurityMiddleware:
    """ASGI middleware applying :class:`Guard`'s rules (see the module docstring)."""

    def __init__(self, app, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "websocket":  # the app has none: refuse before anything is read
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            await _plain(send, *refusal)
            return
        if self._is_exchange(scope):
            await self._exchange(send)
            return

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, self._bounded(scope, receive), with_headers)

    @staticmethod
    def _is_exchange(scope: dict) -> bool:
        return scope["path"] == "/" and scope["method"] in SAFE_METHODS and "token" in _query(scope)

    def refusal(self, scope: dict) -> tuple[int, str] | None:
        """``(status, text)`` when the request breaks a rule, else None."""
        g = self.guard
        host = _header(scope, b"host")
        if not g.accepts_host(host, scope.get("server")):
            return 400, "veil serve: this host name is not the one the server was started on."
        if self._is_exchange(scope):
            if _same(_query(scope)["token"][0], g.token):
                return None
            return 401, "veil serve: wrong token; open the address this run of `veil serve` printed."
        if scope["path"].startswith("/static/") and scope["method"] in SAFE_METHODS:
            return None
        if not any(_same(value, g.session) for value in cookie_values(scope, g.cookie)):
            return 401, "veil serve: open the address `veil serve` printed (it carries the token)."
        if scope["method"] not in SAFE_METHODS:
            refused = self._cross_site(scope, host)
            if refused is not None:
                return refused
        return None

    def _cross_site(self, scope: dict, host: str) -> tuple[int, str] | None:
        origin = _header(scope, b"origin")
        if origin is not None and origin.lower() != f"http://{host.lower()}":
            return 403, "veil serve: a request from another site is refused."
        fetch_site = _header(scope, b"sec-fetch-site")
        if fetch_site is not None and fetch_site.lower() not in SAME_SITE:
            return 403, "veil serve: a request from another site is refused."
        sent = _header(scope, b"x-csrf-token") or (_query(scope).get("csrf") or [None])[0]
        if not _same(sent, self.guard.csrf):
            return 403, "veil serve: the form's CSRF token is missing or wrong; reload the page."
        return None

    async def _exchange(self, send) -> None:
        cookie = f"{self.guard.cookie}={self.guard.session}; HttpOnly; SameSite=Strict; Path=/".encode()
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", b"/"), (b"set-cookie", cookie), (b"content-length", b"0"),
                                *HEADERS]})
        await send({"type": "http.response.body", "body": b""})

    def _bounded(self, scope: dict, receive):
        """``receive``, raising :class:`BodyTooLarge` (answered 413 by the app, with its error page) on
        the first read of a body whose Content-Length is over the limit, else once the bytes read are."""
        limit, seen = self.guard.max_body, 0
        length = (_header(scope, b"content-length") or "").strip()
        declared = int(length) if length.isdigit() else 0

        async def bounded():
            nonlocal seen
            if declared > limit:
                raise BodyTooLarge(limit)
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        return bounded


def _mib(size: int) -> str:
    return f"{size / 2**20:g} MB"


class BodyTooLarge(Exception):
    """A request body grew past the upload limit while it was read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the upload is larger than the limit ({_mib(limit)}); nothing was written.")


async def _plain(send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *HEADERS]})
    await send({"type": "http.response.body", "body": body})
