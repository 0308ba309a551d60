"""Who may do what on a hosted competition: entrants, their tokens, the organizer's token, browser sessions.

A token is ``KEYID.SECRET``: ``KEYID`` (12 hex digits) finds its row, ``SECRET`` (``secrets.token_urlsafe(32)``,
256 bits) proves it. Only a salted scrypt hash of the secret is stored, compared with ``hmac.compare_digest``;
a token is shown once, when made, and never logged. A revoked entrant's keys and sessions stop working at the
next request, since every request reads them. Repeated bad tokens from one address, or for one key, are
slowed by ``Throttle``: after a few failures each further try is refused for a doubling wait, so guessing
costs time, not just CPU.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass

from arena.host.db import now, transaction
from players.api import NAME_PATTERN

__all__ = [
    "AccountError",
    "Principal",
    "Throttle",
    "VerifiedTokens",
    "WrongCode",
    "add_entrant",
    "authenticate",
    "list_entrants",
    "make_session",
    "organizer_token",
    "revoke_entrant",
    "session_principal",
    "sign_up",
]

#: scrypt's cost: 16 MiB and tens of milliseconds a check, so a stolen ``host.db`` cannot be searched fast.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
_TOKEN = re.compile(r"^([0-9a-f]{12})\.([A-Za-z0-9_-]{20,100})$")
#: Entrant names: player names short enough that ``NAME.SEQ`` is one too.
MAX_NAME = 48
#: Seconds a browser session lasts.
SESSION_SECONDS = 12 * 3600
_DUMMY_SALT = secrets.token_bytes(16)


class AccountError(Exception):
    """Bad input about an entrant (a taken or malformed name, an unknown entrant): one line."""


class WrongCode(AccountError):
    """A sign-up with a wrong invitation code (the one failure of a sign-up that the throttle counts)."""


@dataclass(frozen=True)
class Principal:
    """Who a request speaks for: an entrant (``name``), or the organizer (``name`` None)."""

    key_id: str
    name: str | None

    @property
    def organizer(self) -> bool:
        return self.name is None

    def may_see(self, entrant: str) -> bool:
        return self.organizer or self.name == entrant


def _hash(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, **_SCRYPT)


def _new_key(db: sqlite3.Connection, entrant: str | None) -> str:
    key_id, secret, salt = secrets.token_hex(6), secrets.token_urlsafe(32), secrets.token_bytes(16)
    db.execute(
        "INSERT INTO keys (key_id, entrant, salt, hash, created) VALUES (?, ?, ?, ?, ?)",
        (key_id, entrant, salt, _hash(secret, salt), now()),
    )
    return f"{key_id}.{secret}"


def check_name(name: str) -> str:
    if len(name) > MAX_NAME or not NAME_PATTERN.match(name):
        raise AccountError(
            f"{name!r} is not an entrant name: 1-{MAX_NAME} lower-case letters, digits, '.', '_' or '-' starting "
            "with a letter or digit"
        )
    from players.builtin import BUILTIN_PLAYERS

    if name in {cls.name for cls in BUILTIN_PLAYERS}:
        raise AccountError(f"{name!r} is a built-in player's name; choose another")
    return name


def _check_owner(owner: str) -> str:
    owner = owner.strip()
    if not owner or len(owner) > 200 or any(ord(c) < 32 for c in owner):
        raise AccountError("the owner must be 1-200 characters on one line")
    return owner


def add_entrant(db: sqlite3.Connection, name: str, owner: str, *, via: str = "organizer") -> str:
    """Make entrant ``name`` (or give a revoked one a new start) and return its token, the only time it exists
    in the clear. ``AccountError`` when the name is malformed or an active entrant has it."""
    check_name(name)
    owner = _check_owner(owner)
    with transaction(db):
        row = db.execute("SELECT revoked FROM entrants WHERE name = ?", (name,)).fetchone()
        if row is not None and row["revoked"] is None:
            raise AccountError(f"entrant {name!r} exists already (arena entrant revoke, then add, for a new token)")
        if row is None:
            db.execute(
                "INSERT INTO entrants (name, owner, created, via) VALUES (?, ?, ?, ?)", (name, owner, now(), via)
            )
        else:
            db.execute("UPDATE entrants SET owner = ?, revoked = NULL WHERE name = ?", (owner, name))
        return _new_key(db, name)


def sign_up(db: sqlite3.Connection, code: str, expected: str | None, name: str, owner: str) -> str:
    """A new entrant by the invitation code of the file (compared in constant time); its token."""
    if expected is None:
        raise AccountError("this competition takes no sign-up: the organizer adds entrants")
    if not hmac.compare_digest(code.encode(), expected.encode()):
        raise WrongCode("wrong invitation code")
    row = db.execute("SELECT 1 FROM entrants WHERE name = ?", (check_name(name),)).fetchone()
    if row is not None:
        raise AccountError(f"the name {name!r} is taken; choose another")
    return add_entrant(db, name, owner, via="sign-up")


def revoke_entrant(db: sqlite3.Connection, name: str) -> int:
    """Revoke ``name``: its keys and sessions stop at once; its submissions stay. How many keys were revoked."""
    with transaction(db):
        if db.execute("SELECT 1 FROM entrants WHERE name = ?", (name,)).fetchone() is None:
            raise AccountError(f"no entrant {name!r} (arena entrant list shows them)")
        stamp = now()
        db.execute("UPDATE entrants SET revoked = ? WHERE name = ? AND revoked IS NULL", (stamp, name))
        count = db.execute("UPDATE keys SET revoked = ? WHERE entrant = ? AND revoked IS NULL", (stamp, name)).rowcount
        db.execute("DELETE FROM sessions WHERE key_id IN (SELECT key_id FROM keys WHERE entrant = ?)", (name,))
    return count


def list_entrants(db: sqlite3.Connection) -> list[sqlite3.Row]:
    return db.execute(
        "SELECT e.name, e.owner, e.created, e.revoked, e.via, "
        "(SELECT COUNT(*) FROM submissions s WHERE s.entrant = e.name) AS submissions "
        "FROM entrants e ORDER BY e.name"
    ).fetchall()


def organizer_token(db: sqlite3.Connection, *, renew: bool = False) -> str | None:
    """The organizer's token when none exists yet (the first start), or with ``renew`` (the old one revoked, its
    sessions ended): made now and returned, once; else None."""
    with transaction(db):
        if renew:
            old = [r["key_id"] for r in db.execute("SELECT key_id FROM keys WHERE entrant IS NULL").fetchall()]
            db.execute("UPDATE keys SET revoked = ? WHERE entrant IS NULL AND revoked IS NULL", (now(),))
            db.executemany("DELETE FROM sessions WHERE key_id = ?", [(k,) for k in old])
        elif db.execute("SELECT 1 FROM keys WHERE entrant IS NULL AND revoked IS NULL").fetchone() is not None:
            return None
        return _new_key(db, None)


class VerifiedTokens:
    """Tokens this server proved lately, by their SHA-256, so that a client asking every second (``arena submit
    --wait``, a script) costs one scrypt a ``seconds``, not one a request: thirty entrants waiting on their
    submissions would otherwise keep both cores of a small server hashing. A token is 256 random bits, so a fast
    hash of it is as hard to reverse as the slow one; the slow one is for ``host.db`` at rest. Only tokens that
    proved right are kept (a wrong one always costs the full check), and ``authenticate`` still reads the key's row
    on every request, so a revoked token stops at once."""

    def __init__(self, seconds: float = 300.0, size: int = 10_000) -> None:
        self.seconds, self.size = seconds, size
        self._held: dict[str, tuple[bytes, float]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _digest(token: str) -> bytes:
        return hashlib.sha256(token.encode()).digest()

    def holds(self, key_id: str, token: str) -> bool:
        with self._lock:
            found = self._held.get(key_id)
        if found is None or time.monotonic() - found[1] > self.seconds:
            return False
        return hmac.compare_digest(found[0], self._digest(token))

    def keep(self, key_id: str, token: str) -> None:
        with self._lock:
            if len(self._held) >= self.size:
                self._held.pop(next(iter(self._held)))
            self._held[key_id] = (self._digest(token), time.monotonic())

    def forget(self, key_id: str) -> None:
        with self._lock:
            self._held.pop(key_id, None)


def authenticate(db: sqlite3.Connection, token: str, verified: VerifiedTokens | None = None) -> Principal | None:
    """The principal ``token`` proves, or None (malformed, unknown, wrong or revoked: the caller cannot tell).
    With ``verified``, a token proved lately skips the slow hash (its key's row is read all the same)."""
    token = token.strip()
    found = _TOKEN.match(token)
    row = None
    if found is not None:
        row = db.execute(
            "SELECT k.key_id, k.entrant, k.salt, k.hash, k.revoked, e.revoked AS gone FROM keys k "
            "LEFT JOIN entrants e ON e.name = k.entrant WHERE k.key_id = ?",
            (found.group(1),),
        ).fetchone()
    if row is not None and verified is not None and verified.holds(row["key_id"], token):
        if row["revoked"] is not None or row["gone"] is not None:
            verified.forget(row["key_id"])
            return None
        return Principal(row["key_id"], row["entrant"])
    secret = found.group(2) if found is not None else token
    # The hash is computed even for an unknown key, so the answer's time says nothing about which keys exist.
    digest = _hash(secret[:200], row["salt"] if row is not None else _DUMMY_SALT)
    if row is None or not hmac.compare_digest(digest, row["hash"]):
        return None
    if row["revoked"] is not None or row["gone"] is not None:
        return None
    if verified is not None:
        verified.keep(row["key_id"], token)
    return Principal(row["key_id"], row["entrant"])


def key_id_of(token: str) -> str | None:
    found = _TOKEN.match(token.strip())
    return found.group(1) if found else None


def make_session(db: sqlite3.Connection, principal: Principal) -> tuple[str, str]:
    """A new browser session for ``principal``: its cookie value and its CSRF token. Only the cookie's SHA-256
    is stored (it is 256 random bits: a fast hash suffices)."""
    session, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    stamp = now()
    with transaction(db):
        db.execute("DELETE FROM sessions WHERE expires < ?", (stamp,))
        db.execute(
            "INSERT INTO sessions (id_hash, key_id, csrf, expires) VALUES (?, ?, ?, ?)",
            (hashlib.sha256(session.encode()).hexdigest(), principal.key_id, csrf, stamp + SESSION_SECONDS),
        )
    return session, csrf


def session_principal(db: sqlite3.Connection, session: str) -> tuple[Principal, str] | None:
    """The principal and CSRF token of a live session whose key is not revoked, or None."""
    row = db.execute(
        "SELECT s.csrf, s.expires, k.key_id, k.entrant, k.revoked, e.revoked AS gone FROM sessions s "
        "JOIN keys k ON k.key_id = s.key_id LEFT JOIN entrants e ON e.name = k.entrant WHERE s.id_hash = ?",
        (hashlib.sha256(session.encode()).hexdigest(),),
    ).fetchone()
    if row is None or row["expires"] < now() or row["revoked"] is not None or row["gone"] is not None:
        return None
    return Principal(row["key_id"], row["entrant"]), str(row["csrf"])


def end_session(db: sqlite3.Connection, session: str) -> None:
    db.execute("DELETE FROM sessions WHERE id_hash = ?", (hashlib.sha256(session.encode()).hexdigest(),))


class Throttle:
    """Failures per address and per key: after ``free`` failures within ``window`` seconds, each try waits
    ``2 ** (failures - free)`` seconds (at most ``cap``) after the last failure. In memory: a restart forgets,
    which costs an attacker a restart of the organizer's server, not a bypass.

    A try is counted as a failure *before* its secret is checked (``attempt``, one step under the lock, so twenty
    tries sent at once cannot all pass the wait before the first is counted), and a try that proved right is
    refunded (``refund``): it takes back its own count and nothing else. So a correct token never clears the
    failures of its address: a guesser who holds one valid token cannot wipe their count by signing in."""

    def __init__(self, free: int = 5, window: float = 600.0, cap: float = 300.0) -> None:
        self.free, self.window, self.cap = free, window, cap
        self._failures: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    def _wait(self, stamp: float, keys: tuple[str, ...]) -> float:
        longest = 0.0
        for key in keys:
            count, last = self._failures.get(key, (0, 0.0))
            if stamp - last > self.window:
                continue
            if count >= self.free:
                longest = max(longest, last + min(self.cap, 2.0 ** (count - self.free)) - stamp)
        return max(0.0, longest)

    def _count(self, stamp: float, keys: tuple[str, ...]) -> None:
        for key in keys:
            count, last = self._failures.get(key, (0, 0.0))
            self._failures[key] = (1 if stamp - last > self.window else count + 1, stamp)
        if len(self._failures) > 100_000:  # a flood of addresses: forget the oldest half
            for key, _ in sorted(self._failures.items(), key=lambda kv: kv[1][1])[:50_000]:
                del self._failures[key]

    def wait(self, *keys: str) -> float:
        """Seconds before a try for any of ``keys`` is heard again (0: go ahead). Only a look: ``attempt`` is
        what lets a try through."""
        with self._lock:
            return self._wait(time.monotonic(), keys)

    def attempt(self, *keys: str) -> float:
        """Let a try for ``keys`` through, counted as a failure until ``refund``: 0. Or, when ``keys`` must wait,
        the seconds to wait (nothing counted)."""
        stamp = time.monotonic()
        with self._lock:
            wait = self._wait(stamp, keys)
            if wait <= 0:
                self._count(stamp, keys)
            return wait

    def failed(self, *keys: str) -> None:
        """Count a failure that no ``attempt`` counted."""
        with self._lock:
            self._count(time.monotonic(), keys)

    def refund(self, *keys: str) -> None:
        """Take back one counted try of ``keys`` (it proved right); the failures before it stay."""
        with self._lock:
            for key in keys:
                count, last = self._failures.get(key, (0, 0.0))
                if count <= 1:
                    self._failures.pop(key, None)
                else:
                    self._failures[key] = (count - 1, last)
