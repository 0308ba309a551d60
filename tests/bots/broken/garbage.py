"""Answers every line with garbage (not JSON), at once. Given a folder, it notes there its pid and how many of the
pids noted before are still alive when it starts: a test counts the processes that pile up."""

import os
import sys
from pathlib import Path

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

for _line in sys.stdin:
    print("garbage!", flush=True)
