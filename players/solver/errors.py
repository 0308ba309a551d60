"""Typed errors of the solver library.

Players and the arena need to tell "this position cannot happen" (a bug upstream, a wrong flag,
a hand-typed position) apart from "this position is too hard to analyse exactly", because the
first is a fact about the position and the second a limit of the machine: a player may fall back
to a cheaper method on the second but never on the first.
"""

from __future__ import annotations

__all__ = ["InconsistentPositionError", "SolverError", "TooComplexError"]


class SolverError(Exception):
    """Base class of every error the solver library raises on purpose."""


class InconsistentPositionError(SolverError, ValueError):
    """No mine layout agrees with the position: a number needs more (or fewer) mines than it can
    have, the flags (trusted as mines) contradict a number, or no layout fits the global mine count.

    A ``ValueError`` because the input is wrong, not the solver.
    """


class TooComplexError(SolverError, RuntimeError):
    """Exact enumeration would exceed the configured work limit (search nodes).

    Only absurd positions reach the default limit; callers that set a tight limit can catch this
    and fall back to an approximate method.
    """
