"""``arena check-bot``: ``check`` (the checks and their report) over ``driver`` (a bot driven by hand over the
protocol, seeing everything a tournament forgives)."""
