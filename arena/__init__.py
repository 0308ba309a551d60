"""Tournaments, the results store, statistics, leaderboards and the command line."""
