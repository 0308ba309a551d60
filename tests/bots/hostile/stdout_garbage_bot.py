"""Hostile engine bot (no project imports): answers hello properly, then writes garbage instead of a
reply (expected: illegal, "unparsable output"; the process is restarted for the next game)."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"protocol": 1, "name": "stdout-garbage", "version": "1"}), flush=True)
    elif message["type"] == "observation":
        print("<html>definitely not json</html>", flush=True)
