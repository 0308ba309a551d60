"""What building each kit needs, and building one: shared by the kits' tests and their benchmark.

``missing_toolchain`` says in one line why a kit cannot be built on this machine (and what installs
it), so a test can skip saying exactly that; ``build`` runs a kit's own ``build.sh``, as its author
would.
"""

from __future__ import annotations

import glob
import shutil
import subprocess
from pathlib import Path

__all__ = ["BuildError", "build", "missing_toolchain"]

#: The Debian packages that provide each kit's toolchain (what .ci/run installs when they are missing).
DEBIAN_PACKAGES = {
    "python": "python3",
    "javascript": "nodejs",
    "cpp": "g++ make nlohmann-json3-dev",
    "rust": "cargo librust-serde-json-dev",
    "java": "default-jdk-headless",
}


class BuildError(Exception):
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
    if language == "cpp" and _missing_header("nlohmann/json.hpp"):
        return f"the cpp kit needs nlohmann/json.hpp, not installed {hint}"
    if language == "rust" and not glob.glob("/usr/share/cargo/registry/serde_json-*"):
        return f"the rust kit builds offline against Debian's serde_json crate, not installed {hint}"
    return None


def build(folder: Path, timeout: float = 900) -> None:
    """Run ``folder/build.sh``; ``BuildError`` with the end of its output when it fails."""
    result = subprocess.run(
        [str(folder / "build.sh")],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise BuildError(f"{folder / 'build.sh'} failed (exit {result.returncode}):\n{tail}")
