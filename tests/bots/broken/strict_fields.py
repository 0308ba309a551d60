"""Refuses messages with fields it does not know (exits)."""

import json

import base

KNOWN = {"type", "protocol", "board", "height", "width", "mines", "rule", "seed", "move_ms", "game_ms", "grid"}
KNOWN |= {"flags", "moves", "outcome", "message"}


def parse(line: str) -> dict:
    message = json.loads(line) if line.strip() else {"type": "blank"}
    unknown = set(message) - KNOWN
    if unknown:
        raise SystemExit(f"unknown fields {sorted(unknown)}")
    return message


base.run(parse=parse)
