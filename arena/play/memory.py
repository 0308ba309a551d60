"""Letting a worker process give back the memory it no longer uses, without losing a byte it needs.

A worker's resident size is mostly not its own data: importing numba maps LLVM's shared library (178 MB on
disk), and importing it, setting up numba's compiler and loading each cached kernel touch tens of MB of LLVM's
code and read-only data, which then stay resident (counted in the process's size) although a worker that has
loaded its players' kernels never runs them again: its games run the kernels' machine code, not LLVM. The
same holds for numpy's, Python's and the other libraries' pages used only while importing.

``release_unused`` drops those pages from the process's resident set: for every file mapping that is not
writable and holds no page of the process's own (``Anonymous: 0`` in ``/proc/self/smaps``: no copy-on-write
page, so every page is exactly the file's), ``madvise(MADV_DONTNEED)``. Nothing is lost: the next access to
such a page maps it again from the file (from the page cache, shared with every process that maps it), so
code that is needed again is simply paged back in. Mappings that were written (relocated data, a library's
variables) are never touched. It also collects Python's garbage and returns free heap pages to the system
(glibc's ``malloc_trim``). docs/solver.md (Memory) has the measurements.

Linux only (``/proc/self/smaps``, glibc); elsewhere it does nothing. It never raises: giving memory back is
an optimisation, never a reason for a worker to fail.
"""

from __future__ import annotations

import _imp
import contextlib
import ctypes
import ctypes.util
import gc
import mmap
import sys
from functools import cache

__all__ = ["release_during_loads", "release_unused", "resident_kb"]

_MADV_DONTNEED = getattr(mmap, "MADV_DONTNEED", 4)


@cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.madvise.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


#: The clean read-only file mappings the last full ``release_unused`` found: such a mapping stays clean (it cannot
#: be written without being made writable, which nothing does to a loaded library's code).
_known: list[tuple[int, int]] = []
#: Those of at least ``_LARGE`` bytes: the few that hold nearly all such pages (LLVM's code above all).
_large: list[tuple[int, int]] = []
_LARGE = 1 << 20


def _drop(ranges: list[tuple[int, int]]) -> None:
    libc = _libc()
    if libc is None:
        return
    for start, end in ranges:
        libc.madvise(start, end - start, _MADV_DONTNEED)


def _clean_file_mappings() -> list[tuple[int, int]]:
    """The (start, end) of every mapping of a file that is read-only, private and holds no page of its own."""
    found: list[tuple[int, int]] = []
    candidate: tuple[int, int] | None = None
    with open("/proc/self/smaps", encoding="ascii", errors="replace") as smaps:
        for line in smaps:
            head = line.split(None, 6)
            if "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                # "start-end perms offset dev inode [path]": a new mapping.
                candidate = None
                path = head[5].strip() if len(head) > 5 else ""
                perms = head[1]
                if path.startswith("/") and "w" not in perms and perms.endswith("p") and head[4] != "0":
                    start, end = (int(x, 16) for x in head[0].split("-"))
                    candidate = (start, end)
            elif candidate is not None and head[0] == "Anonymous:":
                if head[1] == "0":
                    found.append(candidate)
                candidate = None
    return found


def release_unused() -> int:
    """Give back what this process holds but no longer uses (see the module's docstring); returns the KB
    of resident memory it gave back (0 where it does nothing)."""
    libc = _libc()
    before = resident_kb()
    gc.collect()
    if libc is None:
        return 0
    # A page of a mapping found read-only and clean could only be written if the mapping were made writable
    # between the check and the madvise: the dynamic loader maps a library's code and constants read-only and
    # its data writable from the start (only text relocations, which no library here has, write a read-only
    # mapping later). Holding the import lock keeps other threads from starting an import meanwhile all the same.
    _imp.acquire_lock()
    try:
        with contextlib.suppress(OSError, ValueError):
            _known[:] = _clean_file_mappings()
            _large[:] = [(start, end) for start, end in _known if end - start >= _LARGE]
            _drop(_known)
    finally:
        _imp.release_lock()
    with contextlib.suppress(AttributeError):
        libc.malloc_trim(0)
    return max(0, before - resident_kb())


def release_during_loads() -> None:
    """From now on, also drop the pages of the large mappings found clean after each kernel numba loads from its
    cache: the first load sets up numba's code generator, which touches about 55 MB of LLVM, and each later one
    about 12 MB more; without this they would stay resident together with everything loaded after them. The
    mappings are the last full ``release_unused``'s, so the drop costs a few system calls, no reading of
    ``/proc``."""
    if _libc() is None:
        return
    from numba.core import caching

    load = caching.Cache.load_overload
    if getattr(load, "releases_pages", False):
        return

    def load_overload(self: caching.Cache, sig: object, target_context: object) -> object:
        try:
            return load(self, sig, target_context)
        finally:
            with contextlib.suppress(OSError, ValueError):
                _drop(_large)

    load_overload.releases_pages = True  # type: ignore[attr-defined]
    caching.Cache.load_overload = load_overload  # type: ignore[method-assign]


def resident_kb() -> int:
    """This process's resident size in KB (``VmRSS``), 0 where unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0
