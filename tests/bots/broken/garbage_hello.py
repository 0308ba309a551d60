"""Answers hello with garbage (not JSON), then plays correctly. Given a folder, it notes there, as garbage.py does,
its pid and how many of the pids noted before are alive when it starts."""

import os
import sys
from pathlib import Path

import base

if len(sys.argv) > 1:
    folder = Path(sys.argv[1])
    alive = 0
    for noted in folder.glob("pid-*"):
        try:
            os.kill(int(noted.name.removeprefix("pid-")), 0)
            alive += 1
        except (OSError, ValueError):
            pass
    (folder / f"pid-{os.getpid()}").write_text("")
    (folder / f"alive-{os.getpid()}").write_text(str(alive))

base.run(hello=lambda message: "garbage!")
