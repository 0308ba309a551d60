"""A bot process and its control: ``bot_process`` (start, deadlines, limits, kill), ``stderr_tail`` (its stderr,
drained by a thread, the last lines kept), ``cpu`` (its CPU time read from outside: the process tree's, the
process's own), ``launch`` (the kernel limits set before ``exec``, run by path), ``spin`` (waiting on a pipe without
falling asleep)."""
