"""Typed errors of the solver: a position that cannot happen (a fact) apart from one too hard to
analyse exactly (a limit of the machine, which a player may fall back from)."""

from __future__ import annotations

__all__ = ["InconsistentPositionError", "SolverError", "TooComplexError"]


class SolverError(Exception):
    """Base class of every error the solver library raises on purpose."""


class InconsistentPositionError(SolverError, ValueError):
    """No mine layout agrees with the position (the flags trusted as mines): the input is wrong."""


class TooComplexError(SolverError, RuntimeError):
    """Exact enumeration would exceed its limit of search nodes."""
