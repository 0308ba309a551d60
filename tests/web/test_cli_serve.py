"""`arena serve` as a command: its one-line errors (exit 2) and the warning for another address."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

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
