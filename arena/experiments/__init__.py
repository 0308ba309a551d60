"""Experiments built on tournaments: a sequential match between two players (``match``) and a sweep of board
sizes and mine densities (``sweep``)."""
