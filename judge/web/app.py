"""The web app of ``judge serve``: pages, JSON and server-sent events over one folder.

Starlette (a small, well-kept ASGI toolkit) makes the routes and the event
streams; uvicorn serves them.  Why not a hand-written HTTP layer: an event
stream that ends cleanly when the browser goes away, on Ctrl-C, and under
many viewers is exactly what these libraries already do right.

Read-only: no request writes anything.  Every path a request names is looked
up with :func:`judge.web.catalog.inside`, which refuses anything leading out
of the served folder (``..``, an absolute path, a link out of it).  Every
page carries a Content-Security-Policy that lets it fetch nothing but this
server's own streams.
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from judge.views.html import replay_html
from judge.views.replayfile import ReplayError, load
from judge.web import catalog, pages, state

#: How often a stream looks at the files again (a turn takes at least this long anyway).
POLL_S = 0.25
#: How long a stream lives without a change before it is closed (the browser reconnects).
IDLE_CLOSE_S = 600.0


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers={"Content-Security-Policy": pages.CSP})


def _not_found(what: str) -> HTMLResponse:
    body = f"<section><p class='why'>{pages.html.escape(what)}</p></section>"
    return _html(pages.page("missing", "Not here", body, "", {}), status=404)


class Site:
    """One served folder: its routes and what they read."""

    def __init__(
        self, root: Path, title: str = "Ocean Treasure", tournament_root: bool = False
    ) -> None:
        self.root = root.resolve()
        self.title = title
        self.stopping = threading.Event()
        #: the served folder is a tournament's even before its first file is written
        #: (``judge tournament --serve``)
        self.tournament_root = tournament_root

    def _is_tournament(self, folder: Path | None) -> bool:
        if folder is None:
            return False
        if self.tournament_root and folder == self.root:
            return True
        return catalog.kind_of(folder) is catalog.Kind.TOURNAMENT

    def _path(self, request: Request, key: str = "p") -> Path | None:
        return catalog.inside(self.root, request.query_params.get(key, ""))

    # ------------------------------------------------------------ pages
    async def index(self, request: Request) -> Response:
        items = []
        for e in catalog.entries(self.root):
            q = quote(e.rel)
            if e.kind is catalog.Kind.TOURNAMENT:
                href = f"/tournament?p={q}"
            elif e.kind is catalog.Kind.MATCH:
                href = f"/replay?p={q}"
            else:  # an eval's or a league's own pages and files, as the judge wrote them
                folder = self.root / e.rel
                name = next(
                    (
                        n
                        for n in ("index.html", "eval.json", "leaderboard.json", "book.txt")
                        if (folder / n).is_file()
                    ),
                    "",
                )
                href = "/files/" + "/".join(x for x in (q, quote(name)) if x)
            items.append(
                {"kind": e.kind.value, "rel": e.rel, "name": e.name, "href": href, "live": e.live}
            )
        return _html(pages.index_page(items, f"{self.title}: {self.root.name}"))

    async def tournament(self, request: Request) -> Response:
        folder = self._path(request)
        if folder is None or not self._is_tournament(folder):
            return _not_found("no tournament there")
        rel = folder.relative_to(self.root).as_posix()
        st = await asyncio.to_thread(state.tournament, folder)
        return _html(pages.tournament_page("" if rel == "." else rel, st))

    async def live(self, request: Request) -> Response:
        """The projector view of a tournament (default: the newest one)."""
        folder = self._path(request)
        if folder is None or not request.query_params.get("p"):
            newest = [e for e in catalog.entries(self.root) if e.kind is catalog.Kind.TOURNAMENT]
            folder = catalog.inside(self.root, newest[0].rel) if newest else None
            if folder is None and self.tournament_root:
                folder = self.root
        if folder is None or not self._is_tournament(folder):
            return _not_found("no tournament to show here")
        rel = folder.relative_to(self.root).as_posix()
        st = await asyncio.to_thread(state.tournament, folder)
        return _html(pages.projector_page("" if rel == "." else rel, st))

    async def round(self, request: Request) -> Response:
        folder = self._path(request)
        if folder is None or not folder.name.startswith("round-"):
            return _not_found("no round there")
        rel = folder.relative_to(self.root).as_posix()
        match = folder.parent.relative_to(self.root).as_posix()
        index = folder.name.removeprefix("round-")
        replay = f"/replay?p={quote(match)}&round={quote(index)}"
        return _html(pages.round_page(rel, replay))

    async def replay(self, request: Request) -> Response:
        """A finished (or unfinished) match in the replay viewer of the replay files."""
        folder = self._path(request)
        if folder is None or not folder.is_dir():
            return _not_found("no match there")
        try:
            match = await asyncio.to_thread(load, folder)
            wanted = request.query_params.get("round")
            rounds = [match.round(int(wanted))] if wanted and wanted.isdigit() else match.rounds
        except (ReplayError, ValueError) as exc:
            return _not_found(str(exc))
        teams = match.teams
        return _html(replay_html(rounds, f"{teams[0]} vs {teams[1]}", back_link="/"))

    async def files(self, request: Request) -> Response:
        """A file the judge wrote in the folder (index.html of a league, a CSV), as it is."""
        target = catalog.inside(self.root, request.path_params["path"])
        if target is None or not target.is_file():
            return _not_found("no such file here")
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if target.suffix in (".jsonl", ".part", ".log", ".csv", ".txt"):
            kind = "text/plain"
        data = await asyncio.to_thread(target.read_bytes)
        headers = {"Content-Security-Policy": pages.CSP, "X-Content-Type-Options": "nosniff"}
        if kind.startswith("text/"):
            kind += "; charset=utf-8"
        return Response(data, media_type=kind, headers=headers)

    # ----------------------------------------------------------- data
    async def tournament_state(self, request: Request) -> Response:
        folder = self._path(request)
        if folder is None or not self._is_tournament(folder):
            return JSONResponse({"error": "no tournament there"}, status_code=404)
        if request.headers.get("accept", "").startswith("text/event-stream"):
            return self._stream(lambda: state.tournament(folder))
        return JSONResponse(await asyncio.to_thread(state.tournament, folder))

    async def round_state(self, request: Request) -> Response:
        folder = self._path(request)
        if folder is None or not folder.name.startswith("round-"):
            return JSONResponse({"error": "no round there"}, status_code=404)
        return StreamingResponse(self._round_events(folder), media_type="text/event-stream")

    def _stream(self, read: Callable[[], Any]) -> StreamingResponse:
        return json_stream(read, self.stopping, POLL_S)

    async def _round_events(self, folder: Path) -> AsyncIterator[str]:
        """The round's header and turns as they are written; then ``finished``."""
        start, sent_head, idle = 0, False, 0.0
        while not self.stopping.is_set() and idle < IDLE_CLOSE_S:
            path, growing = state.round_file(folder)
            if path is not None:
                head, frames, start = await asyncio.to_thread(state.round_frames, path, start)
                finished = not growing and path.name == state.REPLAY
                if (head and not sent_head) or frames or finished:
                    msg: dict[str, Any] = {"frames": frames, "finished": finished}
                    if head and not sent_head:
                        msg["head"], sent_head = head, True
                    yield f"data: {json.dumps(msg, ensure_ascii=False)}\n\n"
                    idle = 0.0
                if finished:
                    return
            await asyncio.sleep(POLL_S)
            idle += POLL_S

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/", self.index),
                Route("/tournament", self.tournament),
                Route("/live", self.live),
                Route("/round", self.round),
                Route("/replay", self.replay),
                Route("/files/{path:path}", self.files),
                Route("/api/tournament", self.tournament_state),
                Route("/api/round", self.round_state),
            ]
        )


def json_stream(
    read: Callable[[], Any], stopping: threading.Event, poll_s: float
) -> StreamingResponse:
    """Server-sent events of what ``read()`` gives (as JSON), looked at every ``poll_s``
    and sent when it changed, until ``stopping`` is set or it stayed the same for
    :data:`IDLE_CLOSE_S` (the browser then reconnects)."""

    async def events() -> AsyncIterator[str]:
        last, idle = "", 0.0
        while not stopping.is_set() and idle < IDLE_CLOSE_S:
            now = json.dumps(await asyncio.to_thread(read), ensure_ascii=False)
            if now != last:
                last, idle = now, 0.0
                yield f"data: {now}\n\n"
            await asyncio.sleep(poll_s)
            idle += poll_s

    return StreamingResponse(events(), media_type="text/event-stream")


def make_server(app: Any, host: str, port: int) -> Any:
    """A uvicorn server for ``app`` (not started)."""
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")
    return uvicorn.Server(config)


def loopback(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


def import_web() -> None:
    """Starlette and uvicorn, or the JudgeError that says what to install."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        from judge.errors import UsageError
        from judge.web import INSTALL_HINT

        raise UsageError(f"the web pages need Starlette and uvicorn: {INSTALL_HINT}") from None


class Background:
    """A server in a thread of this process (``judge tournament --serve``): started, then
    stopped with the tournament.  The thread never installs signal handlers: Ctrl-C
    stays the tournament's."""

    def __init__(self, root: Path, host: str, port: int) -> None:
        self.site = Site(root, tournament_root=True)
        self.server = make_server(self.site.app(), host, port)
        self.server.install_signal_handlers = lambda: None  # the main thread's are kept
        self.thread = threading.Thread(target=self.server.run, name="web", daemon=True)

    def start(self, timeout: float = 10.0) -> None:
        self.thread.start()
        deadline = threading.Event()
        for _ in range(int(timeout / 0.05)):
            if self.server.started or not self.thread.is_alive():
                break
            deadline.wait(0.05)
        if not self.server.started:
            from judge.errors import UsageError

            raise UsageError("the web server did not start (is the port in use?)")

    def stop(self) -> None:
        self.site.stopping.set()
        self.server.should_exit = True
        self.thread.join(10)


#: The longest MAP.INP the position editor sends (a 15 x 15 sea is under 1 KiB).
MAX_MAP_INP = 64 * 1024


class PlaySite:
    """``judge play``: a person's round against a bot, and the position editor."""

    def __init__(self, session: Any, ask: Callable[[str], Any], first_map_inp: str) -> None:
        self.session = session
        self.ask_bot = ask
        self.first_map_inp = first_map_inp
        self.site = Site(session.out)

    async def page(self, request: Request) -> Response:
        return _html(pages.play_page())

    async def editor(self, request: Request) -> Response:
        # the bot's view of the turn being played (its boat and gold first), never the person's
        start = self.session.bot_map_inp() or self.first_map_inp
        return _html(pages.editor_page(start))

    async def replay(self, request: Request) -> Response:
        """The round played, in the replay viewer: no link back to a tournament (none)."""
        try:
            match = await asyncio.to_thread(load, self.session.out)
        except ReplayError as exc:
            return _not_found(str(exc))
        teams = match.teams
        return _html(replay_html(match.rounds, f"{teams[0]} vs {teams[1]}"))

    async def events(self, request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            n = 0
            while not self.site.stopping.is_set():
                new = await asyncio.to_thread(self.session.events_after, n, 1.0)
                if new:
                    n += len(new)
                    yield f"data: {json.dumps(new, ensure_ascii=False)}\n\n"
                    if any(e.get("kind") in ("end", "error", "stopped") for e in new):
                        return

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def move(self, request: Request) -> Response:
        try:
            data = await request.json()
            row, col = int(data["row"]), int(data["col"])
        except (ValueError, TypeError, KeyError):
            return JSONResponse({"error": "give {row, col}"}, status_code=400)
        if not (0 <= row <= 99 and 0 <= col <= 99):
            return JSONResponse({"error": "row and col are 1-based cells"}, status_code=400)
        self.session.move(row, col)
        return JSONResponse({"ok": True})

    async def ask(self, request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_MAP_INP:
            return JSONResponse({"error": "a MAP.INP is far shorter"}, status_code=400)
        try:
            text = json.loads(body)["map_inp"]
            if not isinstance(text, str):
                raise TypeError
        except (ValueError, TypeError, KeyError):
            return JSONResponse({"error": "give {map_inp: text}"}, status_code=400)
        try:
            answer = await asyncio.to_thread(self.ask_bot, text)
        except Exception as exc:  # noqa: BLE001 - a judge failure, said on the page
            return JSONResponse({"error": f"the judge could not run the bot: {exc}"})
        return JSONResponse(answer)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/", self.page),
                Route("/editor", self.editor),
                Route("/api/play/events", self.events),
                Route("/api/play/move", self.move, methods=["POST"]),
                Route("/api/play/ask", self.ask, methods=["POST"]),
                Route("/replay", self.replay),
                Route("/files/{path:path}", self.site.files),
            ]
        )
