"""Helpers of the host's tests (tests/arena/host/): a hosted competition file, its app served by uvicorn on
127.0.0.1 (real HTTP), entrants with their tokens, a small HTTP client that shows every answer as it came, and
``arena host`` run as a process, as the docs say."""

from __future__ import annotations

import contextlib
import http.client
import json
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from web_support import free_port

from arena.competition.spec import load_competition
from arena.host import accounts
from arena.host.db import HostPaths, connect

#: Script an entrant might try to put on a page (as its owner, or in its build's output).
PAYLOAD = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'


def write_cup(folder: Path, *, count: int = 6, private: int = 4, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / "cup.toml"
    file.write_text(
        textwrap.dedent(
            f"""\
            name = "Test cup"
            sandbox = "auto"

            [boards]
            difficulty = "beginner"
            seed = 11
            count = {count}

            [limits]
            move_time = 5.0

            [host]
            private_count = {private}
            per_day = 40
            max_archive_mb = 1
            max_files = 200
            max_unpacked_mb = 4
            """
        )
        + extra,
        encoding="utf-8",
    )
    return file


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Client:
    """Real HTTP to the served app; keeps cookies like a browser would (one jar, this host only)."""

    port: int
    cookies: dict[str, str] = field(default_factory=dict)

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Answer:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)  # a busy machine
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";")[0]
                key, _, val = pair.partition("=")
                if val in ('""', "") or "Max-Age=0" in value or "expires=Thu, 01 Jan 1970" in value:
                    self.cookies.pop(key.strip(), None)
                else:
                    self.cookies[key.strip()] = val
        connection.close()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)

    def get(self, path: str, token: str | None = None) -> Answer:
        return self.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else None)

    def submit(self, archive: bytes, token: str) -> Answer:
        return self.request(
            "POST",
            "/api/submissions",
            archive,
            {"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"},
        )


@dataclass
class Hosted:
    file: Path
    paths: HostPaths
    port: int
    tokens: dict[str, str]
    app: Any

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self) -> Client:
        return Client(self.port)


@contextlib.contextmanager
def serving(file: Path, owners: dict[str, str]) -> Iterator[Hosted]:
    """The host's app over ``file`` (no queue running: submissions wait as received), served on a free port."""
    import uvicorn

    from arena.host.app import create_host_app, server_config

    loaded = load_competition(file)
    paths = HostPaths.beside(loaded.file)
    db = connect(paths)
    tokens = {name: accounts.add_entrant(db, name, owner) for name, owner in owners.items()}
    organizer = accounts.organizer_token(db)
    if organizer is not None:
        tokens["organizer"] = organizer
    db.close()
    app = create_host_app(loaded, paths)
    port = free_port()
    server = uvicorn.Server(server_config(app, host="127.0.0.1", port=port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield Hosted(loaded.file, paths, port, tokens, app)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def arena_bin() -> str:
    """The ``arena`` command of this environment (the venv's, beside its python)."""
    import shutil
    import sys

    beside = Path(sys.executable).with_name("arena")
    return str(beside) if beside.exists() else (shutil.which("arena") or "arena")


@dataclass
class HostProcess:
    """``arena host FILE`` run as the docs say, in a process of its own."""

    file: Path
    port: int
    process: Any
    out: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def client(self) -> Client:
        return Client(self.port)

    def output(self) -> str:
        return self.out.read_text(encoding="utf-8", errors="replace")


def start_host(file: Path, port: int | None = None, *args: str) -> HostProcess:
    """Start ``arena host FILE --port PORT ARGS`` and wait until it answers."""
    import subprocess

    port = port or free_port()
    out = file.parent / f"host-{port}-{time.monotonic_ns()}.log"
    with out.open("wb") as sink:
        process = subprocess.Popen(
            [arena_bin(), "host", str(file), "--port", str(port), *args], stdout=sink, stderr=subprocess.STDOUT
        )
    host = HostProcess(file, port, process, out)
    deadline = time.monotonic() + 120
    while True:
        assert process.poll() is None, f"arena host exited: {host.output()}"
        assert time.monotonic() < deadline, f"arena host did not answer: {host.output()}"
        try:
            if host.client().get("/api/competition").status == 200:
                return host
        except OSError:
            pass
        time.sleep(0.2)


def stop_host(host: HostProcess) -> None:
    import signal

    if host.process.poll() is None:
        host.process.send_signal(signal.SIGTERM)
        try:
            host.process.wait(60)
        except Exception:
            host.process.kill()
            host.process.wait()


def wait_for(check: Any, what: str, timeout: float = 600.0, every: float = 0.3) -> Any:
    """Poll ``check()`` until it returns something true; that value. Fails saying ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(every)


def job_processes(folder: Path) -> list[int]:
    """Pids of job processes (``arena.host.job``) working on the hosted folder ``folder``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"arena.host.job" in cmdline and str(folder).encode() in cmdline:
            found.append(int(entry.name))
    return found
