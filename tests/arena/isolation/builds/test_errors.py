"""``first_error``: the first error of a build log, with its file (relative to the bot's folder) and line, in each
toolchain's format (arena/isolation/builds/errors.py). Logs as the toolchains print them; the kits' real builds are
in test_build.py."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from arena.isolation.builds.errors import BuildError, first_error

FOLDER = Path("/srv/cup/bots/carol")

GXX = """\
arena: building build.sh in the sandbox
g++  -std=c++17 -O2 -Wall -o build/bot src/main.cpp src/strategy.cpp
src/main.cpp:3:10: warning: unused variable 'x' [-Wunused-variable]
In file included from src/main.cpp:4:
src/strategy.cpp:42:7: error: expected ';' before 'return'
   42 |     x = 1
      |          ^
src/strategy.cpp:50:1: error: 'y' was not declared in this scope
make: *** [Makefile:17: build/bot] Error 1
"""

CLANG_ABSOLUTE = """\
/srv/cup/bots/carol/src/client.cpp:7:3: fatal error: 'nlohmann/json.hpp' file not found
1 error generated.
"""

SYSTEM_HEADER_FIRST = """\
/usr/include/c++/12/bits/stl_vector.h:1287:9: error: no matching function for call
src/strategy.cpp:9:5: error: no matching function for call to 'push'
"""

ONLY_SYSTEM = "/usr/include/c++/12/bits/stl_vector.h:1287:9: error: no matching function for call\n"

MAKE = """\
Makefile:12: *** missing separator.  Stop.
"""

RUST = """\
   Compiling serde v1.0.152
   Compiling kit v0.1.0 (/srv/cup/bots/carol)
warning: unused import: `std::io`
 --> src/main.rs:1:5
  |
error[E0425]: cannot find value `undefined_name` in this scope
  --> src/strategy.rs:13:22
   |
13 | fn broken() -> i32 { undefined_name }
   |                      ^^^^^^^^^^^^^^ not found in this scope

error: could not compile `kit` (lib) due to 1 previous error
"""

RUST_NO_CODE = """\
error: expected one of `!` or `::`, found `x`
 --> src/lib.rs:4:5
error: aborting due to 1 previous error
"""

JAVAC = """\
src/main/java/bot/Board.java:9: warning: [serial] serializable class has no serialVersionUID
src/main/java/bot/Strategy.java:12: error: ';' expected
        int x = 1
                 ^
1 error
1 warning
"""

NODE = """\
/srv/cup/bots/carol/src/strategy.js:14
class Strategy {
      ^^^^^^^^

SyntaxError: Unexpected identifier 'Strategy'
    at wrapSafe (node:internal/modules/cjs/loader:1464:18)

Node.js v20.20.2
"""

PYTHON = """\
Traceback (most recent call last):
  File "<string>", line 4, in <module>
  File "/usr/lib/python3.11/ast.py", line 50, in parse
    return compile(source, filename, mode, flags,
  File "./strategy.py", line 16
    def broken(:
               ^
SyntaxError: invalid syntax
"""

NO_FILE = """\
arena: building build.sh in the sandbox
build.sh: needs cargo (Debian: apt-get install cargo)
"""

CARGO_OFFLINE = """\
error: failed to get `serde_json` as a dependency of package `kit v0.1.0 (/srv/cup/bots/carol)`
Caused by:
  no matching package named `serde_json` found
"""

NOTHING_KNOWN = """\
compiling...
something went wrong
make: *** [Makefile:17: build/bot] Error 1
"""


def test_gxx_first_error_not_a_warning_nor_make_summary() -> None:
    assert first_error(GXX, FOLDER) == BuildError("src/strategy.cpp", 42, "expected ';' before 'return'")


def test_absolute_paths_inside_the_folder_become_relative() -> None:
    error = first_error(CLANG_ABSOLUTE, FOLDER)
    assert error == BuildError("src/client.cpp", 7, "'nlohmann/json.hpp' file not found")
    assert str(error) == "src/client.cpp:7: 'nlohmann/json.hpp' file not found"


def test_an_error_in_the_bots_own_file_comes_before_one_in_a_system_header() -> None:
    error = first_error(SYSTEM_HEADER_FIRST, FOLDER)
    assert error == BuildError("src/strategy.cpp", 9, "no matching function for call to 'push'")


def test_an_error_only_outside_the_folder_has_no_file_and_no_machine_path() -> None:
    error = first_error(ONLY_SYSTEM, FOLDER)
    assert error == BuildError(None, None, "stl_vector.h: no matching function for call")


LINKER = """\
g++ -o build/bot src/main.cpp src/strategy.cpp
/usr/bin/ld: /tmp/ccq1Xb2a.o: in function `main':
main.cpp:(.text.startup+0x2f): undefined reference to `play_one(Board const&)'
collect2: error: ld returned 1 exit status
make: *** [Makefile:17: build/bot] Error 1
"""


def test_the_linkers_undefined_reference_not_collect2() -> None:
    assert first_error(LINKER, FOLDER) == BuildError(None, None, "undefined reference to `play_one(Board const&)'")


def test_make() -> None:
    assert first_error(MAKE, FOLDER) == BuildError("Makefile", 12, "missing separator")


def test_rustc_error_with_its_location_below() -> None:
    error = first_error(RUST, FOLDER)
    assert error == BuildError("src/strategy.rs", 13, "E0425: cannot find value `undefined_name` in this scope")
    assert first_error(RUST_NO_CODE, FOLDER) == BuildError("src/lib.rs", 4, "expected one of `!` or `::`, found `x`")


def test_cargo_error_without_location_and_without_the_folders_path() -> None:
    error = first_error(CARGO_OFFLINE, FOLDER)
    assert error is not None and (error.file, error.line) == (None, None)
    assert error.message == "failed to get `serde_json` as a dependency of package `kit v0.1.0 (/srv/cup/bots/carol)`"


JAVAC_SYMBOL = """\
src/main/java/bot/Strategy.java:16: error: cannot find symbol
    int broken = undefined_name;
                 ^
  symbol:   variable undefined_name
  location: class Strategy
1 error
"""


def test_javac() -> None:
    assert first_error(JAVAC, FOLDER) == BuildError("src/main/java/bot/Strategy.java", 12, "';' expected")
    error = first_error(JAVAC_SYMBOL, FOLDER)
    assert error == BuildError("src/main/java/bot/Strategy.java", 16, "cannot find symbol: variable undefined_name")


def test_node() -> None:
    error = first_error(NODE, FOLDER)
    assert error == BuildError("src/strategy.js", 14, "SyntaxError: Unexpected identifier 'Strategy'")


def test_python_takes_the_tracebacks_last_frame() -> None:
    assert first_error(PYTHON, FOLDER) == BuildError("strategy.py", 16, "SyntaxError: invalid syntax")


def test_a_log_without_a_known_format() -> None:
    needs = "build.sh: needs cargo (Debian: apt-get install cargo)"
    assert first_error(NO_FILE, FOLDER) == BuildError(None, None, needs)
    assert first_error(NOTHING_KNOWN, FOLDER) == BuildError(None, None, "something went wrong")
    assert first_error("arena: building\n", FOLDER) is None
    assert first_error("", FOLDER) is None


def test_a_path_escaping_the_folder_is_not_named() -> None:
    error = first_error("../../etc/secret.cpp:3:1: error: no\n", FOLDER)
    assert error == BuildError(None, None, "secret.cpp: no")


def test_long_messages_are_cut_to_one_line() -> None:
    error = first_error("src/a.cpp:1:1: error: " + "x" * 1000 + "\n", FOLDER)
    assert error is not None and len(error.message) == 300 and error.message.endswith("...")


_PART = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789-", min_size=1, max_size=12)


@given(
    parts=st.lists(_PART, min_size=1, max_size=4),
    line=st.integers(1, 10**6),
    column=st.integers(1, 500),
    absolute=st.booleans(),
    dot=st.booleans(),
    extension=st.sampled_from(["cpp", "hpp", "cc", "c", "java"]),
    noise=st.lists(st.sampled_from(["note: here", "   12 |  x", "     |  ^", "warning: w", "src/a.c:1:1: warning: w"])),
)
def test_every_compiler_location_comes_back_relative(
    parts: list[str], line: int, column: int, absolute: bool, dot: bool, extension: str, noise: list[str]
) -> None:
    """Whatever the file's path and line, written as the bot's build gives it (relative, ./relative, or absolute
    inside the folder), the first error names it relative to the folder."""
    relative = "/".join(parts) + "." + extension
    written = f"{FOLDER}/{relative}" if absolute else ("./" + relative if dot else relative)
    log = "\n".join([*noise, f"{written}:{line}:{column}: error: it broke", "make: *** [x] Error 1"]) + "\n"
    assert first_error(log, FOLDER) == BuildError(relative, line, "it broke")
