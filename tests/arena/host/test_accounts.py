"""Entrants and tokens (arena/host/accounts.py): a token works until revoked, only its slow hash is kept, a wrong
one proves nothing, sessions die with their key, and repeated failures are slowed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.host import accounts
from arena.host.accounts import AccountError, Throttle
from arena.host.db import HostPaths, connect


@pytest.fixture
def db(tmp_path: Path) -> sqlite3.Connection:
    return connect(HostPaths(tmp_path / "cup-host"))


def test_a_token_proves_its_entrant_and_only_its_hash_is_kept(db: sqlite3.Connection, tmp_path: Path) -> None:
    token = accounts.add_entrant(db, "alice", "Alice")
    principal = accounts.authenticate(db, token)
    assert principal is not None and principal.name == "alice" and not principal.organizer
    secret = token.split(".")[1]
    assert len(secret) >= 43  # secrets.token_urlsafe(32)
    db.close()
    raw = (tmp_path / "cup-host" / "host.db").read_bytes()
    assert secret.encode() not in raw, "the token's secret is stored in the clear"
    assert (tmp_path / "cup-host" / "host.db").stat().st_mode & 0o077 == 0, "host.db is readable by others"


def test_wrong_tokens_get_nothing(db: sqlite3.Connection) -> None:
    token = accounts.add_entrant(db, "alice", "Alice")
    key_id, secret = token.split(".")
    wrong = [
        f"{key_id}.{secret[:-1]}{'A' if secret[-1] != 'A' else 'B'}",  # one character off
        f"{'0' * 12}.{secret}",  # another key's id
        secret,  # no key id
        "",
        "x" * 5000,
    ]
    for candidate in wrong:
        assert accounts.authenticate(db, candidate) is None, candidate[:40]
    assert len(wrong) == 5


def test_revoke_stops_the_token_and_its_sessions_at_once(db: sqlite3.Connection) -> None:
    token = accounts.add_entrant(db, "alice", "Alice")
    principal = accounts.authenticate(db, token)
    assert principal is not None
    session, csrf = accounts.make_session(db, principal)
    assert accounts.session_principal(db, session) == (principal, csrf)
    assert accounts.revoke_entrant(db, "alice") == 1
    assert accounts.authenticate(db, token) is None
    assert accounts.session_principal(db, session) is None
    # A new start gives a new token; the old one stays dead.
    fresh = accounts.add_entrant(db, "alice", "Alice")
    assert accounts.authenticate(db, fresh) is not None and accounts.authenticate(db, token) is None


def test_names_are_checked_and_taken_once(db: sqlite3.Connection) -> None:
    accounts.add_entrant(db, "alice", "Alice")
    with pytest.raises(AccountError, match="exists already"):
        accounts.add_entrant(db, "alice", "Someone else")
    for bad in ("Alice", "<script>", "", "a" * 49, "random"):
        with pytest.raises(AccountError):
            accounts.add_entrant(db, bad, "X")
    with pytest.raises(AccountError, match="no entrant"):
        accounts.revoke_entrant(db, "bob")


def test_the_organizer_token_is_made_once(db: sqlite3.Connection) -> None:
    token = accounts.organizer_token(db)
    assert token is not None
    assert accounts.organizer_token(db) is None, "a second start printed another organizer token"
    principal = accounts.authenticate(db, token)
    assert principal is not None and principal.organizer and principal.may_see("anyone")


def test_a_new_organizer_token_revokes_the_old_one(db: sqlite3.Connection) -> None:
    first = accounts.organizer_token(db)
    assert first is not None
    principal = accounts.authenticate(db, first)
    assert principal is not None
    session, _ = accounts.make_session(db, principal)
    second = accounts.organizer_token(db, renew=True)
    assert second is not None and second != first
    assert accounts.authenticate(db, first) is None and accounts.session_principal(db, session) is None
    renewed = accounts.authenticate(db, second)
    assert renewed is not None and renewed.organizer


def test_sign_up_needs_the_code(db: sqlite3.Connection) -> None:
    with pytest.raises(AccountError, match="no sign-up"):
        accounts.sign_up(db, "code", None, "bob", "Bob")
    with pytest.raises(AccountError, match="wrong invitation code"):
        accounts.sign_up(db, "guess-guess", "the-class-code", "bob", "Bob")
    token = accounts.sign_up(db, "the-class-code", "the-class-code", "bob", "Bob")
    principal = accounts.authenticate(db, token)
    assert principal is not None and principal.name == "bob"
    with pytest.raises(AccountError, match="taken"):
        accounts.sign_up(db, "the-class-code", "the-class-code", "bob", "Bobby")


def test_the_throttle_slows_repeated_failures_and_refunds_only_the_right_try() -> None:
    throttle = Throttle(free=3, window=600, cap=60)
    waits = []
    for _ in range(6):
        waits.append(throttle.wait("ip:1.2.3.4"))
        throttle.failed("ip:1.2.3.4")
    assert waits[:3] == [0.0, 0.0, 0.0]
    assert waits[3] > 0 and waits[4] > waits[3] * 1.5, waits
    assert throttle.wait("ip:5.6.7.8") == 0.0, "another address was slowed too"
    # A try that proves right takes back its own count, not the failures before it.
    assert throttle.attempt("ip:5.6.7.8") == 0.0
    throttle.refund("ip:5.6.7.8")
    assert throttle.wait("ip:5.6.7.8") == 0.0
    throttle.refund("ip:1.2.3.4")
    assert throttle.wait("ip:1.2.3.4") > 0
    # ``attempt`` refuses while a key must wait, and counts nothing then.
    before = throttle.wait("ip:1.2.3.4")
    assert throttle.attempt("ip:1.2.3.4") > 0 and throttle.wait("ip:1.2.3.4") <= before


def test_a_token_proved_lately_skips_the_slow_hash_but_not_its_revocation(
    db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = accounts.add_entrant(db, "alice", "Alice")
    hashed: list[str] = []
    slow = accounts._hash
    monkeypatch.setattr(accounts, "_hash", lambda secret, salt: hashed.append(secret) or slow(secret, salt))
    verified = accounts.VerifiedTokens()
    answers = [accounts.authenticate(db, token, verified) for _ in range(5)]
    assert all(a is not None and a.name == "alice" for a in answers) and len(answers) == 5
    assert len(hashed) == 1, "each request paid the slow hash"
    wrong = token[:-3] + ("abc" if not token.endswith("abc") else "xyz")  # the same key, another secret
    assert [accounts.authenticate(db, wrong, verified) for _ in range(3)] == [None] * 3
    assert len(hashed) == 4, "a wrong token skipped the slow hash"
    accounts.revoke_entrant(db, "alice")
    assert accounts.authenticate(db, token, verified) is None  # at once, though it was proved a moment ago
    assert not verified.holds(token.split(".")[0], token)
