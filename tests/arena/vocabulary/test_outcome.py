"""``PlayerKey`` (arena/outcome.py): a player's identity in the store, written and read in one place. Any
name, options and tag a player can have come back from its key unchanged, whatever its option values hold
(``,``, ``]``, ``@`` and ``=`` inside JSON strings included)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.cli.render import player_lines
from arena.config import PlayerRef, TournamentConfig
from arena.experiments.match import parse_player_spec
from arena.outcome import PlayerKey
from arena.play import worker
from arena.play.plan import plan_tournament
from arena.play.tournament import run_tournament
from arena.results.store import Store
from engine import BEGINNER, FirstClick
from players.registry import Registry

NAMES = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True)
OPTION_KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
TAGS = st.from_regex(r"[0-9a-z][0-9a-z.+_]{0,12}", fullmatch=True) | st.just("")


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: what a key can promise (a tuple comes back a list, -0.0 as -0.0)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@given(NAMES, st.dictionaries(OPTION_KEYS, VALUES, max_size=4), TAGS)
def test_a_key_gives_back_the_name_options_and_tag_it_was_made_of(name: str, options: dict, tag: str) -> None:
    key = PlayerKey.of(name, options, tag)
    assert key.name == name and key.tag == tag and _same(key.options, options)
    assert PlayerKey.of(key.name, key.options, key.tag) == key
    assert key.base == PlayerKey.of(name, options) and key.base.tagged(tag) == key
    assert ("@" in key) == bool(tag) or "@" in json.dumps(options)


@given(NAMES, st.dictionaries(OPTION_KEYS, VALUES, max_size=4), TAGS)
def test_a_player_refs_key_is_the_typed_key(name: str, options: dict, tag: str) -> None:
    ref = PlayerRef(name=name, options=options, tag=tag)
    assert isinstance(ref.key, PlayerKey) and isinstance(ref.base, PlayerKey)
    assert ref.key == PlayerKey.of(name, options, tag) and ref.key.base == ref.base
    assert ref.base == (ref.key.rpartition("@")[0] if tag else ref.key)  # the tag is the key's last part


def test_the_keys_spelling_is_the_leaderboards() -> None:
    """The text is what the store's rows hold already: a key read back from an old store is the same key."""
    assert PlayerKey.of("apex") == "apex"
    key = PlayerKey.of("random", {"subsets": True, "random_first_click": False}, "v2")
    assert key == "random[random_first_click=false,subsets=true]@v2"
    assert PlayerKey.of("bot", {"s": "a,b]c@d=e"}) == 'bot[s="a,b]c@d=e"]'
    assert PlayerKey('bot[s="a,b]c@d=e"]@1+g3f2a1bc').options == {"s": "a,b]c@d=e"}


def test_a_users_spelling_reads_values_that_are_not_json_as_text() -> None:
    key = PlayerKey("bot[mode=fast, n = 3,,  deep=[1,2] ]")
    assert key.name == "bot" and key.options == {"mode": "fast", "n": 3, "deep": [1, 2]} and key.tag == ""
    assert parse_player_spec(" random[subsets=true] ") == PlayerRef(name="random", options={"subsets": True})


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("random[subsets=true", "brackets"),
        ("random[subsets]", "'subsets' is not KEY=VALUE"),
        ("random[=1]", "is not KEY=VALUE"),
        ("random[a=1]b", "only @TAG"),
    ],
)
def test_a_malformed_key_is_one_clear_error(text: str, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        _ = PlayerKey(text).options


def test_a_match_names_players_without_a_version() -> None:
    with pytest.raises(ValueError, match="not @v2"):
        parse_player_spec("random@v2")


def test_a_stacked_key_shows_each_option_on_a_line_and_keeps_its_tag() -> None:
    key = PlayerKey.of("random", {"b": [1, 2], "a": "x,y"}, "v2")
    assert player_lines(key, stack=True).plain.splitlines() == ["random", '[a="x,y",', " b=[1, 2]]@v2"]
    assert player_lines(key, stack=False).plain == key
    assert player_lines(PlayerKey("apex"), stack=True).plain == "apex"


@pytest.mark.slow  # a tournament (three games) through a store
def test_games_played_and_games_read_back_name_their_player_by_a_key(tmp_path: Path) -> None:
    """The key is typed where games are made (whatever text the work named the player by) and where the
    store reads them back."""
    ref = PlayerRef(name="random", options={"random_first_click": False})
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=0, games=3, players=(ref,))
    played = worker.play(config, 0, str(ref.key))
    assert type(played.player) is PlayerKey and played.player == ref.key
    with Store(tmp_path / "arena.db") as store:
        run_tournament(plan_tournament(config, store, Registry(), workers=1), store)
        games = store.games(config.id)
    assert len(games) == 3 and all(type(g.player) is PlayerKey for g in games)
    assert {g.player.options["random_first_click"] for g in games} == {False}
