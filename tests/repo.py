"""Where things are in this repository, for tests in any room: the root, the examples, the test bots.

The test files live in rooms that mirror the code (``tests/arena/play/`` for ``arena/play/``, ...), at
different depths; naming places from here keeps each test independent of where its file sits.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
EXAMPLES = ROOT / "examples"
#: Bots written to test the arena: ``broken/`` (one protocol mistake each, for ``arena check-bot``),
#: ``hostile/`` (bots that attack the arena), ``sandbox/`` (bots that try to leave the sandbox).
BOTS = TESTS / "bots"
