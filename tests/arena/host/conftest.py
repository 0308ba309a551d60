"""Fixtures of the host's tests: the app of a hosted competition served on 127.0.0.1, with two entrants (one
whose owner is a script) and the organizer (helpers in tests/host_support.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from host_support import PAYLOAD, Hosted, serving, write_cup


@pytest.fixture
def hosted(tmp_path: Path) -> Iterator[Hosted]:
    with serving(write_cup(tmp_path / "cup"), {"alice": "Alice", "bob": PAYLOAD}) as app:
        yield app
