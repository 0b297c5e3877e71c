"""The ladder's part of the arena's web app: the public ladder, games, replays, head to head,
a team's own failures, map choice and challenges, and their JSON.

Public (no login): ``/ladder``, ``/games?team=NAME``, ``/games/ID`` (a game's
two rounds) and ``/games/ID/replay?round=N`` (the judge's replay viewer),
``/h2h?a=A&b=B``; ``GET /api/standings`` and ``GET /api/games?team=NAME``.
While the scoreboard is hidden (``scoreboard: {hidden: true}``, from the freeze
to the release) every one of them shows the hidden board: names and versions,
nothing else (:mod:`judge.arena.scoreboard`).  Challenges are seen only by
their two teams and the organiser.

A team's (its session, or ``Authorization: Bearer TOKEN`` for the API):
``/team/ladder`` (its place, its failures first with the judge's words and the
turn's MAP.INP, its map for the final, challenges), ``POST /api/map`` (field
``map``), ``POST /api/challenges`` (fields ``opponent``, ``pairs``).  Forms
carry the session's CSRF token.

Pages update by themselves over server-sent events, as the rest of the arena's
pages do (one poll of the store per stream; :meth:`ArenaSite._stream`).
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from judge.arena import board
from judge.arena import games as g
from judge.arena.ladderconfig import LadderSettings, ladder_settings
from judge.arena.ladderloop import Ladder, practice_maps
from judge.arena.phases import MapList, choose_map, chosen_maps
from judge.arena.uploads import BodyTooLarge
from judge.web import arenapages
from judge.web.ladderpages import game_page, games_page, h2h_page, ladder_page, team_ladder_page

if TYPE_CHECKING:
    from judge.web.arena import ArenaSite

#: A form field's longest value here (a map's or a team's name).
MAX_FIELD = 200


class LadderSite:
    """The ladder's routes over an :class:`ArenaSite` (its store, sessions and tokens)."""

    def __init__(self, site: ArenaSite):
        self.site = site
        self.settings: LadderSettings = ladder_settings(site.config.later)
        self.maps = MapList(site.root, site.config.practice_maps)
        self._ladder: Ladder | None = None
        #: each team's failures, with the latest game they were read after: a page's stream
        #: asks twice a second, the replays are read again only when a game has ended
        self._failures: dict[int, tuple[int, list[Any]]] = {}
        self._lock = threading.Lock()

    @property
    def ladder(self) -> Ladder:
        """The ladder's challenge desk (its maps are read when the first challenge comes)."""
        if self._ladder is None:
            c = self.site.config
            maps = practice_maps(self.site.root, c.practice_maps, self.settings, c.organiser_map)
            self._ladder = Ladder(self.site.store, self.settings, maps)
        return self._ladder

    # -------------------------------------------------------------- viewers
    def _viewer(self, request: Request) -> board.Viewer:
        s = self.site._session(request)
        if s is not None:
            return board.Viewer(None if s.account.organiser else s.account.id, s.account.organiser)
        team = self.site._bearer(request)
        return board.Viewer(team.id if team is not None else None)

    def _hidden(self, viewer: board.Viewer) -> bool:
        return board.hidden(self.site.store, self.settings.scoreboard) and not viewer.organiser

    # --------------------------------------------------------------- state
    def _ladder_state(self, viewer: board.Viewer) -> dict[str, Any]:
        root, store = self.site.root, self.site.store
        return board.standings_json(root, store, self.settings.scoreboard, viewer)

    def _games_state(self, team: str | None, viewer: board.Viewer) -> dict[str, Any]:
        if self._hidden(viewer):
            return {"hidden": True, "team": team, "games": []}
        return {
            "hidden": False,
            "team": team,
            "games": board.games_json(self.site.store, team, viewer),
        }

    def _team_state(self, team_id: int) -> dict[str, Any]:
        store = self.site.store
        picks = chosen_maps(store)
        taken = {m for t, m in picks.items() if t != team_id}
        return {
            "phase": store.phase.value,
            "place": board.team_summary(store, team_id),
            "failures": self._team_failures(team_id),
            "map": picks.get(team_id),
            "maps": [{"name": m, "taken": m in taken} for m in self.maps.names()],
            "opponents": sorted(
                p.team for p in g.players(store, current_only=True) if p.team_id != team_id
            ),
            "games": board.games_json(store, self._team_name(team_id), board.Viewer(team_id), 40),
        }

    def _team_failures(self, team_id: int) -> list[Any]:
        latest = board.latest_game(self.site.store, team_id)
        with self._lock:
            known = self._failures.get(team_id)
        if known is not None and known[0] == latest:
            return known[1]
        found = board.failures(self.site.root, self.site.store, team_id)
        with self._lock:
            self._failures[team_id] = (latest, found)
        return found

    def _team_name(self, team_id: int) -> str:
        account = self.site.store.account(team_id)
        return account.name if account is not None else ""

    # ---------------------------------------------------------------- JSON
    async def api_standings(self, request: Request) -> Response:
        viewer = self._viewer(request)
        return JSONResponse(await asyncio.to_thread(self._ladder_state, viewer))

    async def api_games(self, request: Request) -> Response:
        team = request.query_params.get("team")
        if team is not None and len(team) > MAX_FIELD:
            return JSONResponse({"error": "team: too long"}, 400)
        viewer = self._viewer(request)
        return JSONResponse(await asyncio.to_thread(self._games_state, team, viewer))

    async def _api_team(self, request: Request) -> tuple[int, dict[str, str]] | Response:
        team = self.site._bearer(request)
        if team is None:
            return JSONResponse(
                {
                    "error": "not logged in: give your team's upload token (Authorization: Bearer TOKEN)"
                },
                401,
            )
        fields = await _fields(request)
        if isinstance(fields, Response):
            return fields
        return team.id, fields

    async def api_map(self, request: Request) -> Response:
        got = await self._api_team(request)
        if isinstance(got, Response):
            return got
        team_id, fields = got
        name = fields.get("map", "")
        if not name:
            return JSONResponse({"error": "map: give the name of a map of the list"}, 400)
        status, said = await asyncio.to_thread(
            choose_map, self.site.store, self.maps, team_id, name
        )
        if status != 200:
            return JSONResponse({"error": said}, status)
        return JSONResponse({"team": self._team_name(team_id), "map": said})

    async def api_map_get(self, request: Request) -> Response:
        team = self.site._bearer(request)
        if team is None:
            return JSONResponse({"error": "not logged in: give your team's upload token"}, 401)
        state = await asyncio.to_thread(self._team_state, team.id)
        return JSONResponse({"team": team.name, "map": state["map"], "maps": state["maps"]})

    async def api_challenge(self, request: Request) -> Response:
        got = await self._api_team(request)
        if isinstance(got, Response):
            return got
        team_id, fields = got
        status, said = await asyncio.to_thread(self._challenge, team_id, fields)
        if status != 202:
            return JSONResponse({"error": said}, status)
        return JSONResponse({"games": said}, 202)

    def _challenge(self, team_id: int, fields: dict[str, str]) -> tuple[int, Any]:
        pairs = fields.get("pairs", "1")
        if not pairs.isdigit() or len(pairs) > 4:
            return 400, "pairs: give a whole number"
        status, said = self.ladder.challenge(
            team_id, self._team_name(team_id), fields.get("opponent", ""), int(pairs)
        )
        if status == 202:
            self.site.wake()
        return status, said

    # --------------------------------------------------------------- pages
    async def ladder_page(self, request: Request) -> Response:
        viewer = self._viewer(request)
        state = await asyncio.to_thread(self._ladder_state, viewer)
        return HTMLResponse(ladder_page(state))

    async def ladder_events(self, request: Request) -> Response:
        viewer = self._viewer(request)
        return self.site._stream(("ladder", viewer), lambda: self._ladder_state(viewer))

    async def games_page(self, request: Request) -> Response:
        team = request.query_params.get("team")
        viewer = self._viewer(request)
        if team is not None and len(team) > MAX_FIELD:
            return _message("team: too long", 400)
        state = await asyncio.to_thread(self._games_state, team, viewer)
        return HTMLResponse(games_page(state))

    def _game(self, request: Request) -> tuple[g.Game, dict[str, g.Player]] | Response:
        raw = request.path_params["id"]
        viewer = self._viewer(request)
        game = g.game(self.site.store, int(raw)) if raw.isdigit() and len(raw) < 12 else None
        who = {p.key: p for p in g.players(self.site.store)}
        if (
            game is None
            or game.state == "dropped"
            or self._hidden(viewer)
            or not board.may_see(game, who, viewer)
        ):
            return _message("no such game", 404)
        return game, who

    async def game_page(self, request: Request) -> Response:
        got = await asyncio.to_thread(self._game, request)
        if isinstance(got, Response):
            return got
        game, who = got
        return HTMLResponse(game_page(board.game_json(game, who)))

    async def replay(self, request: Request) -> Response:
        from judge.views.html import replay_html
        from judge.views.replayfile import ReplayError, load_replay_file

        got = await asyncio.to_thread(self._game, request)
        if isinstance(got, Response):
            return got
        game, who = got
        wanted = request.query_params.get("round", "1")
        rounds = [r for r in game.rounds or [] if str(r.get("round")) == wanted and r.get("replay")]
        if not rounds:
            return _message("no replay of that round", 404)
        path = (self.site.root / rounds[0]["replay"]).resolve()
        if not path.is_relative_to(self.site.root / g.GAMES_DIR) or not path.is_file():
            return _message("no replay of that round", 404)
        try:
            replay = await asyncio.to_thread(load_replay_file, path, int(wanted))
        except ReplayError as exc:
            return _message(str(exc), 404)
        names = rounds[0].get("seats") or ["", ""]
        page = replay_html(
            [replay], f"game {game.id}: {names[0]} vs {names[1]}", back_link=f"/games/{game.id}"
        )
        return HTMLResponse(page)

    async def h2h_page(self, request: Request) -> Response:
        a, b = request.query_params.get("a", ""), request.query_params.get("b", "")
        if len(a) > MAX_FIELD or len(b) > MAX_FIELD:
            return _message("a team's name is shorter", 400)
        viewer = self._viewer(request)
        if self._hidden(viewer):
            state: dict[str, Any] = {"hidden": True, "teams": [a, b], "pairs": None, "games": []}
        else:
            state = await asyncio.to_thread(board.head_to_head, self.site.store, a, b, viewer)
        if request.headers.get("accept", "").startswith("application/json"):
            return JSONResponse(state)
        return HTMLResponse(h2h_page(state))

    async def team_page(self, request: Request) -> Response:
        s = self.site._session(request)
        if s is None or s.account.organiser:
            return RedirectResponse("/login", 303)
        state = await asyncio.to_thread(self._team_state, s.account.id)
        return HTMLResponse(
            team_ladder_page(s.account.name, s.csrf, state, self._notice(request, state))
        )

    def _notice(self, request: Request, state: dict[str, Any]) -> str:
        """What a form's redirect reports, in the page's own words: a link can name what
        happened (a map of the list, a number of pairs), never put its own text there."""
        asked = request.query_params
        if asked.get("map") and asked.get("map") == state.get("map"):
            return f"your map for the final: {state['map']}"
        pairs = asked.get("challenged", "")
        if pairs.isdigit() and len(pairs) < 4:
            return f"{int(pairs)} challenge pair(s) queued"
        return ""

    async def team_events(self, request: Request) -> Response:
        s = self.site._session(request)
        if s is None or s.account.organiser:
            return JSONResponse({"error": "not logged in as a team"}, 401)
        team_id = s.account.id
        return self.site._stream(("team-ladder", team_id), lambda: self._team_state(team_id))

    async def team_map(self, request: Request) -> Response:
        checked = await self.site._form_session(request)
        if isinstance(checked, Response):
            return checked
        s, fields = checked
        if s.account.organiser:
            return _message("the organiser plays no map", 403)
        status, said = await asyncio.to_thread(
            choose_map,
            self.site.store,
            self.maps,
            s.account.id,
            str(fields.get("map", ""))[:MAX_FIELD],
        )
        if status != 200:
            return _message(said, status, "/team/ladder")
        return RedirectResponse(f"/team/ladder?map={quote(said)}", 303)

    async def team_challenge(self, request: Request) -> Response:
        checked = await self.site._form_session(request)
        if isinstance(checked, Response):
            return checked
        s, fields = checked
        if s.account.organiser:
            return _message("the organiser challenges nobody", 403)
        asked = {k: str(fields.get(k, ""))[:MAX_FIELD] for k in ("opponent", "pairs")}
        status, said = await asyncio.to_thread(self._challenge, s.account.id, asked)
        if status != 202:
            return _message(str(said), status, "/team/ladder")
        return RedirectResponse(f"/team/ladder?challenged={len(said)}", 303)

    def routes(self) -> list[Route]:
        return [
            Route("/ladder", self.ladder_page),
            Route("/ladder/events", self.ladder_events),
            Route("/games", self.games_page),
            Route("/games/{id}", self.game_page),
            Route("/games/{id}/replay", self.replay),
            Route("/h2h", self.h2h_page),
            Route("/team/ladder", self.team_page),
            Route("/team/ladder/events", self.team_events),
            Route("/team/map", self.team_map, methods=["POST"]),
            Route("/team/challenge", self.team_challenge, methods=["POST"]),
            Route("/api/standings", self.api_standings, methods=["GET"]),
            Route("/api/games", self.api_games, methods=["GET"]),
            Route("/api/map", self.api_map, methods=["POST"]),
            Route("/api/map", self.api_map_get, methods=["GET"]),
            Route("/api/challenges", self.api_challenge, methods=["POST"]),
        ]


async def _fields(request: Request) -> dict[str, str] | Response:
    """A small request's fields: a form (urlencoded or multipart, no files) or a JSON object."""
    kind = request.headers.get("content-type", "")
    try:
        if kind.startswith("application/json"):
            data = json.loads(await request.body() or b"{}")
            if not isinstance(data, dict):
                raise ValueError("not an object")
            return {str(k): str(v)[:MAX_FIELD] for k, v in data.items()}
        form = await request.form(max_files=0, max_fields=8)
        return {k: str(v)[:MAX_FIELD] for k, v in form.items()}
    except BodyTooLarge:
        raise  # cut at its cap: the app answers 413
    except Exception:  # noqa: BLE001 - a body that is no form: said, never a traceback
        return JSONResponse({"error": "give the fields as a form or a JSON object"}, 400)


def _message(message: str, status: int, back: str = "/ladder") -> HTMLResponse:
    return HTMLResponse(arenapages.message_page("Arena", message, back), status)


__all__ = ["LadderSite"]
