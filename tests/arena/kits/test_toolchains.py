"""What building a kit needs, said in one line (a program that is there but cannot run counts as missing), and a
kit's ``build.sh`` failing loudly on a broken source."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.kits import LANGUAGES
from arena.kits.new_bot import STRATEGY_FILES
from arena.kits.toolchains import DEBIAN_PACKAGES, KitBuildFailed, build, missing_toolchain


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_missing_program_is_named_with_what_installs_it(monkeypatch: pytest.MonkeyPatch, language: str) -> None:
    monkeypatch.setattr(shutil, "which", lambda program: None)
    reason = missing_toolchain(language)
    assert reason is not None
    assert reason.startswith(f"the {language} kit needs ")
    assert f"apt-get install {DEBIAN_PACKAGES[language]}" in reason


def test_with_every_program_there_only_the_libraries_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda program: f"/usr/bin/{program}")
    monkeypatch.setattr("arena.kits.toolchains._broken", lambda program: None)
    monkeypatch.setattr("arena.kits.toolchains.glob.glob", lambda pattern: [])
    assert missing_toolchain("python") is None
    assert missing_toolchain("javascript") is None
    assert missing_toolchain("java") is None
    reason = missing_toolchain("rust")
    assert reason is not None and "Debian's serde_json crate" in reason


#: What rustup's ``cargo`` proxy prints, and its exit code, when no default toolchain is configured.
RUSTUP_NO_TOOLCHAIN = """#!/bin/sh
echo "error: rustup could not choose a version of cargo to run, because one wasn't specified explicitly, \
and no default is configured." >&2
echo "help: run 'rustup default stable' to download the latest stable release of Rust and set it as the \
default toolchain." >&2
exit 1
"""


@pytest.fixture
def rustup_without_a_toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``cargo`` first on the PATH that fails as rustup's proxy does with no toolchain installed."""
    folder = tmp_path / "bin"
    folder.mkdir()
    cargo = folder / "cargo"
    cargo.write_text(RUSTUP_NO_TOOLCHAIN)
    cargo.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    assert shutil.which("cargo") == str(cargo)
    return cargo


def test_a_cargo_that_cannot_run_is_named_like_a_missing_one(rustup_without_a_toolchain: Path) -> None:
    reason = missing_toolchain("rust")
    assert reason is not None
    assert reason.startswith("the rust kit needs a working cargo: `cargo --version` failed (exit 1): ")
    assert "rustup could not choose a version of cargo" in reason
    assert f"apt-get install {DEBIAN_PACKAGES['rust']}" in reason
    assert "\n" not in reason  # one line, as a skip reason is shown


def test_a_kit_whose_toolchain_cannot_run_is_skipped_not_failed(kit_builds, rustup_without_a_toolchain: Path) -> None:  # type: ignore[no-untyped-def]
    """What the Rust kit's tests do on a machine with rustup but no toolchain: skip, saying why."""
    fresh = type(kit_builds)()  # not the session's: that one may have built the kit with the real cargo
    with pytest.raises(pytest.skip.Exception) as skipped:
        fresh.get("rust")
    assert "the rust kit needs a working cargo" in str(skipped.value)


def test_a_failing_build_is_a_build_error_with_its_output(tmp_path: Path) -> None:
    script = tmp_path / "build.sh"
    script.write_text("#!/bin/sh\necho compiling\necho 'strategy.x:3: error: expected ;' >&2\nexit 3\n")
    script.chmod(0o755)
    with pytest.raises(KitBuildFailed) as error:
        build(tmp_path)
    assert "failed (exit 3)" in str(error.value)
    assert "strategy.x:3: error: expected ;" in str(error.value)


@pytest.mark.parametrize("language", LANGUAGES)
def test_build_sh_exits_non_zero_on_a_broken_strategy(kit_builds, language: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """On a copy of the built kit (compiled dependencies included, so only the strategy is compiled again)."""
    folder = tmp_path / "kit"
    kit_builds.copy(language, folder)
    strategy = folder / STRATEGY_FILES[language]
    strategy.write_text(strategy.read_text() + "\nthis is not code (\n")
    result = subprocess.run([str(folder / "build.sh")], capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode != 0, result.stdout + result.stderr
    assert "strategy" in (result.stdout + result.stderr).lower(), "the error names the broken file"
