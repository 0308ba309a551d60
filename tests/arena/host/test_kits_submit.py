"""``arena submit --wait`` of the starter kits through a real ``arena host``: the server builds each in the sandbox
(offline: Rust with the packaged crates), checks it and plays it to a rank. The kits are sent built nowhere: their
folders hold sources only (``pack`` leaves ``target/``, ``build/`` and ``node_modules/`` out).

Three kits take the whole path: Python (no compile), Rust (a native binary, built offline) and Java (a JVM playing
under the host's limits). JavaScript and C++ (the slowest compile, about 30 s of CPU) are checked cheaper: their
packed sources pass the cup's archive rules, and the host builds with the very limits and sandbox of
``tests/arena/isolation/builds/test_build.py::test_each_kit_builds_in_the_sandbox``, which builds all five; past
the build, the host's path (check, play, rank) does not depend on the kit's language."""

from __future__ import annotations

import io
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
from host_support import arena_bin, start_host, stop_host, write_cup

from arena.competition.spec import load_competition
from arena.host.archive import archive_rules, file_puller, pack, read_archive
from arena.isolation.builds.build import BuildLimits
from arena.kits.new_bot import new_bot
from arena.kits.toolchains import missing_toolchain

#: The kits submitted to a real host, built, checked and played there.
THROUGH_THE_HOST = ("python", "rust", "java")
#: The kits whose host path is checked without a build here (test_build.py builds them in the sandbox).
PACKED_ONLY = ("javascript", "cpp")


@pytest.mark.slow
@pytest.mark.kits
@pytest.mark.timeout(2400)
def test_each_kit_with_its_toolchain_ranks(tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup", count=4, private=2, extra="")
    added = subprocess.run(
        [arena_bin(), "entrant", "add", str(file), "kits", "--owner", "Kits", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    token = json.loads(added.stdout)["token"]
    present = [lang for lang in THROUGH_THE_HOST if missing_toolchain(lang) is None]
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
    assert ranked == present and "python" in ranked, (ranked, present)


@pytest.mark.parametrize("language", PACKED_ONLY)
def test_the_other_kits_are_accepted_as_sources_and_built_as_test_build_builds_them(
    language: str, tmp_path: Path
) -> None:
    """What the full path would add for these kits, without their compile: the packed kit passes the cup's archive
    rules and holds no build output, and the host's build limits are ``build_bot``'s defaults (test_build.py's)."""
    loaded = load_competition(write_cup(tmp_path / "cup")).competition
    assert loaded.host is not None
    kit = new_bot(f"kit-{language}", language, tmp_path / language).folder
    (kit / "build").mkdir(exist_ok=True)
    (kit / "build" / "stale.o").write_bytes(b"\0" * 64)  # a local build's output: never sent
    archive = pack(kit)
    received = read_archive(file_puller(io.BytesIO(archive)), archive_rules(loaded.host))
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        names = tar.getnames()
    assert "build.sh" in names and "run.sh" in names, names
    assert not any(name == "build" or name.startswith(("build/", "target/", "node_modules/")) for name in names)
    assert received.files == len(names)
    # the host builds with these limits (arena/host/job.py) and the cup's sandbox "auto", which is test_build's
    # "require" wherever bubblewrap is present; test_build.py builds this kit so
    assert BuildLimits(seconds=loaded.host.build_time) == BuildLimits()
    assert loaded.sandbox.value == "auto"
