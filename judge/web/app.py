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

from judge.inputfiles import RECORD_BYTES, InputFileError, parse_json, read_input_text
from judge.records import EvalSummary, RecordError
from judge.views import palette
from judge.views.html import replay_html
from judge.views.replayfile import ReplayError, load
from judge.web import catalog, evalpage, feeds, pages, projector, state, summary

#: How often the reader of a followed thing looks at its files again (a turn takes at
#: least this long anyway).
POLL_S = 0.25


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers={"Content-Security-Policy": pages.CSP})


def _not_found(what: str) -> HTMLResponse:
    body = f"<section><p class='why'>{pages.html.escape(what)}</p></section>"
    return _html(pages.page("missing", "Not here", body, "", {}), status=404)


class Site:
    """One served folder: its routes and what they read."""

    def __init__(
        self,
        root: Path,
        title: str = "Ocean Treasure",
        tournament_root: bool = False,
        pace: float = projector.DEFAULT_PACE,
    ) -> None:
        self.root = root.resolve()
        self.title = title
        self.stopping = threading.Event()
        #: one reader per followed thing (a tournament, a round), shared by its viewers
        self.feeds = feeds.Hub(self.stopping, POLL_S)
        #: the served folder is a tournament's even before its first file is written
        #: (``judge tournament --serve``): its page is the front page
        self.tournament_root = tournament_root
        #: the projector's turns a second
        self.pace = pace
        self._standings: dict[tuple[Path, int], tuple[Any, Any]] = {}

    def _is_tournament(self, folder: Path | None) -> bool:
        if folder is None:
            return False
        if self.tournament_root and folder == self.root:
            return True
        return catalog.kind_of(folder) is catalog.Kind.TOURNAMENT

    def _path(self, request: Request, key: str = "p") -> Path | None:
        return catalog.inside(self.root, request.query_params.get(key, ""))

    def _rel(self, folder: Path) -> str:
        rel = folder.relative_to(self.root).as_posix()
        return "" if rel == "." else rel

    # ------------------------------------------------------------ pages
    async def front(self, request: Request) -> Response:
        """The tournament itself when this server plays one (``--serve``), else the index."""
        if self.tournament_root:
            st = await asyncio.to_thread(state.tournament, self.root)
            return _html(pages.tournament_page("", st, home="/index"))
        return await self.index(request)

    async def index(self, request: Request) -> Response:
        items = await asyncio.to_thread(self._entries)
        return _html(pages.index_page(items, f"{self.title}: {self.root.name}"))

    def _entries(self) -> list[dict[str, Any]]:
        items = []
        for e in catalog.entries(self.root):
            q = quote(e.rel)
            href = {
                catalog.Kind.TOURNAMENT: f"/tournament?p={q}",
                catalog.Kind.MATCH: f"/replay?p={q}",
                catalog.Kind.EVAL: f"/eval?p={q}",
                catalog.Kind.LEAGUE: f"/files/{q + '/' if q else ''}index.html",
            }[e.kind]
            if e.kind is catalog.Kind.LEAGUE and not (self.root / e.rel / "index.html").is_file():
                href = f"/files/{q + '/' if q else ''}leaderboard.json"
            if e.kind is catalog.Kind.EVAL and not (self.root / e.rel / "eval.json").is_file():
                href = f"/replay?p={q}"  # no eval.json yet: its rounds
            told = summary.summarise(self.root, e)
            items.append(
                {
                    "kind": e.kind.value,
                    "rel": e.rel,
                    "name": e.name,
                    "href": href,
                    "title": told.title,
                    "state": told.state,
                    "state_text": told.state_text,
                    "lines": told.lines,
                    "live": told.state == summary.PLAYING,
                }
            )
        return items

    async def tournament(self, request: Request) -> Response:
        folder = self._path(request)
        if folder is None or not self._is_tournament(folder):
            return _not_found("no tournament there")
        st = await asyncio.to_thread(state.tournament, folder)
        return _html(pages.tournament_page(self._rel(folder), st))

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
        st = await asyncio.to_thread(state.tournament, folder)
        pace = projector.pace_or_default(request.query_params.get("pace"), self.pace)
        hold = projector.hold_or_default(request.query_params.get("hold"))
        page = projector.projector_page(self._rel(folder), st, pace, list(palette.FILL), hold)
        return _html(page)

    async def eval(self, request: Request) -> Response:
        """An eval's folder as a page (its eval.json in words, each round with its replay)."""
        folder = self._path(request)
        if folder is None or not (folder / "eval.json").is_file():
            return _not_found("no eval there (an eval writes eval.json when it ends)")
        try:
            data = await asyncio.to_thread(
                lambda: parse_json(read_input_text(folder / "eval.json", "eval.json", RECORD_BYTES))
            )
            told = EvalSummary.from_json(data)
        except (InputFileError, RecordError, ValueError) as exc:
            return _not_found(f"eval.json cannot be read: {exc}")
        return _html(evalpage.eval_page(self._rel(folder), told))

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
            return self._follow(("tournament", folder), lambda: state.TournamentSource(folder))
        return JSONResponse(await asyncio.to_thread(state.tournament, folder))

    async def standings_shown(self, request: Request) -> Response:
        """The standings of the first ``shown`` rounds in play order (what the projector has
        shown the room); kept while the ledger is unchanged, for every projector alike."""
        folder = self._path(request)
        if folder is None or not self._is_tournament(folder):
            return JSONResponse({"error": "no tournament there"}, status_code=404)
        try:
            shown = max(0, min(int(request.query_params.get("shown", "0")), 100_000))
        except ValueError:
            return JSONResponse({"error": "shown: give a number of rounds"}, status_code=400)
        stamp = state.ledger_stamp(folder)
        cached = self._standings.get((folder, shown))
        if cached is None or cached[0] != stamp:
            got = await asyncio.to_thread(state.standings_after, folder, shown)
            if len(self._standings) > 10_000:
                self._standings.clear()
            self._standings[(folder, shown)] = cached = (stamp, got)
        return JSONResponse(cached[1])

    async def round_state(self, request: Request) -> Response:
        """The round's header and turns as they are written; then ``finished``."""
        folder = self._path(request)
        if folder is None or not folder.name.startswith("round-"):
            return JSONResponse({"error": "no round there"}, status_code=404)
        return self._follow(("round", folder), lambda: state.RoundSource(folder))

    def _follow(self, key: Any, make: Callable[[], feeds.Source]) -> StreamingResponse:
        """One viewer's stream of a thing every viewer shares one reader of."""
        return StreamingResponse(
            self.feeds.follow(key, make),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/", self.front),
                Route("/index", self.index),
                Route("/tournament", self.tournament),
                Route("/live", self.live),
                Route("/eval", self.eval),
                Route("/api/standings", self.standings_shown),
                Route("/round", self.round),
                Route("/replay", self.replay),
                Route("/files/{path:path}", self.files),
                Route("/api/tournament", self.tournament_state),
                Route("/api/round", self.round_state),
            ]
        )


def make_server(app: Any, host: str, port: int, stopping: threading.Event | None = None) -> Any:
    """A uvicorn server for ``app`` (not started).

    ``stopping`` (the site's) is set the moment Ctrl-C asks the server to stop: uvicorn
    then waits for every open response to end, and a page following a tournament (the
    projector always is) ends its stream only once it sees ``stopping``.
    """
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            if stopping is not None:
                stopping.set()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")
    return Server(config)


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

    def __init__(
        self, root: Path, host: str, port: int, pace: float = projector.DEFAULT_PACE
    ) -> None:
        self.site = Site(root, tournament_root=True, pace=pace)
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
