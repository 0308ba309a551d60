"""A submission's job (arena/host/job.py) makes itself non-dumpable before it reads the private seed: no process of
the machine's user can read the seed from its memory (``/proc/PID/mem``, ptrace); and it runs at a lower CPU
priority than the server (``nice``), with everything it starts."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from host_support import write_cup

PROBE = textwrap.dedent(
    """
    import ctypes, os, sys
    from pathlib import Path
    from arena.host.db import HostPaths
    from arena.host.job import NICENESS, main, run_job

    libc = ctypes.CDLL(None, use_errno=True)
    before = libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    code = run_job(HostPaths(Path(sys.argv[1])), Path(sys.argv[2]), 999)  # no such submission: ends at once
    niceness = os.nice(0)
    main([sys.argv[1], sys.argv[2], "999"])  # as the scheduler starts a job
    print(before, libc.prctl(3, 0, 0, 0, 0), code, os.nice(0) - niceness == NICENESS)
    """
)


@pytest.mark.slow  # a process of its own: the job's state (undumpable, niced) must not become a test worker's
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_job_is_not_dumpable(tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup")
    folder = file.parent / "cup-host"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(folder), str(file)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    # Dumpable before, not after; the job ended normally; ``main`` lowered its priority by NICENESS.
    assert done.stdout.split() == ["1", "0", "0", "True"]
