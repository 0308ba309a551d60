"""`arena host cup.toml`: run a competition people submit their bots to (docs/hosting.md).

It starts the server (the competition's pages, the submission API, the sign-in and upload pages), the queue and
its jobs, on 127.0.0.1 unless `--host` says otherwise (then one line warns). At the first start it draws the
private boards' seed and prints the organizer's token, once. Stopped (Ctrl-C, SIGTERM) and started again it carries
on: every submission received finishes its way once. `--close` closes the competition now: submissions stop, the
private leaderboard and the private seed are published.
"""

from __future__ import annotations

import contextlib
import enum
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from arena.cli.common import UsageError, cli_errors, console, err_console
from arena.cli.player_options import check_sandbox
from arena.cli.serve import EXTRA, _loopback, bind
from arena.competition.spec import CompetitionError, Loaded, load_competition

__all__ = ["GamesBackend", "command", "load_hosted"]


class GamesBackend(enum.StrEnum):
    LOCAL = "local"
    DASK = "dask"


def load_hosted(file: Path) -> Loaded:
    """The competition file, which must have a ``[host]`` table; ``UsageError`` (one line) otherwise."""
    try:
        loaded = load_competition(file)
    except CompetitionError as error:
        raise UsageError(str(error)) from None
    if loaded.competition.host is None:
        raise UsageError(f"{loaded.file} has no [host] table: it is run by `arena compete` (docs/hosting.md)")
    return loaded


@cli_errors
def command(
    file: Annotated[Path, typer.Argument(help="The competition file, with its \\[host] table.", show_default=False)],
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; anything but 127.0.0.1 lets other machines in.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).")] = 8000,
    workers: Annotated[
        int, typer.Option("--workers", "-w", help="Submissions played at once, each in a worker process.")
    ] = 1,
    backend: Annotated[
        GamesBackend,
        typer.Option(
            "--backend",
            help="Where the games run: local (worker processes here) or dask (the cluster at "
            "$DASK_SCHEDULER_ADDRESS, as `arena tournament --backend dask` takes it; needs the dask extra).",
        ),
    ] = GamesBackend.LOCAL,
    new_token: Annotated[
        bool,
        typer.Option(
            "--new-organizer-token", help="Revoke the organizer's token and print a new one, once; then exit."
        ),
    ] = False,
    close: Annotated[
        bool, typer.Option("--close", help="Close the competition now: no more submissions; publish the private seed.")
    ] = False,
) -> None:
    loaded = load_hosted(file)
    from arena.host.accounts import organizer_token
    from arena.host.boards import close as close_now
    from arena.host.boards import commitment, private_seed
    from arena.host.db import HostPaths, connect

    paths = HostPaths.beside(loaded.file)
    db = connect(paths)
    seed = private_seed(db)
    if new_token:
        fresh = organizer_token(db, renew=True)
        console.print(
            Text(f"the old organizer token is revoked; the new one (shown this once): {fresh}"), soft_wrap=True
        )
        return
    if close:
        when = close_now(db)
        console.print(Text(f"{loaded.competition.name}: closed at {when}; no more submissions"), soft_wrap=True)
        console.print(Text(f"private seed {seed} (sha256 {commitment(seed)}), now shown on the pages"), soft_wrap=True)
        return
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, got {port}")
    try:
        import uvicorn

        from arena.host.app import create_host_app, server_config
    except ImportError as error:
        raise UsageError(f"arena host needs the web extra ({error.name} is missing): {EXTRA}") from None
    from arena.host.scheduler import Scheduler

    check_sandbox(loaded.competition.sandbox)
    from arena.isolation.sandbox.bubblewrap import use_sandbox

    if not use_sandbox(loaded.competition.sandbox):
        err_console.print(
            Text(
                "warning: no sandbox (sandbox = false, or none on this machine): entrants' builds and bots run with "
                "your rights, files and network; set sandbox = true to refuse that (docs/hosting.md)"
            ),
            soft_wrap=True,
        )
    sock = bind(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/"
    if not _loopback(host):
        err_console.print(
            Text(
                f"warning: listening on {host}: other machines can reach it; put it behind a TLS proxy "
                "(docs/hosting.md)"
            ),
            soft_wrap=True,
        )
    token = organizer_token(db)
    db.close()
    console.print(Text(f"{loaded.competition.name}: hosting at {url} (Ctrl-C stops; started again, it carries on)"))
    console.print(Text(f"state kept in {paths.folder}"), soft_wrap=True)
    if token is not None:
        console.print(Text(f"organizer token (shown this once; keep it): {token}"), soft_wrap=True)
    sys.stdout.flush()
    if backend is GamesBackend.DASK:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError("--backend dask needs the dask extra: python -m pip install -e '.[dask]'") from None
    scheduler = Scheduler(
        paths,
        loaded.file,
        loaded.competition.host,
        slots=workers,
        backend=backend.value,  # type: ignore[arg-type]
    )
    app = create_host_app(loaded, paths, scheduler.wake)
    config = server_config(app, access_log=False)
    server = _server(uvicorn, config)
    scheduler.start()
    try:
        server.run(sockets=[sock])
    finally:
        scheduler.stop()
        sock.close()
    err_console.print("stopped; every submission received is kept and goes on at the next start", highlight=False)
    if signal.SIGINT in server.stopped_by:
        raise typer.Exit(130)


def _server(uvicorn: Any, config: Any) -> Any:
    """uvicorn's server, except that a Ctrl-C or SIGTERM ends ``run`` instead of being raised again after it (which
    would kill this process before it stops the queue's jobs and says so)."""

    class Server(uvicorn.Server):  # type: ignore[misc, name-defined]
        stopped_by: tuple[int, ...] = ()

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                yield
                self.stopped_by = tuple(self._captured_signals)
                self._captured_signals.clear()

    return Server(config)
