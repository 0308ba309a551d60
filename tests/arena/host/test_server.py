"""Who is asking, as a guesser meets it (arena/host/server.py, routes.py, accounts.Throttle): wrong tokens and wrong
invitation codes slowed per address, a correct token that gives the guesser nothing back, twenty tries at once
counted as twenty, and the address taken from ``X-Forwarded-For`` only when a trusted proxy sends it."""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from host_support import Hosted, serving, write_cup
from starlette.testclient import TestClient

from arena.competition.spec import load_competition
from arena.host import accounts
from arena.host.app import create_host_app
from arena.host.db import HostPaths, connect
from arena.host.server import HostApp, Refusal

WRONG = "0123456789ab.this-is-not-the-secret-of-any-key"


def wrong() -> str:
    """A wrong token for a key id of its own, so that only the address's count can slow it."""
    return f"{secrets.token_hex(6)}.this-is-not-the-secret-of-any-key"


class Clock:
    """The throttle's clock, moved by the test (no test waits for real seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    held = Clock()
    monkeypatch.setattr(accounts, "time", SimpleNamespace(monotonic=held))
    return held


def _cup(tmp_path: Path, extra: str = "") -> tuple[Any, HostPaths, dict[str, str]]:
    loaded = load_competition(write_cup(tmp_path / "cup", extra=extra))
    paths = HostPaths.beside(loaded.file)
    db = connect(paths)
    tokens = {"alice": accounts.add_entrant(db, "alice", "Alice")}
    db.close()
    return loaded, paths, tokens


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    loaded, paths, tokens = _cup(tmp_path, 'invitation = "class-code-2026"\n')
    with TestClient(create_host_app(loaded, paths), client=("10.0.0.7", 4000)) as client:
        yield client, tokens


def _token_try(client: TestClient, token: str, headers: dict[str, str] | None = None) -> int:
    """One sign-in with ``token`` (a ``Bearer`` read of submission 1, which nobody has: 404 when let in)."""
    return client.get("/api/submissions/1", headers={"Authorization": f"Bearer {token}", **(headers or {})}).status_code


def _code_try(client: TestClient, code: str, name: str = "carol") -> int:
    form = client.get("/signup")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert form.status_code == 200 and csrf is not None
    body = {"csrf": csrf.group(1), "code": code, "name": name, "owner": "Carol"}
    return client.post("/signup", data=body).status_code


def test_a_correct_token_gives_a_guesser_no_tries_back(app: tuple[TestClient, dict[str, str]], clock: Clock) -> None:
    client, tokens = app
    assert [_token_try(client, wrong()) for _ in range(5)] == [401] * 5
    assert _token_try(client, wrong()) == 429
    clock.now += 100  # long past the wait (1 s), within the window (600 s)
    assert _token_try(client, tokens["alice"]) == 404  # the guesser's own valid token: let in
    # ...and the failures before it stand: the next wrong tries are slowed at once, not five free ones.
    assert [_token_try(client, wrong()) for _ in range(2)] == [429, 429]


def test_wrong_codes_are_counted_apart_from_tokens_and_not_cleared_by_a_sign_in(
    app: tuple[TestClient, dict[str, str]], clock: Clock
) -> None:
    client, tokens = app
    assert [_code_try(client, "guess-1234") for _ in range(5)] == [400] * 5
    assert _code_try(client, "guess-1234") == 429
    # Wrong codes do not lock the address out of signing in with its token (another guessing game)...
    assert _token_try(client, tokens["alice"]) == 404
    clock.now += 100
    assert _token_try(client, tokens["alice"]) == 404
    # ...and that sign-in does not clear the codes' count: one more guess, then slowed again.
    assert [_code_try(client, "guess-1234") for _ in range(2)] == [400, 429]
    # A right code after the wait is heard (a taken name is no guess: it costs nothing).
    clock.now += 100
    assert _code_try(client, "class-code-2026", "carol") == 200


def test_tries_sent_at_once_are_each_counted_before_any_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve wrong tokens at the same moment: only the five free ones reach the check. (Checking the wait, then the
    token, then counting the failure let all twelve past the wait while the first was being checked.)"""
    loaded, paths, _ = _cup(tmp_path)
    state = HostApp(loaded, paths)
    tries, arrived, released = 12, [0], threading.Event()
    turn = threading.Condition()

    def arrive() -> None:
        with turn:
            arrived[0] += 1
            turn.notify_all()

    def slow_check(db: object, token: str, verified: object = None) -> None:  # held until all are in or refused
        arrive()
        released.wait(120)

    monkeypatch.setattr(accounts, "authenticate", slow_check)
    request = SimpleNamespace(client=SimpleNamespace(host="10.0.0.9"), headers={})
    statuses: list[int] = []

    def guess() -> None:
        try:
            state.check_token(request, WRONG)  # type: ignore[arg-type]
        except Refusal as refusal:
            statuses.append(refusal.status)
            if refusal.status == 429:
                arrive()

    threads = [threading.Thread(target=guess) for _ in range(tries)]
    for thread in threads:
        thread.start()
    with turn:
        assert turn.wait_for(lambda: arrived[0] == tries, timeout=120)
    released.set()
    for thread in threads:
        thread.join(120)
    assert sorted(statuses) == [401] * 5 + [429] * 7


def _guesses(hosted: Hosted, forwarded: list[str]) -> list[int]:
    client = hosted.client()
    return [
        client.request(
            "GET", "/api/submissions/1", headers={"Authorization": f"Bearer {wrong()}", "X-Forwarded-For": address}
        ).status
        for address in forwarded
    ]


def test_a_forged_forwarded_address_is_ignored_by_default(tmp_path: Path) -> None:
    """Served as ``arena host`` serves it (real HTTP from 127.0.0.1, no trusted proxy): a guesser who names a new
    address in each try is still one address."""
    with serving(write_cup(tmp_path / "cup"), {}) as hosted:
        statuses = _guesses(hosted, [f"203.0.113.{i}" for i in range(7)])
    assert statuses == [401] * 5 + [429] * 2


def test_behind_a_trusted_proxy_each_client_is_counted_as_itself(tmp_path: Path) -> None:
    """Behind the proxy named in ``trusted_proxies``, one guesser slows only themself; a proxy not named is not
    believed."""
    file = write_cup(tmp_path / "cup", extra='trusted_proxies = ["127.0.0.1", "::1"]\n')
    with serving(file, {}) as hosted:
        guesser = _guesses(hosted, ["203.0.113.5"] * 6)
        other = _guesses(hosted, ["198.51.100.8"])
    assert guesser == [401] * 5 + [429] and other == [401]
    file = write_cup(tmp_path / "elsewhere", extra='trusted_proxies = ["10.20.0.0/16"]\n')
    with serving(file, {}) as hosted:
        statuses = _guesses(hosted, [f"203.0.113.{i}" for i in range(6)])
    assert statuses == [401] * 5 + [429]


def test_trusted_proxies_must_name_addresses(tmp_path: Path) -> None:
    from arena.competition.spec import CompetitionError

    for bad in ('"*"', '"proxy.example"'):
        file = write_cup(tmp_path / f"bad{len(bad)}", extra=f"trusted_proxies = [{bad}]\n")
        with pytest.raises(CompetitionError, match=r"trusted_proxies.*not an address or network"):
            load_competition(file)


def test_a_guesser_cannot_lock_out_a_token_in_use(app: tuple[TestClient, dict[str, str]], clock: Clock) -> None:
    """Wrong secrets for alice's own key from her address slow the guesser, not alice's proved token."""
    client, tokens = app
    assert _token_try(client, tokens["alice"]) == 404  # proved once
    key_id = tokens["alice"].split(".")[0]
    guesses = [_token_try(client, f"{key_id}.guess-number-{n}-of-the-secret-xx") for n in range(7)]
    assert guesses == [401] * 5 + [429] * 2
    assert [_token_try(client, tokens["alice"]) for _ in range(3)] == [404] * 3
