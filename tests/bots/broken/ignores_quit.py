"""Stays when told to quit (until its input closes)."""

import base

base.run(quits=False)
