"""The arena under load: uploads to verdicts and first games, games an hour, memory, and how
well the ladder orders a large field.

Two parts:

* **field** (in process, no sandbox, seconds): a simulated field of ``--field``
  teams (200) of known strengths plays the ladder's own matchmaking
  (:func:`judge.arena.ladder.next_round`: Halite's for a field this large) and is
  rated by the ladder's own rating code (:func:`judge.arena.ratings.rate_pair`)
  until every team has ``--games`` games; a pair's two rounds are won by the
  stronger team with the logistic probability of their strength gap.  Printed:
  Spearman's rank correlation of the true strengths with the ladder's order
  (conservative rating) and with mu, and Kendall's tau.
* **server** (real: minutes): a real arena (``judge arena init`` and ``serve``
  in a subprocess, its ``--jobs``) and ``--teams`` simulated teams that upload
  new versions (bundled bots, and one MinGW-built ``.exe`` when the compiler and
  wine are there) at random times for ``--minutes``.  Printed: the time from an
  upload to its verdict and to its first rated game (median, max), the games
  played an hour, against ``judge tournament`` playing the same rounds on this
  machine (a ratio, from one run), and the server's memory (peak RSS).

Run: ``python benchmarks/arena.py [field|server|all] [--field 200] [--games 30]
[--teams 6] [--minutes 5] [--jobs 2] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.arena.ladder import Entrant, LadderRules, next_round  # noqa: E402
from judge.arena.ratings import Rater, Rating, rate_pair  # noqa: E402


# ----------------------------------------------------------------- the field
def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return num / den if den else 0.0


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    n, agree = len(x), 0
    for i in range(n):
        for j in range(i + 1, n):
            agree += (
                (1 if (x[i] - x[j]) * (y[i] - y[j]) > 0 else -1)
                if x[i] != x[j] and y[i] != y[j]
                else 0
            )
    return agree / (n * (n - 1) / 2)


def p_round(strength_a: float, strength_b: float) -> float:
    """A's chance to win a round: logistic in the strength gap (400 = 10 to 1)."""
    return 1.0 / (1.0 + 10 ** ((strength_b - strength_a) / 400.0))


def simulate_field(
    teams: int = 200, games: int = 30, seed: int = 1, spread: float = 600.0
) -> dict[str, Any]:
    """The ladder's matchmaking and ratings on ``teams`` teams of known strengths, until each
    has at least ``games`` rated pairs."""
    rng = random.Random(seed)
    strength = {f"t{i:03d}": rng.uniform(0, spread) for i in range(teams)}
    ratings = {k: Rating() for k in strength}
    played = dict.fromkeys(strength, 0)
    idle = dict.fromkeys(strength, 0.0)
    rater = Rater()
    rules = LadderRules()
    started = time.perf_counter()
    clock = 0.0
    batches = 0
    met: dict[frozenset[str], int] = {}
    while min(played.values()) < games:
        entrants = [Entrant(k, ratings[k], played[k], idle[k]) for k in strength]
        batches += 1
        for pick in next_round(entrants, rules, rng, met):
            p = p_round(strength[pick.a], strength[pick.b])
            outcomes = ["win" if rng.random() < p else "loss" for _ in range(2)]
            ratings[pick.a], ratings[pick.b], _ = rate_pair(
                rater, ratings[pick.a], ratings[pick.b], outcomes
            )
            clock += 1
            for k in (pick.a, pick.b):
                played[k] += 1
                idle[k] = clock
            pair = frozenset((pick.a, pick.b))
            met[pair] = met.get(pair, 0) + 1
    keys = sorted(strength)
    truth = [strength[k] for k in keys]
    conservative = [ratings[k].conservative for k in keys]
    mus = [ratings[k].mu for k in keys]
    return {
        "teams": teams,
        "games_min": min(played.values()),
        "games_median": statistics.median(played.values()),
        "games_max": max(played.values()),
        "batches": batches,
        "spearman_conservative": round(spearman(truth, conservative), 4),
        "spearman_mu": round(spearman(truth, mus), 4),
        "kendall_conservative": round(kendall(truth, conservative), 4),
        "seconds": round(time.perf_counter() - started, 2),
    }


def print_field(r: dict[str, Any]) -> None:
    print(
        f"field: {r['teams']} teams of known strengths, games each min {r['games_min']} "
        f"median {r['games_median']} max {r['games_max']} ({r['batches']} rounds of matchmaking, "
        f"{r['seconds']} s)"
    )
    print(
        f"  rank correlation with the true strengths: Spearman {r['spearman_conservative']} "
        f"(the ladder's order, mu - 3 sigma), {r['spearman_mu']} (mu); Kendall tau "
        f"{r['kendall_conservative']}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", nargs="?", default="all", choices=("field", "server", "all"))
    ap.add_argument("--field", type=int, default=200, help="teams of the simulated field")
    ap.add_argument("--games", type=int, default=30, help="rated pairs each, at least")
    ap.add_argument("--teams", type=int, default=6, help="simulated teams of the real arena")
    ap.add_argument("--minutes", type=float, default=5.0, help="how long the real arena runs")
    ap.add_argument(
        "--jobs", type=int, default=1, help="the arena server's --jobs (a game: 2 rounds at once)"
    )
    ap.add_argument("--turns", type=int, default=10, help="K of the practice games")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the server part's arena folder")
    args = ap.parse_args(argv)
    if args.part in ("field", "all"):
        print_field(simulate_field(args.field, args.games, args.seed))
    if args.part in ("server", "all"):
        from_server = server_part(args)
        print_server(from_server)
    return 0


# ---------------------------------------------------------------- the server
PY_BOTS = ("random", "greedy", "hunter", "collector", "rammer", "planner")


def _maps(folder: Path, n: int, turns: int, seed: int) -> Path:
    """``n`` generated 7x7 practice seas with K = ``turns`` in ``folder``, and an organiser's
    map apart (its path)."""
    from judge.mapgen import generate_map
    from judge.maps import format_map

    folder.mkdir(parents=True)
    for i in range(n):
        gm = generate_map(7, 7, turns, seed=seed * 1000 + i)
        (folder / f"p{i + 1}.txt").write_text(format_map(gm), encoding="utf-8")
    organiser = folder.parent / "organiser.txt"
    organiser.write_text(
        format_map(generate_map(9, 9, turns, seed=seed * 1000 + 999)), encoding="utf-8"
    )
    return organiser


def _zip_bot(bot: str, out: Path) -> Path:
    import zipfile

    folder = ROOT / "bots" / bot
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(folder.rglob("*")):
            if f.is_file() and "__pycache__" not in f.parts:
                zf.write(f, f"{bot}/{f.relative_to(folder).as_posix()}")
    return out


def _exe(out: Path) -> Path | None:
    """bots/greedy_c built with MinGW-w64 as a 64-bit .exe (None: no compiler or no wine)."""
    import shutil
    import subprocess

    if shutil.which("x86_64-w64-mingw32-gcc") is None or shutil.which("wine") is None:
        return None
    src = ROOT / "bots" / "greedy_c" / "greedy.c"
    subprocess.run(
        ["x86_64-w64-mingw32-gcc", "-O2", "-std=c99", "-o", str(out), str(src)], check=True
    )
    return out


def _post_bot(url: str, token: str, path: Path) -> dict[str, Any]:
    import json
    import secrets
    import urllib.request

    boundary = secrets.token_hex(16)
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="bot"; filename="{path.name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + path.read_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    req = urllib.request.Request(
        f"{url}/api/submissions",
        data=body,
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return dict(json.loads(r.read()))


def _status(url: str, token: str, sid: int) -> str:
    import json
    import urllib.request

    req = urllib.request.Request(
        f"{url}/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return str(json.loads(r.read())["status"])


def _query(root: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    import sqlite3

    conn = sqlite3.connect(f"file:{root / 'arena.sqlite'}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_part(args: argparse.Namespace) -> dict[str, Any]:
    """A real arena for ``args.minutes``: uploads at random times, then the figures."""
    import csv
    import os
    import subprocess
    import tempfile

    import psutil

    rng = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    teams = [f"Đội {i + 1}" for i in range(args.teams)]
    (tmp / "teams.csv").write_text("team\n" + "".join(f"{t}\n" for t in teams), encoding="utf-8")
    organiser = _maps(tmp / "maps", args.teams + 1, args.turns, args.seed)
    root = tmp / "arena"
    judge = [sys.executable, "-m", "judge"]
    subprocess.run(
        [*judge, "arena", "init", str(root), "--teams", str(tmp / "teams.csv"), "--maps-dir", str(tmp / "maps"),
         "--organiser-map", str(organiser)],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    with (root / "arena.yaml").open("a", encoding="utf-8") as f:
        f.write(f"ladder:\n  seed: {args.seed}\n  generated: []\n  turns: {args.turns}\n")
    with (root / "credentials.csv").open(encoding="utf-8-sig") as f:
        tokens = {r["team"]: r["token"] for r in csv.DictReader(f) if r["role"] == "team"}
    files = [_zip_bot(b, tmp / f"{b}.zip") for b in PY_BOTS]
    exe = _exe(tmp / "greedy.exe")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [*judge, "arena", "serve", str(root), "--port", str(port), "--jobs", str(args.jobs)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    proc = psutil.Process(server.pid)
    uploads: list[dict[str, Any]] = []
    peak_rss = 0
    try:
        _wait_up(url)
        started = time.monotonic()
        end = started + args.minutes * 60
        # Every team uploads once at the start, then new versions at random times.
        plan = sorted(
            [(0.0, t) for t in teams]
            + [
                (rng.uniform(0.1, 0.8) * args.minutes * 60, rng.choice(teams))
                for _ in range(args.teams)
            ]
        )
        for i, (at, team) in enumerate(plan):
            while time.monotonic() - started < at:
                peak_rss = max(peak_rss, _rss(proc))
                _follow(url, tokens, root, uploads)
                time.sleep(0.5)
            bot = exe if (exe is not None and i == 1) else rng.choice(files)
            try:
                answer = _post_bot(url, tokens[team], bot)
            except Exception as exc:  # noqa: BLE001 - one busy upload (429) is part of the load
                uploads.append({"team": team, "file": bot.name, "refused": str(exc)})
                continue
            uploads.append({"team": team, "file": bot.name, "id": answer["id"], "at": time.time()})
        while time.monotonic() < end:
            peak_rss = max(peak_rss, _rss(proc))
            _follow(url, tokens, root, uploads)
            time.sleep(0.5)
        _follow(url, tokens, root, uploads)
        elapsed = time.monotonic() - started
    finally:
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
    games = _query(root, "SELECT count(*) FROM games WHERE state = 'done'")[0][0]
    per_hour = games * 3600 / elapsed
    ratio = None
    if games:
        ratio = per_hour / _tournament_pairs_an_hour(root, tmp, args)
    if not args.keep:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    done = [u for u in uploads if "verdict_s" in u]
    rated = [u for u in uploads if "first_game_s" in u]
    return {
        "teams": args.teams,
        "minutes": round(elapsed / 60, 2),
        "uploads": len(uploads),
        "refused": sum("refused" in u for u in uploads),
        "verdict_s": _median_max([u["verdict_s"] for u in done]),
        "first_rated_game_s": _median_max([u["first_game_s"] for u in rated]),
        "never_rated": len(done) - len(rated),
        "games": games,
        "games_an_hour": round(per_hour, 1),
        "vs_tournament": round(ratio, 2) if ratio is not None else None,
        "server_peak_rss_mb": round(peak_rss / 2**20, 1),
        "exe": exe is not None,
        "folder": str(tmp) if args.keep else "removed (--keep keeps it)",
    }


def _wait_up(url: str, timeout: float = 60.0) -> None:
    import urllib.request

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(f"{url}/api/standings", timeout=5).read()
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the arena server did not answer at {url}")


def _rss(proc: Any) -> int:
    try:
        return int(proc.memory_info().rss)
    except Exception:  # noqa: BLE001 - the server is gone
        return 0


def _follow(url: str, tokens: dict[str, str], root: Path, uploads: list[dict[str, Any]]) -> None:
    """Each upload's verdict time (from the API) and first rated game (from the store)."""
    for u in uploads:
        if "id" not in u:
            continue
        if "verdict_s" not in u:
            status = _status(url, tokens[u["team"]], u["id"])
            if status in ("accepted", "rejected"):
                u["verdict_s"], u["status"] = time.time() - u["at"], status
        if u.get("status") == "accepted" and "first_game_s" not in u:
            rows = _query(
                root,
                "SELECT min(g.finished_at) FROM games g WHERE g.rated = 1 AND (g.a = ? OR g.b = ?)",
                (f"v{u['id']}", f"v{u['id']}"),
            )
            if rows and rows[0][0] is not None:
                u["first_game_s"] = rows[0][0] - u["at"]


def _median_max(values: list[float]) -> tuple[float, float] | None:
    if not values:
        return None
    return (round(statistics.median(values), 1), round(max(values), 1))


def _tournament_pairs_an_hour(root: Path, tmp: Path, args: argparse.Namespace) -> float:
    """``judge tournament`` on the same bots (each team's last version) and the same kind of
    maps and K, with the same --jobs: its rounds an hour, as pairs (two rounds) an hour."""
    import subprocess

    import yaml

    rows = _query(
        root,
        "SELECT a.name, v.kind, v.path, v.sha256 FROM versions v JOIN accounts a ON a.id = v.team_id "
        "WHERE v.status = 'accepted' AND v.number = (SELECT max(c.number) FROM versions c "
        "WHERE c.team_id = v.team_id AND c.status = 'accepted')",
    )
    teams = []
    for i, (name, kind, path, sha) in enumerate(rows):
        bot = root / path if kind == "exe" else root / "store" / sha[:2] / sha / "bot"
        teams.append({"name": name, "bot": str(bot), "map": f"p{i + 1}"})
    cfg = {
        "seed": args.seed,
        "maps_dir": str(tmp / "maps"),
        "organiser_map": str(tmp / "organiser.txt"),
        "teams": teams,
    }
    (tmp / "tournament.yaml").write_text(yaml.safe_dump(cfg, allow_unicode=True), encoding="utf-8")
    out = tmp / "tournament"
    t = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "judge", "tournament", str(tmp / "tournament.yaml"), "--out", str(out),
         "--jobs", str(2 * args.jobs), "--quiet"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    elapsed = time.monotonic() - t
    n = len(teams)
    rounds = 3 * n * (n - 1) // 2
    return rounds / 2 * 3600 / elapsed


def print_server(r: dict[str, Any]) -> None:
    def mm(v: tuple[float, float] | None) -> str:
        return "none" if v is None else f"median {v[0]} s, max {v[1]} s"

    print(
        f"server: {r['teams']} teams for {r['minutes']} min, {r['uploads']} uploads "
        f"({r['refused']} refused; a MinGW .exe among them: {r['exe']})"
    )
    print(f"  upload -> verdict: {mm(r['verdict_s'])}")
    print(
        f"  upload -> first rated game: {mm(r['first_rated_game_s'])} ({r['never_rated']} accepted, not rated yet)"
    )
    print(
        f"  games (pairs) an hour: {r['games_an_hour']} ({r['games']} played); against judge tournament "
        f"playing the same bots and maps: {r['vs_tournament']}x"
    )
    print(f"  the server's peak memory (RSS): {r['server_peak_rss_mb']} MiB; folder {r['folder']}")


if __name__ == "__main__":
    raise SystemExit(main())
