"""Every starter kit passes ``arena check-bot`` as it is written
(``tests/arena/isolation/check_bot/test_check.py`` holds the checker to its checks): run from its ``run.sh``, in the
sandbox where this machine has one, the kit's folder visible to it. A kit whose toolchain is missing is skipped with
the reason (``conftest.py``)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.isolation.check_bot import driver
from arena.kits import LANGUAGES

from .conftest import KitBuilds


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_kit_passes_every_check(language: str, kit_builds: KitBuilds, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = kit_builds.get(language)
    # A busy machine can take longer than the arena's second to end a process: the check ends as soon
    # as the kit exits, so a longer bound costs a correct kit nothing.
    monkeypatch.setattr(driver, "QUIT_TIME", 10.0)
    result = CliRunner().invoke(app, ["check-bot", "--engine-bot", f"kit={folder / 'run.sh'}", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["passed"] and len(report["checks"]) == 13
    assert [c["id"] for c in report["checks"] if not c["passed"]] == []
