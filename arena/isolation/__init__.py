"""Running players apart from the arena, in six rooms (docs/architecture.md):

- ``processes``: a bot process and its control (``bot_process``: limits, deadlines, kill; ``stderr_tail``: its
  stderr, drained; ``cpu``: its CPU time; ``launch``: the kernel limits set before ``exec``; ``spin``: waiting on
  a pipe without falling asleep).
- ``sandbox``: the bubblewrap sandbox around a bot (``bubblewrap``) and what it shows of the filesystem
  (``botfiles``).
- ``protocol``: the line protocol (``messages``), its two ends (``bot_host``, the Python bot's side, run as
  ``python -m arena.isolation.protocol.bot_host``; ``remote``, ``RemoteAgent``, the game loop's side, over a
  ``connection``), how a bot is started (``bot_command``) and the shared-memory acceleration (``shared``). The
  reference is docs/protocol.md.
- ``discovery``: finding players without running third-party code (``catalog``) and plugins read at a git
  revision (``revisions``).
- ``check_bot``: ``arena check-bot`` (``check``, and ``driver``, a bot driven by hand).
- ``builds``: building a bot's folder with its ``build.sh`` in the sandbox (``build``: ``build_bot``, its
  limits and log; ``runner``: the build's first process, which kills what the script leaves running;
  ``errors``: the first error of a build log, with its file and line).

The settings every room and the tournament's configuration share (isolation and sandbox modes, limits,
engine bots) are vocabulary: ``arena.limits``.
"""
