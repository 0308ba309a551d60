#!/bin/sh
# Nothing to compile for Python: this checks that python3 (3.9 or later) is there, as run.sh needs it,
# and that every source file parses (exit code non-zero otherwise).
cd "$(dirname "$0")" || exit 1
python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null || {
    echo "build.sh: run.sh needs python3, version 3.9 or later, on the PATH" >&2
    exit 1
}
python3 -c 'import ast, sys
for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as source:
        ast.parse(source.read(), name)' ./*.py tests/*.py || exit 1
echo "ready: run.sh starts bot.py"
