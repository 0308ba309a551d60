#!/usr/bin/env python3
"""Starts the bot: the protocol client with the strategy of ``strategy.py``. ``run.sh`` runs this."""

from __future__ import annotations

import sys

from client import Client
from strategy import NAME, VERSION, Strategy

if __name__ == "__main__":
    Client(NAME, VERSION, Strategy).run(sys.stdin, sys.stdout)
