"""Answers hello without saying which protocol it speaks."""

import base

base.run(hello=lambda message: {"name": "bad-hello"})
