"""Competitions: a file that says who plays, with what and under which rules (``competition.toml``), and what it
takes to play it (``arena compete``): ``spec`` reads and checks the file, ``locate`` finds the line of each of its
keys, ``prepare`` builds and checks the entrants, ``publish`` writes the results. docs/competitions.md."""

from __future__ import annotations

from arena.competition.spec import Competition, CompetitionError, Entrant, Loaded, load_competition

__all__ = ["Competition", "CompetitionError", "Entrant", "Loaded", "load_competition"]
