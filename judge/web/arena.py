"""The arena's web app (``judge arena serve``): login, a team's page, the organiser's, the API.

Every request goes through two pieces of ASGI middleware before any route:

* :class:`BodyCap` counts the bytes of a request's body as they arrive and cuts the
  request at its route's cap (413): an upload route's cap is the sum of its files'
  caps, every other route's 64 KiB.  A ``Content-Length`` over the cap is refused
  before the body is read; a body that lies about its length, or gives none, is cut
  all the same, since the count is of the bytes that come.
* :class:`SecurityHeaders` gives every response the headers of ``judge serve``'s
  pages and more: a Content-Security-Policy that fetches nothing from elsewhere and
  forbids framing, ``nosniff``, no referrer, and no caching of private pages; under
  TLS, HSTS too.

Who is asking: a page's request by its session cookie (``arena_session``, httponly,
SameSite=Lax, Secure under TLS), looked up in the store on every request (a
password change ends every session); the API's by ``Authorization: Bearer TOKEN``
alone (no cookie counts there, so no other site can make a browser call it).
Every form's POST carries the session's CSRF token in its ``csrf`` field (the login
form's is tied to a cookie of its own): without it, 403.  A request with an
``Origin`` of another site is refused too.

Nothing of the arena folder is served as a file: a download is a version's file,
looked up by its number among the asking team's own versions (any team's, for the
organiser), at the path the store recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Hashable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from judge.arena import ArenaError
from judge.arena.accounts import Accounts, Session, same
from judge.arena.archive import write_archive
from judge.arena.config import ArenaConfig
from judge.arena.store import Account, Store, Version
from judge.arena.submissions import (
    TMP_DIR,
    Stored,
    UploadRefused,
    busy,
    classify,
    keep,
    record,
    stored_name,
    uploads_closed,
)
from judge.arena.uploads import BadForm, BodyTooLarge, Form, read_form
from judge.web import arenapages, feeds, pages
from judge.web.arenaladder import LadderSite

SESSION_COOKIE = "arena_session"
LOGIN_COOKIE = "arena_login"
#: A body's cap on every route that takes no upload.
SMALL_BODY = 64 * 1024
UPLOAD_PATHS = ("/api/submissions", "/team/upload")
CSP = pages.CSP + "; frame-ancestors 'none'"
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",  # no-referrer would make a browser send Origin: null
    "cross-origin-opener-policy": "same-origin",
    "cache-control": "no-store",
}
#: How often a page's event stream looks at the store again.
POLL_S = 0.5
MIN_PASSWORD = 8


# --------------------------------------------------------------------- middleware
class BodyCap:
    """Cut a request's body at its cap while it streams (see the module)."""

    def __init__(self, app: ASGIApp, cap_for: Callable[[str], int]):
        self.app, self.cap_for = app, cap_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = self.cap_for(scope["path"])
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        has_body = (length not in (None, b"0")) or b"transfer-encoding" in headers
        seen, ended, started = 0, not has_body, False
        if length is not None and (not length.isdigit() or int(length) > cap):
            if length.isdigit() and int(length) <= DRAIN_BYTES:
                await _drain(receive, ended)
            await _too_large(send, cap)
            return

        async def counted() -> Message:
            nonlocal seen, ended
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                ended = not message.get("more_body", False)
                if seen > cap:
                    raise BodyTooLarge(f"the request is larger than its cap of {_size(cap)}")
            else:
                ended = True
            return message

        async def sending(message: Message) -> None:
            nonlocal started, ended
            if message["type"] == "http.response.start":
                started = True
                # an answer before the whole body (a refusal): the rest is read first, or
                # the client, still sending, would see its connection reset, not the answer
                await _drain(receive, ended)
                ended = True
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except BodyTooLarge:
            if not started:
                await _drain(receive, ended)
                await _too_large(send, cap)


#: Before a refusal, the rest of a body is read (and dropped), up to this much, for this
#: long: a client still sending gets to read the answer (413, why) instead of a reset
#: connection (uvicorn reads no more of a request once its answer is complete).
DRAIN_BYTES = 256 * 2**20
DRAIN_S = 30.0


async def _drain(receive: Receive, ended: bool) -> None:
    if ended:
        return
    loop = asyncio.get_running_loop()
    deadline, dropped = loop.time() + DRAIN_S, 0
    while dropped < DRAIN_BYTES:
        try:
            message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
        except (asyncio.TimeoutError, TimeoutError):
            return
        if message["type"] != "http.request":
            return
        dropped += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n >= 2**20 else f"{n // 1024} KiB"


async def _too_large(send: Send, cap: int) -> None:
    body = json.dumps({"error": f"too large: the request is larger than its cap of {_size(cap)}"})
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"connection", b"close"),
                *((k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


#: Under TLS: a browser that has seen the arena once asks for it over HTTPS only (a year).
HSTS = ("strict-transport-security", "max-age=31536000")


class SecurityHeaders:
    def __init__(self, app: ASGIApp, secure: bool = False):
        self.app = app
        self.headers = {**SECURITY_HEADERS, **dict([HSTS] if secure else [])}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.decode().lower() not in self.headers
                ]
                headers += [(k.encode(), v.encode()) for k, v in self.headers.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


# --------------------------------------------------------------------------- site
class ArenaSite:
    """One arena folder served: its routes and the store they read and write."""

    def __init__(
        self,
        root: Path,
        store: Store,
        config: ArenaConfig,
        accounts: Accounts,
        wake: Callable[[], None] = lambda: None,
        secure: bool = False,
    ):
        self.root, self.store, self.config, self.accounts = root.resolve(), store, config, accounts
        self.wake, self.secure = wake, secure
        self.login_secret = store.meta("login_secret") or secrets.token_hex(32)
        if store.meta("login_secret") is None:
            store.set_meta("login_secret", self.login_secret)
        #: set when the server begins to stop: the event streams end at their next look
        self.stopping = threading.Event()
        #: one reader per followed state, shared by all its viewers
        self.feeds = feeds.Hub(self.stopping, POLL_S)

    # ------------------------------------------------------------- who asks
    def _session(self, request: Request) -> Session | None:
        return self.accounts.session(request.cookies.get(SESSION_COOKIE, ""))

    def _bearer(self, request: Request) -> Account | None:
        auth = request.headers.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        account = self.accounts.by_token(token.strip())
        return account if account is not None and not account.organiser else None

    def _address(self, request: Request) -> str:
        return request.client.host if request.client else "?"

    def _foreign_origin(self, request: Request) -> bool:
        origin = request.headers.get("origin")
        if not origin or origin == "null":
            return origin == "null"
        return urlsplit(origin).netloc != request.headers.get("host", "")

    def _login_csrf(self, nonce: str) -> str:
        return hmac.new(self.login_secret.encode(), nonce.encode(), hashlib.sha256).hexdigest()

    def _set_session(self, response: Response, cookie: str) -> None:
        response.set_cookie(
            SESSION_COOKIE, cookie, httponly=True, samesite="lax", secure=self.secure, path="/"
        )

    # ------------------------------------------------------------ the pages
    async def home(self, request: Request) -> Response:
        s = self._session(request)
        if s is None:
            return RedirectResponse("/login", 303)
        return RedirectResponse("/organiser" if s.account.organiser else "/team", 303)

    async def login_form(self, request: Request, message: str = "", status: int = 200) -> Response:
        nonce = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
        response = HTMLResponse(arenapages.login_page(self._login_csrf(nonce), message), status)
        response.set_cookie(
            LOGIN_COOKIE, nonce, httponly=True, samesite="strict", secure=self.secure, path="/login"
        )
        return response

    async def login(self, request: Request) -> Response:
        if self._foreign_origin(request):
            return _forbidden("a request from another site")
        form = await request.form(max_files=0, max_fields=8)
        nonce = request.cookies.get(LOGIN_COOKIE, "")
        given = str(form.get("csrf", ""))
        if not nonce or not given or not same(given, self._login_csrf(nonce)):
            return _forbidden(
                "the form's CSRF token is missing or wrong: open the login page again"
            )
        name, password = str(form.get("team", "")), str(form.get("password", ""))
        result = await asyncio.to_thread(
            self.accounts.login, name, password, self._address(request), self.config.rate_limits
        )
        if result.retry_after_s is not None:
            wait = int(result.retry_after_s) + 1
            response = await self.login_form(
                request, f"too many wrong passwords: try again in {wait} s", 429
            )
            response.headers["retry-after"] = str(wait)
            return response
        if result.account is None:
            return await self.login_form(request, "wrong team name or password", 401)
        cookie, _ = self.accounts.open_session(result.account)
        response = RedirectResponse("/organiser" if result.account.organiser else "/team", 303)
        self._set_session(response, cookie)
        response.delete_cookie(LOGIN_COOKIE, path="/login")
        return response

    async def _form_session(
        self, request: Request, form: Form | None = None
    ) -> tuple[Session, Any] | Response:
        """The session of a form's POST, its CSRF token checked; or the refusal."""
        if self._foreign_origin(request):
            return _forbidden("a request from another site")
        s = self._session(request)
        if s is None:
            return _forbidden("not logged in (or the session ended): log in again")
        fields: Any = (
            form.fields if form is not None else await request.form(max_files=0, max_fields=8)
        )
        given = str(fields.get("csrf", ""))
        if not given or not same(given, s.csrf):
            return _forbidden("the form's CSRF token is missing or wrong: open the page again")
        return s, fields

    async def logout(self, request: Request) -> Response:
        checked = await self._form_session(request)
        if isinstance(checked, Response):
            return checked
        self.accounts.end_session(request.cookies.get(SESSION_COOKIE, ""))
        response = RedirectResponse("/login", 303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    async def password(self, request: Request) -> Response:
        checked = await self._form_session(request)
        if isinstance(checked, Response):
            return checked
        s, fields = checked
        new = str(fields.get("new", ""))
        if len(new) < MIN_PASSWORD:
            return _message(f"a password has at least {MIN_PASSWORD} characters", 400, "/team")
        ok = await asyncio.to_thread(
            self.accounts.change_password, s.account.id, str(fields.get("current", "")), new
        )
        if not ok:
            return _message("the password now was not right: nothing changed", 400, "/team")
        account = self.store.account(s.account.id)
        assert account is not None
        cookie, _ = self.accounts.open_session(account)
        response = RedirectResponse("/team?notice=password", 303)
        self._set_session(response, cookie)
        return response

    async def new_token(self, request: Request) -> Response:
        checked = await self._form_session(request)
        if isinstance(checked, Response):
            return checked
        s, _ = checked
        if s.account.organiser:
            return _forbidden("the organiser uploads nothing")
        token = self.accounts.replace_token(s.account.id)
        return _message(
            f"your new upload token (shown once; the old one no longer works): {token}",
            200,
            "/team",
        )

    def _team_state(self, team: Account) -> dict[str, Any]:
        versions = self.store.versions(team.id)
        current = self.store.current_version(team.id)
        return {
            "team": team.name,
            "versions": [v.to_json(team.name) for v in reversed(versions)],
            "current": current.number if current else None,
        }

    async def team(self, request: Request) -> Response:
        s = self._session(request)
        if s is None:
            return RedirectResponse("/login", 303)
        if s.account.organiser:
            return RedirectResponse("/organiser", 303)
        note = uploads_closed(self.store, self.config) or ""
        notice = {"password": "password changed: every other session was logged out"}.get(
            request.query_params.get("notice", ""), ""
        )
        uploaded = request.query_params.get("uploaded", "")
        if uploaded.isdigit():
            notice = f"version {uploaded} uploaded: it is being checked"
        return HTMLResponse(
            arenapages.team_page(s.account.name, s.csrf, self._team_state(s.account), note, notice)
        )

    def _organiser_state(self) -> dict[str, Any]:
        teams = []
        for t in self.store.teams():
            st = self._team_state(t)
            teams.append({"id": t.id, "name": t.name, "members": t.members, **st})
        return {"teams": teams, "phase": uploads_closed(self.store, self.config) or "open"}

    async def organiser(self, request: Request) -> Response:
        s = self._session(request)
        if s is None:
            return RedirectResponse("/login", 303)
        if not s.account.organiser:
            return _message("this page is the organiser's", 403, "/team")
        return HTMLResponse(arenapages.organiser_page(s.csrf, self._organiser_state()))

    # ----------------------------------------------------------------- streams
    def _stream(self, key: Hashable, read: Callable[[], Any]) -> StreamingResponse:
        """The events of a state every viewer of ``key`` shares one reader of: ``key`` names
        what is followed and who may see it (a team's own page, the organiser's)."""
        return StreamingResponse(
            self.feeds.follow(key, lambda: feeds.Snapshot(read)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    async def team_events(self, request: Request) -> Response:
        s = self._session(request)
        if s is None or s.account.organiser:
            return JSONResponse({"error": "not logged in as a team"}, 401)
        team = s.account
        return self._stream(("team", team.id), lambda: self._team_state(team))

    async def organiser_events(self, request: Request) -> Response:
        s = self._session(request)
        if s is None or not s.account.organiser:
            return JSONResponse({"error": "not logged in as the organiser"}, 401)
        return self._stream(("organiser",), self._organiser_state)

    # --------------------------------------------------------------- uploads
    async def _upload(
        self, request: Request, team: Account, session: Session | None
    ) -> Version | Response:
        """Read, check, store and record an upload; the version, or the refusal."""
        api = session is None
        closed = uploads_closed(self.store, self.config)
        if closed is not None:
            return _refusal(closed, 403, api)
        why = busy(self.store, team.id, self.config)
        if why is not None:
            return _refusal(why, 429, api)
        caps = self.config.uploads
        mib = 2**20
        try:
            form = await read_form(
                request.stream(),
                request.headers.get("content-type", ""),
                self.root / TMP_DIR,
                {
                    "bot": caps.bot_mb * mib,
                    "source": caps.source_mb * mib,
                    "report": caps.report_mb * mib,
                },
            )
        except BodyTooLarge as exc:
            return _refusal(f"too large: {exc}", 413, api)
        except BadForm as exc:
            return _refusal(str(exc), 400, api)
        try:
            if session is not None:
                checked = await self._form_session(request, form)
                if isinstance(checked, Response):
                    return checked
            return await asyncio.to_thread(self._keep, team, form, api)
        finally:
            form.discard()  # whatever was not moved into the store

    def _keep(self, team: Account, form: Form, api: bool) -> Version | Response:
        bot = form.files.get("bot")
        if bot is None:
            return _refusal("no bot: send the .exe or the .zip in the field 'bot'", 400, api)
        kind = classify(bot.path, self.config.uploads)
        if kind.kind is None:
            return _refusal(f"{bot.filename or 'the bot'}: {kind.problem}", 400, api)
        bot_path = keep(self.root, bot, stored_name("bot", kind.kind, bot.filename))
        extra: dict[str, tuple[str, str]] = {}
        for role in ("source", "report"):
            f = form.files.get(role)
            if f is not None:
                extra[role] = (keep(self.root, f, stored_name(role, None, f.filename)), f.filename)
        stored = Stored(bot, bot_path, kind.kind, extra.get("source"), extra.get("report"))
        try:
            version = record(self.store, team.id, stored, self.config)
        except UploadRefused as exc:
            return _refusal(str(exc), exc.status, api)
        self.wake()
        return version

    async def page_upload(self, request: Request) -> Response:
        s = self._session(request)
        if s is None or s.account.organiser:
            return _forbidden("not logged in as a team (or the session ended): log in again")
        got = await self._upload(request, s.account, s)
        if isinstance(got, Response):
            return got
        return RedirectResponse(f"/team?uploaded={got.number}", 303)

    async def api_upload(self, request: Request) -> Response:
        team = self._bearer(request)
        if team is None:
            return _api_error(
                "not logged in: give your team's upload token (Authorization: Bearer TOKEN)", 401
            )
        got = await self._upload(request, team, None)
        if isinstance(got, Response):
            return got
        return JSONResponse(
            {"id": got.id, "status": got.status.value, "version": got.number, "team": team.name},
            202,
        )

    async def api_version(self, request: Request) -> Response:
        team = self._bearer(request)
        if team is None:
            return _api_error(
                "not logged in: give your team's upload token (Authorization: Bearer TOKEN)", 401
            )
        raw = request.path_params["id"]
        v = self.store.version(int(raw)) if raw.isdigit() and len(raw) < 12 else None
        if v is None or v.team_id != team.id:
            return _api_error("no such submission of your team", 404)
        return JSONResponse(v.to_json(team.name))

    async def api_versions(self, request: Request) -> Response:
        team = self._bearer(request)
        if team is None:
            return _api_error(
                "not logged in: give your team's upload token (Authorization: Bearer TOKEN)", 401
            )
        return JSONResponse(
            {
                "team": team.name,
                "submissions": [v.to_json(team.name) for v in self.store.versions(team.id)],
            }
        )

    # ------------------------------------------------------------- downloads
    def _file(self, v: Version, what: str) -> Response:
        path, name = {
            "bot": (v.path, v.original_name or f"bot.{v.kind}"),
            "source": (v.source_path, v.source_name),
            "report": (v.report_path, v.report_name),
        }.get(what, (None, None))
        if not path:
            return _message("no such file", 404)
        target = (self.root / path).resolve()
        if not target.is_relative_to(self.root / "store") or not target.is_file():
            return _message("no such file", 404)
        shown = name or target.name
        disposition = f"attachment; filename*=UTF-8''{quote(shown, safe='')}"
        return FileResponse(
            target,
            media_type="application/octet-stream",
            headers={"content-disposition": disposition},
        )

    async def team_file(self, request: Request) -> Response:
        s = self._session(request)
        if s is None or s.account.organiser:
            return RedirectResponse("/login", 303)
        number = request.path_params["number"]
        v = next((x for x in self.store.versions(s.account.id) if str(x.number) == number), None)
        if v is None:
            return _message("no such version of your team", 404, "/team")
        return self._file(v, request.path_params["what"])

    async def organiser_file(self, request: Request) -> Response:
        s = self._session(request)
        if s is None or not s.account.organiser:
            return _message("this is the organiser's", 403)
        team, number = request.path_params["team"], request.path_params["number"]
        v = next(
            (
                x
                for x in self.store.versions()
                if str(x.team_id) == team and str(x.number) == number
            ),
            None,
        )
        if v is None:
            return _message("no such version", 404, "/organiser")
        return self._file(v, request.path_params["what"])

    async def archive(self, request: Request) -> Response:
        s = self._session(request)
        if s is None or not s.account.organiser:
            return _message("this is the organiser's", 403)
        out = self.root / TMP_DIR / f"archive-{secrets.token_hex(8)}.zip"
        await asyncio.to_thread(write_archive, self.root, self.store, out)
        stamp = time.strftime("%Y%m%d-%H%M")
        return FileResponse(
            out,
            media_type="application/zip",
            filename=f"arena-{stamp}.zip",
            background=BackgroundTask(out.unlink, missing_ok=True),
        )

    async def too_large(self, request: Request, exc: Exception) -> Response:
        """A body cut at its cap inside a route (one that sent no length, or a false one): the
        route's own reading of it raised, and the answer is 413, as for an honest length."""
        cap = self.cap_for(request.url.path)
        return _api_error(f"too large: the request is larger than its cap of {_size(cap)}", 413)

    async def not_found(self, request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return _api_error("no such thing here", 404)
        return _message("nothing here", 404)

    def cap_for(self, path: str) -> int:
        return self.config.uploads.body_bytes if path in UPLOAD_PATHS else SMALL_BODY

    def routes(self) -> list[Route]:
        """The arena's routes (a later part of the arena adds its own to these)."""
        return [
            Route("/", self.home),
            Route("/login", self.login_form, methods=["GET"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/password", self.password, methods=["POST"]),
            Route("/team", self.team),
            Route("/team/events", self.team_events),
            Route("/team/upload", self.page_upload, methods=["POST"]),
            Route("/team/token", self.new_token, methods=["POST"]),
            Route("/team/versions/{number}/{what}", self.team_file),
            Route("/organiser", self.organiser),
            Route("/organiser/events", self.organiser_events),
            Route("/organiser/archive.zip", self.archive),
            Route("/organiser/teams/{team}/versions/{number}/{what}", self.organiser_file),
            Route("/api/submissions", self.api_upload, methods=["POST"]),
            Route("/api/submissions", self.api_versions, methods=["GET"]),
            Route("/api/submissions/{id}", self.api_version, methods=["GET"]),
            *LadderSite(self).routes(),
        ]

    def app(self) -> ASGIApp:
        handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
            404: self.not_found,
            BodyTooLarge: self.too_large,
        }
        app = Starlette(routes=self.routes(), exception_handlers=handlers)  # type: ignore[arg-type]
        return SecurityHeaders(BodyCap(app, self.cap_for), self.secure)


# ------------------------------------------------------------------------ answers
def _api_error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status)


def _message(message: str, status: int, back: str = "/") -> HTMLResponse:
    return HTMLResponse(arenapages.message_page("Arena", message, back), status)


def _forbidden(message: str) -> HTMLResponse:
    return _message(f"refused: {message}", 403)


def _refusal(message: str, status: int, api: bool) -> Response:
    return _api_error(message, status) if api else _message(message, status, "/team")


__all__ = ["ArenaError", "ArenaSite", "BodyCap", "SecurityHeaders"]
