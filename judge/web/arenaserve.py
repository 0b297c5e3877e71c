"""``judge arena serve``: the arena folder opened, its workers started, its pages served.

One process holds the folder (its lock): the store, this machine's sandbox (the
checks run here), an optional Dask cluster (``--cluster``, for the kinds of task
that play rounds there), the task slots (:class:`judge.arena.service.Service`)
and the web app under uvicorn, with TLS when a certificate and key are given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from judge.errors import UsageError
from judge.web.app import import_web, loopback

log = logging.getLogger("judge.arena")


def import_arena() -> None:
    import_web()
    try:
        import argon2  # noqa: F401
        import python_multipart  # noqa: F401
    except ImportError:
        raise UsageError(
            "the arena needs argon2-cffi and python-multipart: pip install "
            "'ocean-treasure-judge[arena]' (in a checkout of the judge: pip install -e '.[arena]')"
        ) from None


def _tls(tls: tuple[Path | None, Path | None]) -> tuple[str, str] | None:
    cert, key = tls
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise UsageError("--tls-cert and --tls-key go together (the certificate and its key)")
    for what, f in (("--tls-cert", cert), ("--tls-key", key)):
        if not f.is_file():
            raise UsageError(f"{what} {f}: no such file")
    return str(cert), str(key)


def _server_class() -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, which also tells the site when it begins to stop (Ctrl-C):
        an open event stream would otherwise hold the shutdown until its browser left."""

        def __init__(self, config: Any, on_exit: Callable[[], None]):
            super().__init__(config)
            self.on_exit = on_exit

        def handle_exit(self, sig: int, frame: Any) -> None:
            self.on_exit()
            super().handle_exit(sig, frame)

    return Server


def _Server(config: Any, on_exit: Callable[[], None]) -> Any:  # noqa: N802 - made like a class
    return _server_class()(config, on_exit)


def serve(
    folder: Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    slots: int = 1,
    cluster: str | None = None,
    tls: tuple[Path | None, Path | None] = (None, None),
    open_sandbox: Callable[[], Any] | None = None,
) -> int:
    """Serve until Ctrl-C; ``open_sandbox`` makes this machine's sandbox (the checks')."""
    import uvicorn

    from judge.arena.ladderloop import start_ladder

    import_arena()
    if not 0 < port < 65536:
        raise UsageError(f"--port {port}: give a port from 1 to 65535")
    ssl = _tls(tls)
    with ExitStack() as stack:
        arena, service, site = _open(stack, folder, slots, cluster, bool(ssl), open_sandbox)
        config = uvicorn.Config(
            site.app(),
            host=host,
            port=port,
            log_level="warning",
            lifespan="off",
            ssl_certfile=ssl[0] if ssl else None,
            ssl_keyfile=ssl[1] if ssl else None,
            timeout_graceful_shutdown=5,
        )
        server = _Server(config, site.stopping.set)
        service.start()
        stack.callback(service.close)
        ladder = start_ladder(arena.root, arena.store, arena.config, service.wake)
        stack.callback(ladder.close)
        _say_where(arena.root, host, port, slots, bool(ssl))
        try:
            server.run()
        except KeyboardInterrupt:
            pass
        site.stopping.set()
        if not server.started:
            raise UsageError(f"cannot listen on {host}:{port} (is the port in use?)")
    print("stopped", flush=True)
    return 0


def _open(
    stack: ExitStack,
    folder: Path,
    slots: int,
    cluster: str | None,
    secure: bool,
    open_sandbox: Callable[[], Any] | None,
) -> tuple[Any, Any, Any]:
    """The arena folder opened (its lock held), its sandbox, cluster, task slots and site;
    each closed by ``stack``."""
    from judge.arena.accounts import Accounts
    from judge.arena.folder import open_arena
    from judge.arena.kinds import task_kinds
    from judge.arena.service import Service
    from judge.sandbox import Sandbox
    from judge.web.arena import ArenaSite

    arena = open_arena(folder)
    stack.callback(arena.close)
    sandbox = stack.enter_context(open_sandbox() if open_sandbox else Sandbox())
    executor: Any = None
    if cluster:
        from judge.cluster.session import cluster_venue

        executor = stack.enter_context(cluster_venue(cluster, None, require_full=True)).executor
    service = Service(arena.root, arena.store, arena.config, task_kinds(), slots, sandbox, executor)
    site = ArenaSite(
        arena.root, arena.store, arena.config, Accounts(arena.store), service.wake, secure
    )
    return arena, service, site


def _say_where(root: Path, host: str, port: int, slots: int, secure: bool) -> None:
    scheme = "https" if secure else "http"
    print(
        f"serving the arena {root} on {scheme}://{host}:{port}/ ({slots} at once); Ctrl-C stops",
        flush=True,
    )
    if loopback(host):
        return
    print(
        f"listening on {host}: anyone who can reach this machine can open the login page",
        flush=True,
    )
    if not secure:
        print(
            "no --tls-cert/--tls-key: passwords and upload tokens travel in clear over "
            "the network; give a certificate to serve HTTPS",
            flush=True,
        )
