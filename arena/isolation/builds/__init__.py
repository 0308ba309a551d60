"""Building a bot's folder with its ``build.sh`` in the sandbox: ``build`` (``build_bot``, ``BuildLimits``,
``BuildResult``: the sandbox, the limits, the log), ``runner`` (the build's first process, run by path: the limits
kept per process, and every process the script leaves running killed) and ``errors`` (``first_error``: the first
error of a build log, with its file and line). docs/isolation.md, "Building a bot in the sandbox"."""
