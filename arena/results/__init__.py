"""Storing results: the SQLite store (``store``) with its schema history (``migrations``) and the typed values
its readers return (``stored``), the guard that notices a replaced file (``guard``), the game-record codec
(``records``), and exports (``export``)."""
