"""Entrants: a player at one version. Versions are part of a player's identity, so that games of two versions
never share a leaderboard row.

The first version of a player that a tournament sees keeps the player's plain key (``vbot``, or
``random[subsets=true]`` with options); each other version is a new entrant ``KEY@VERSION`` that plays the same
boards, and comes back to its own row whenever that version runs again. Keeping the first version's key plain
means a store written before versions counted (whose rows carry the plain key) resumes as it was, and built-in
players, whose version rarely moves, read as before. The newest entrant of a player (the one its latest run
played) is its latest version: what a leaderboard shows by default.

A version is what the player declares (a plugin's ``version``, an installed package's version, the version an
engine bot sends in its hello). A fingerprint of the files that ran is recorded beside it, and a version that
runs again with other files is said once (a bot changed without a bump of its version).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.config import PlayerRef, TournamentConfig
from arena.outcome import PlayerKey
from arena.results.stored import StoredPlayer

__all__ = ["Running", "latest_keys", "resolve_entrants", "version_tag"]

#: A version that reads as itself in a key; any other is tagged by a hash of it (keys stay one short word).
_PLAIN_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")


def version_tag(version: str) -> str:
    """The ``@tag`` of a version in an entrant's key: the version itself when it is a short plain word (``2``,
    ``1.4.0+local``), else ``h`` and a hash of it (a bot's version is text it controls)."""
    if _PLAIN_VERSION.fullmatch(version):
        return version
    return "h" + hashlib.sha256(version.encode("utf-8", "replace")).hexdigest()[:10]


@dataclass(frozen=True, slots=True)
class Running:
    """What runs as a player now: its version, its source and the fingerprint of its files ("" when unknown)."""

    version: str
    source: str
    fingerprint: str = ""


def resolve_entrants(
    config: TournamentConfig, stored: Sequence[StoredPlayer], running: Mapping[str, Running]
) -> tuple[TournamentConfig, list[str]]:
    """``config`` with each player as the entrant its running version is (``running`` by plain key), and the notes
    to say once: a version that ran before with other files. A player the tournament has not seen keeps its
    plain key; a version seen before gets its row back; another version is ``KEY@VERSION``."""
    by_base: dict[str, list[StoredPlayer]] = {}
    for entrant in stored:
        by_base.setdefault(entrant.base, []).append(entrant)
    refs: list[PlayerRef] = []
    notes: list[str] = []
    for ref in config.players:
        now = running.get(ref.base)
        seen = by_base.get(ref.base, [])
        if now is None or not seen:
            refs.append(ref.model_copy(update={"tag": ""}))
            continue
        same = next((e for e in seen if e.version == now.version), None)
        if same is None:
            taken = {e.key for e in seen}
            tag = version_tag(now.version)
            while ref.base.tagged(tag) in taken:  # two versions with one tag: only through the hash's collision
                tag += "_"
            refs.append(ref.model_copy(update={"tag": tag}))
            continue
        refs.append(ref.model_copy(update={"tag": PlayerKey(same.key).tag}))
        if same.fingerprint and now.fingerprint and same.fingerprint != now.fingerprint:
            notes.append(
                f"{ref.base} version {now.version} runs with other files than when it last played in this tournament"
                f" (fingerprint {same.fingerprint} then, {now.fingerprint} now); its games share a row: give the"
                " changed bot a new version to tell them apart"
            )
    return config.model_copy(update={"players": tuple(refs)}), notes


def latest_keys(entrants: Iterable[StoredPlayer], keys: Iterable[str]) -> set[str]:
    """Of ``keys`` (the games rows to show), those that are the latest version of their player among them; a key
    without an entrant counts as its own player."""
    keys = set(keys)
    newest: dict[str, StoredPlayer] = {}
    kept = set(keys)
    for entrant in entrants:
        if entrant.key not in keys:
            continue
        best = newest.get(entrant.base)
        if best is None or (entrant.seen, entrant.key) > (best.seen, best.key):
            newest[entrant.base] = entrant
        kept.discard(entrant.key)
    return kept | {entrant.key for entrant in newest.values()}
