"""Parses every line, empty ones included (and dies on them)."""

import json

import base

base.run(parse=json.loads)
