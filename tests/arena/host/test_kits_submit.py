"""``arena submit --wait`` of each starter kit whose toolchain this machine has: the server builds it in the
sandbox (offline: Rust with the packaged crates), checks it and plays it to a rank. The kits are sent built
nowhere: their folders hold sources only (``pack`` leaves ``target/``, ``build/`` and ``node_modules/`` out)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from host_support import arena_bin, start_host, stop_host, write_cup

from arena.kits.new_bot import new_bot
from arena.kits.toolchains import missing_toolchain

LANGUAGES = ("python", "javascript", "cpp", "rust", "java")

#: Each kit built by the server (a first compile of C++, Rust or Java), checked and played.
pytestmark = [pytest.mark.slow, pytest.mark.kits, pytest.mark.timeout(2400)]


def test_each_kit_with_its_toolchain_ranks(tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup", count=4, private=2, extra="")
    added = subprocess.run(
        [arena_bin(), "entrant", "add", str(file), "kits", "--owner", "Kits", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    token = __import__("json").loads(added.stdout)["token"]
    present = [lang for lang in LANGUAGES if missing_toolchain(lang) is None]
    if not present:
        pytest.skip("no kit's toolchain on this machine")
    host = start_host(file, None, "-w", "2")
    ranked = []
    try:
        for language in present:
            kit = new_bot(f"kit-{language}", language, tmp_path / language).folder
            done = subprocess.run(
                [arena_bin(), "submit", host.url, str(kit), "--wait"],
                capture_output=True, text=True, timeout=1800, env={**os.environ, "ARENA_TOKEN": token},
            )  # fmt: skip
            assert done.returncode == 0, f"{language}: {done.stdout}{done.stderr}"
            assert done.stdout.strip().splitlines()[-1].startswith("ranked"), done.stdout
            ranked.append(language)
    finally:
        stop_host(host)
    assert ranked == present and "python" in ranked
