"""The competition file: its lines found (``arena.competition.locate``), its checks, and ``arena compete``'s
answer to bad input: one line naming FILE:LINE and the key, exit code 2, nothing stored."""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from repo import ROOT

from arena.competition.locate import key_lines, line_of
from arena.competition.spec import CompetitionError, load_competition

EXAMPLE = ROOT / "examples" / "competition"

PLUGIN = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Mine(RandomPlayer):
    name = "my-random"
    version = "1"


@hookimpl
def register_players(register):
    register(Mine)
"""

TWO_PLAYERS = PLUGIN.replace("    register(Mine)", "    register(Mine)\n    register(Other)").replace(
    "@hookimpl", 'class Other(RandomPlayer):\n    name = "other-random"\n\n\n@hookimpl'
)


def competition(folder: Path, entrants: str, head: str = "") -> Path:
    """A competition file in ``folder`` with the given entrant tables (and top-level keys ``head``)."""
    text = textwrap.dedent(
        """\
        name = "test cup"
        sandbox = false
        {head}
        [boards]
        difficulty = "beginner"
        count = 4

        {entrants}"""
    ).format(head=head, entrants=textwrap.dedent(entrants))
    path = folder / "cup.toml"
    path.write_text(text, encoding="utf-8")
    return path


def line_with(path: Path, text: str, occurrence: int = 1) -> int:
    """The number of the ``occurrence``-th line of ``path`` that contains ``text``."""
    found = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return found[occurrence - 1]


# -- finding lines ------------------------------------------------------------------------------------------


def test_key_lines_follows_tables_arrays_and_values_over_several_lines() -> None:
    text = textwrap.dedent(
        '''\
        name = "cup"  # a comment with key = "value"
        notes = """
        [[entrants]]
        fake = 1
        """
        [boards]
        difficulty = "beginner"
        list = [
          "x = 1",
          { a = 1 },
        ]
        "quoted.key" = 2
        dotted.part = 3

        [[entrants]]
        name = "a"
        [[entrants]]
        name = 'b'
        inline = { plugin = "p.py" }
        '''
    )
    assert tomllib.loads(text)  # valid TOML: the locator reads only what tomllib accepted
    lines = key_lines(text)
    expected = {
        ("name",): 1,
        ("notes",): 2,
        ("boards",): 6,
        ("boards", "difficulty"): 7,
        ("boards", "list"): 8,
        ("boards", "quoted.key"): 12,
        ("boards", "dotted"): 13,
        ("boards", "dotted", "part"): 13,
        ("entrants",): 15,
        ("entrants", 0): 15,
        ("entrants", 0, "name"): 16,
        ("entrants", 1): 17,
        ("entrants", 1, "name"): 18,
        ("entrants", 1, "inline"): 19,
    }
    assert lines == expected
    assert line_of(lines, ("entrants", 1, "inline", "plugin")) == 19  # inside an inline table: its line
    assert line_of(lines, ("entrants", 1, "missing")) == 17  # a key the entrant lacks: the entrant's line
    assert line_of(lines, ("absent",)) is None


KEY = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
TRICKY = st.sampled_from(
    ['"a = 1"', "'[[entrants]]'", '"""\nx = 2\n[boards]\n"""', "[\n  1,\n  2,\n]", '{ k = "v" }', '"# not = a"']
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    tables=st.lists(st.lists(st.tuples(KEY, TRICKY), min_size=1, max_size=4, unique_by=lambda kv: kv[0]), max_size=5)
)
def test_every_key_of_an_array_of_tables_is_found_on_its_line(tables: list[list[tuple[str, str]]]) -> None:
    """Whatever the values (strings and arrays over several lines, text that looks like keys or tables), each
    key of each ``[[entrants]]`` element is found on the line it was written on."""
    lines: list[str] = ['name = "x"']
    where: dict[tuple[str | int, ...], int] = {}
    for index, pairs in enumerate(tables):
        lines.append("[[entrants]]")
        where[("entrants", index)] = len(lines)
        for key, value in pairs:
            lines.append(f"{key} = {value}")
            where[("entrants", index, key)] = len(lines)
            lines[-1:] = lines[-1].split("\n")
    text = "\n".join(lines) + "\n"
    data = tomllib.loads(text)
    assert len(data.get("entrants", [])) == len(tables)
    found = key_lines(text)
    for path, line in where.items():
        assert found[path] == line, (path, text)
    assert len(where) == len(tables) + sum(len(p) for p in tables)


# -- the checks of load_competition ----------------------------------------------------------------------------


def test_the_example_competition_loads() -> None:
    loaded = load_competition(EXAMPLE / "competition.toml")
    c = loaded.competition
    assert [e.name for e in c.entrants] == ["alice", "bob", "carol"]
    assert [e.form for e in c.entrants] == ["plugin", "command", "kit"]
    assert c.boards.spec.label == "beginner" and c.boards.count == 20
    assert loaded.line("entrants", 2, "kit") == line_with(EXAMPLE / "competition.toml", 'kit = "carol"')


@pytest.mark.parametrize(
    ("entrants", "key", "marker", "message"),
    [
        ('[[entrants]]\nname = "a"\nowner = "A"\nplugin = "p.py"\ncolour = "red"\n', "entrants[1].colour", "colour",
         "unknown key"),
        ('[[entrants]]\nname = "a"\nowner = "A"\nplugin = "p.py"\n[[entrants]]\nname = "a"\nowner = "B"\n'
         'plugin = "p.py"\n', "entrants[2].name", 'name = "a"#2', "'a' is taken already by the entrant on line"),
        ('[[entrants]]\nname = "a"\nowner = "A"\nkit = "kit"\n', "entrants[1].kit", "kit =",
         "has no build.sh and no run.sh"),
        ('[[entrants]]\nname = "a"\nowner = "A"\nplugin = "nowhere.py"\n', "entrants[1].plugin", "plugin =",
         "nowhere.py does not exist"),
        ('[[entrants]]\nname = "Alice Bot"\nowner = "A"\nplugin = "p.py"\n', "entrants[1].name", "name =#2",
         "is not a player name"),
        ('[[entrants]]\nname = "random"\nowner = "A"\nplugin = "p.py"\n', "entrants[1].name", "name =#2",
         "a built-in player's name"),
        ('[[entrants]]\nname = "a"\nowner = "A"\nplugin = "p.py"\ncommand = "x"\n', "entrants[1]", "[[entrants]]",
         "exactly one of plugin, package, command, kit (got plugin and command)"),
        ('[[entrants]]\nname = "a"\nowner = "A"\ncommand = "python3 gone/bot.py"\n', "entrants[1].command",
         "command =", "gone/bot.py does not exist"),
        ('[[entrants]]\nname = "a"\nowner = "A"\npackage = "no-such-arena-bot"\n', "entrants[1].package",
         "package =", "'no-such-arena-bot' is not installed"),
        ('[[entrants]]\nname = "a"\nplugin = "p.py"\n', "entrants[1].owner", "[[entrants]]", "missing"),
        ('[[entrants]]\nname = "a"\nowner = "A"\ncommand = 5\n', "entrants[1].command", "command =",
         "must be a string (split like a shell) or a list of strings"),
    ],
    ids=["unknown-key", "two-names", "kit-scripts", "missing-file", "bad-name", "builtin-name", "two-forms",
         "missing-script", "no-package", "no-owner",
         "command-type"],
)  # fmt: skip
def test_bad_input_names_the_file_line_and_key(
    tmp_path: Path, entrants: str, key: str, marker: str, message: str
) -> None:
    (tmp_path / "p.py").write_text(PLUGIN)
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "bot.py").write_text("")
    path = competition(tmp_path, entrants)
    with pytest.raises(CompetitionError) as caught:
        load_competition(path)
    text, _, occurrence = marker.partition("#")
    line = line_with(path, text, int(occurrence or 1))
    assert str(caught.value).startswith(f"{path}:{line}: {key}: "), str(caught.value)
    assert message in str(caught.value)


def test_bad_boards_and_toml(tmp_path: Path) -> None:
    path = competition(tmp_path, "", head="")
    path.write_text(path.read_text().replace('difficulty = "beginner"', 'difficulty = "huge"'))
    with pytest.raises(CompetitionError, match=r"cup.toml:\d+: boards: .*unknown difficulty 'huge'"):
        load_competition(path)
    path.write_text('name = "x"\n[boards\n')
    with pytest.raises(CompetitionError, match=r"cup.toml:2: not valid TOML"):
        load_competition(path)
    with pytest.raises(CompetitionError, match="no such file"):
        load_competition(tmp_path / "absent.toml")


# -- through the command line: exit 2, one line, nothing stored -------------------------------------------------


def _nothing_stored(folder: Path) -> None:
    assert not list(folder.glob("*.db*")), list(folder.iterdir())
    assert not (folder / "cup-results").exists()


def test_compete_refuses_bad_input_in_one_line(tmp_path: Path, cli, one_error_line) -> None:
    (tmp_path / "p.py").write_text(PLUGIN)
    cases = [
        ('name = "a"\nowner = "A"\nplugin = "p.py"\nflavour = 1\n', "flavour =", "entrants[1].flavour: unknown key"),
        ('name = "a"\nowner = "A"\nkit = "."\n', "kit =", "entrants[1].kit: ", "has no build.sh and no run.sh"),
        ('name = "a"\nowner = "A"\nplugin = "gone.py"\n', "plugin =", "entrants[1].plugin: ", "gone.py does not exist"),
        ('name = "Not A Name"\nowner = "A"\nplugin = "p.py"\n', "name =#2", "entrants[1].name: ", "not a player name"),
        ('name = "a"\nowner = "A"\nplugin = "p.py"\n[[entrants]]\nname = "a"\nowner = "B"\ncommand = "x"\n',
         'name = "a"#2', "entrants[2].name: ", "'a' is taken already"),
    ]  # fmt: skip
    for body, marker, *expected in cases:
        path = competition(tmp_path, "[[entrants]]\n" + body)
        line = one_error_line(cli("compete", path))
        text, _, occurrence = marker.partition("#")
        assert line.startswith(f"error: {path}:{line_with(path, text, int(occurrence or 1))}: "), line
        assert all(part in line for part in expected), line
        _nothing_stored(tmp_path)
    store = tmp_path / "elsewhere.db"
    one_error_line(cli("compete", path, "--store", store))
    assert not store.exists()
    assert len(cases) == 5


def test_an_alias_the_arena_refuses_is_bad_input(tmp_path: Path, cli, one_error_line) -> None:
    """A plugin of two players cannot play under one entrant's name: found when its players are listed, before
    anything is built, checked or stored."""
    (tmp_path / "two.py").write_text(TWO_PLAYERS)
    path = competition(tmp_path, '[[entrants]]\nname = "duo"\nowner = "D"\nplugin = "two.py"\n')
    line = one_error_line(cli("compete", path))
    assert f"cup.toml:{line_with(path, 'plugin =')}: entrants[1].plugin: " in line
    assert "an alias names one player" in line
    _nothing_stored(tmp_path)


def test_compete_json_of_a_file_that_is_not_there(tmp_path: Path, cli, one_error_line) -> None:
    line = one_error_line(cli("compete", tmp_path / "nope.toml", "--json"))
    assert "nope.toml: no such file" in line


def test_the_markdown_shows_what_entrants_wrote_as_text(tmp_path: Path) -> None:
    """An owner, a version and a reason (which may quote a bot's output) are text in the markdown, never markup:
    no HTML tag, no table cell broken by a '|', no link."""
    from arena.competition.prepare import prepare
    from arena.competition.publish import results_data, to_markdown

    (tmp_path / "p.py").write_text(PLUGIN)
    path = competition(
        tmp_path,
        '[[entrants]]\nname = "a"\nowner = "<img src=x onerror=alert(1)> | [x](http://e.org)"\nplugin = "p.py"\n',
    )
    loaded = load_competition(path)
    (item,) = prepare(loaded)
    item.leave_out("check", "got <script>alert(1)</script> | `code` *bold*")
    text = to_markdown(results_data(loaded, [item], None))
    row = next(line for line in text.splitlines() if line.startswith("| a |"))
    assert "<" not in row and ">" not in row
    assert row.count("|") - row.count("\\|") == 6  # five cells: every '|' of the entrant's text is escaped
    assert "&lt;script&gt;" in row and "\\[x\\]" in row and "\\`code\\`" in row
