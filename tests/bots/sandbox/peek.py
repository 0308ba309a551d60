"""An engine bot that answers ``hello`` with what it sees of its own folder instead of playing
(``tests/arena/isolation/sandbox/test_botfiles.py``): every path under the folder, what reading each path listed in
``probe.json`` beside it gives, and whether its own module ``peek_helper`` imports."""

from __future__ import annotations

import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
seen: dict[str, object] = {"listing": [], "read": {}, "cwd": os.getcwd(), "python": sys.executable}
for root, folders, files in os.walk(here):
    for name in [*folders, *files]:
        seen["listing"].append(os.path.relpath(os.path.join(root, name), here))  # type: ignore[union-attr]
seen["listing"] = sorted(seen["listing"])  # type: ignore[type-var]
with open(os.path.join(here, "probe.json"), encoding="utf-8") as file:
    for path in json.load(file):
        try:
            with open(path, "rb") as target:
                seen["read"][path] = len(target.read())  # type: ignore[index]
        except OSError as error:
            seen["read"][path] = type(error).__name__  # type: ignore[index]
sys.path.insert(0, here)
try:
    import peek_helper  # noqa: F401

    seen["helper"] = True
except ImportError:
    seen["helper"] = False
try:
    with open(os.path.join(here, "written-by-the-bot"), "w", encoding="utf-8") as out:
        out.write("x")
    seen["wrote"] = True
except OSError:
    seen["wrote"] = False
sys.stdin.readline()
print(json.dumps({"protocol": 1, "error": json.dumps(seen)}), flush=True)
