"""`arena serve` as a command: its one-line errors (exit 2) and the warning for another address."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from web_support import Stored


def test_no_store_is_one_line(cli, one_error_line, tmp_path: Path):
    line = one_error_line(cli("serve", "--store", tmp_path / "none.db"))
    assert "no results store" in line


def test_a_port_in_use_is_one_line(cli, one_error_line, stored: Stored):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error_line(cli("serve", "--store", stored.path, "--port", port))
    assert line == f"error: port {port} on 127.0.0.1 is in use; pass another --port"


def test_a_bad_port_is_one_line(cli, one_error_line, stored: Stored):
    assert "--port must be 0 to 65535" in one_error_line(cli("serve", "--store", stored.path, "--port", "70000"))


@pytest.mark.slow
def test_serves_on_loopback_and_warns_for_another_address(stored: Stored):
    """Run as a user would: it says where it serves, answers there, and warns (one line) off loopback."""
    for host, warned in (("127.0.0.1", False), ("0.0.0.0", True)):
        command = [sys.executable, "-c", "from arena.cli import main; main()", "serve", "--store", str(stored.path),
                   "--host", host, "--port", "0"]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = process.stdout.readline()
            assert line.startswith(f"serving {stored.path} at http://{host}:"), line
            url = line.split(" at ")[1].split(" ")[0].replace("0.0.0.0", "127.0.0.1")
            with urllib.request.urlopen(url + f"t/{stored.tournament}/?format=json", timeout=60) as answer:
                assert answer.status == 200 and b'"rows"' in answer.read()
        finally:
            process.terminate()
            _, err = process.communicate(timeout=60)
        warnings = [text for text in err.splitlines() if text.startswith("warning:")]
        assert len(warnings) == (1 if warned else 0), err
        if warned:
            assert "serving on 0.0.0.0" in warnings[0]


def _stoppable_server(monkeypatch: Any) -> list[Any]:
    """``uvicorn.Server`` as ``arena serve`` makes it, each instance remembered, so that a test can stop it."""
    import uvicorn

    made: list[Any] = []

    class Server(uvicorn.Server):
        def __init__(self, config: Any) -> None:
            super().__init__(config)
            made.append(self)

    monkeypatch.setattr(uvicorn, "Server", Server)
    return made


def _served_url(stdout: str) -> str:
    line = next(text for text in stdout.splitlines() if text.startswith("serving "))
    return line.split(" at ")[1].split(" ")[0]


def test_open_opens_the_served_address_once_the_server_answers(cli, stored: Stored, monkeypatch) -> None:
    """``--open``: the browser is sent to the address printed, once, when the server is up (the address answers
    when the browser is told of it); the server then stops as Ctrl-C would stop it."""
    from arena.cli import serve

    servers = _stoppable_server(monkeypatch)
    opened: list[tuple[str, int]] = []

    def fake_open(url: str) -> bool:
        with urllib.request.urlopen(url + "?format=json", timeout=60) as answer:  # up: it answers now
            opened.append((url, answer.status))
        servers[0].should_exit = True
        return True

    monkeypatch.setattr(serve.webbrowser, "open", fake_open)
    result = cli("serve", "--store", stored.path, "--port", "0", "--open")
    assert result.exit_code == 0, result.output
    url = _served_url(result.stdout)
    assert url.startswith("http://127.0.0.1:") and not url.endswith(":0/")
    assert opened == [(url, 200)]


def test_without_open_no_browser_is_opened(cli, stored: Stored, monkeypatch) -> None:
    from arena.cli import serve

    servers = _stoppable_server(monkeypatch)
    opened: list[str] = []
    monkeypatch.setattr(serve.webbrowser, "open", opened.append)

    def stop_when_up() -> None:
        deadline = time.monotonic() + 120
        while not servers or not servers[0].started:
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
        servers[0].should_exit = True

    stopper = threading.Thread(target=stop_when_up, daemon=True)
    stopper.start()
    result = cli("serve", "--store", stored.path, "--port", "0")
    stopper.join(timeout=60)
    assert result.exit_code == 0, result.output
    assert servers and servers[0].started and opened == []
