"""What building each kit needs, and building one: shared by the kits' tests and their benchmark.

``missing_toolchain`` says in one line why a kit cannot be built on this machine (and what installs
it), so a test can skip saying exactly that; ``build`` runs a kit's own ``build.sh``, as its author
would. A program that is on the PATH but cannot run counts as missing: rustup's ``cargo`` proxy with no
default toolchain is there, and fails every command (``rustup default stable`` fixes it), so each program
is asked for its version first.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["KitBuildFailed", "build", "missing_toolchain"]

#: The Debian packages that provide each kit's toolchain (what .ci/run installs when they are missing).
DEBIAN_PACKAGES = {
    "python": "python3",
    "javascript": "nodejs",
    "cpp": "g++ make nlohmann-json3-dev",
    "rust": "cargo librust-serde-json-dev",
    "java": "default-jdk-headless",
}


#: How each program says its version: the cheapest command that fails when the program cannot work.
VERSION_FLAGS = {"javac": "-version", "java": "-version"}
#: A program that takes longer than this to print its version is as good as broken for the tests.
_PROBE_TIME = 120.0


class KitBuildFailed(Exception):
    """A kit's ``build.sh`` failed; the message ends with the end of its output."""


def _missing_header(header: str) -> bool:
    """Whether g++ cannot find ``header`` on its include path."""
    probe = subprocess.run(
        ["g++", "-std=c++17", "-E", "-x", "c++", "-"],
        input=f"#include <{header}>\n",
        capture_output=True,
        text=True,
        check=False,
    )
    return probe.returncode != 0


def _broken(program: str) -> str | None:
    """Why ``program`` (found on the PATH) cannot run, from the last line it printed, or None when it can."""
    command = [program, VERSION_FLAGS.get(program, "--version")]
    # rustup would download a toolchain that is named but not installed: the tests never fetch one.
    env = {**os.environ, "RUSTUP_AUTO_INSTALL": "0"}
    try:
        probe = subprocess.run(command, capture_output=True, text=True, timeout=_PROBE_TIME, check=False, env=env)
    except (OSError, subprocess.SubprocessError) as error:
        return f"`{' '.join(command)}` cannot run: {error}"
    if probe.returncode == 0:
        return None
    lines = [line for line in (probe.stderr + probe.stdout).splitlines() if line.strip()]
    said = lines[0].strip() if lines else "no output"
    return f"`{' '.join(command)}` failed (exit {probe.returncode}): {said}"


def missing_toolchain(language: str) -> str | None:
    """Why the ``language`` kit cannot be built and run here, or None when it can."""
    programs = {
        "python": ["python3"],
        "javascript": ["node"],
        "cpp": ["g++", "make"],
        "rust": ["cargo"],
        "java": ["javac", "java"],
    }[language]
    absent = [program for program in programs if shutil.which(program) is None]
    hint = f"(Debian: apt-get install {DEBIAN_PACKAGES[language]}; .ci/run does)"
    if absent:
        return f"the {language} kit needs {' and '.join(absent)}, not installed {hint}"
    for program in programs:
        why = _broken(program)
        if why:
            return f"the {language} kit needs a working {program}: {why} {hint}"
    if language == "cpp" and _missing_header("nlohmann/json.hpp"):
        return f"the cpp kit needs nlohmann/json.hpp, not installed {hint}"
    if language == "rust" and not glob.glob("/usr/share/cargo/registry/serde_json-*"):
        return f"the rust kit builds offline against Debian's serde_json crate, not installed {hint}"
    return None


def build(folder: Path, timeout: float = 900) -> None:
    """Run ``folder/build.sh``; ``KitBuildFailed`` with the end of its output when it fails."""
    result = subprocess.run(
        [str(folder / "build.sh")],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise KitBuildFailed(f"{folder / 'build.sh'} failed (exit {result.returncode}):\n{tail}")
