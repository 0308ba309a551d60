"""A bot process and its control: ``bot_process`` (start, deadlines, limits, kill), ``launch`` (the kernel
limits set before ``exec``, run by path), ``spin`` (waiting on a pipe without falling asleep)."""
