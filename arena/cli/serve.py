"""`arena serve`: the competition's pages, served live from the results store (read-only) on this machine.

It binds 127.0.0.1 unless told otherwise (another address is said on stderr: the pages show bots' names and
errors to whoever can reach them). The port is bound before the server starts, so a port in use is one line
and exit code 2, like a missing store.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import sys
import threading
import webbrowser
from typing import Annotated

import typer
from rich.text import Text

from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, err_console

#: What `pip install` line makes the command work.
EXTRA = "python -m pip install -e '.[web]'"


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; ``UsageError`` (one line) when it cannot be had."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise UsageError(f"--host {host!r}: {error.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} on {host} is in use; pass another --port") from None
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.set_inheritable(True)
    return sock


@cli_errors
def command(
    store: common.StoreOpt = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; anything but 127.0.0.1 lets other machines in.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).")] = 8000,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the pages in the web browser.")] = False,
) -> None:
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, got {port}")
    try:
        import uvicorn

        from arena.web.app import create_app
    except ImportError as error:
        raise UsageError(f"arena serve needs the web extra ({error.name} is missing): {EXTRA}") from None
    from arena.results.store import Store

    with Store(store, read_only=True) as db:  # a missing or foreign store: one line, exit 2
        path = db.path
    sock = bind(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/"
    if not _loopback(host):
        err_console.print(
            Text(f"warning: serving on {host}: other machines can read these pages (bots' names, notes and errors)"),
            soft_wrap=True,
        )
    console.print(Text(f"serving {path} at {url} (read-only; Ctrl-C stops)"), soft_wrap=True)
    sys.stdout.flush()
    config = uvicorn.Config(create_app(path), log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    if open_browser:

        def opener() -> None:
            while not server.started and not server.should_exit:
                threading.Event().wait(0.05)
            if server.started:
                webbrowser.open(url)

        threading.Thread(target=opener, daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
