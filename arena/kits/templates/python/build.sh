#!/bin/sh
# Nothing to build for Python: this only checks that python3 (3.9 or later) is there, as run.sh needs it.
cd "$(dirname "$0")" || exit 1
python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null || {
    echo "build.sh: run.sh needs python3, version 3.9 or later, on the PATH" >&2
    exit 1
}
echo "nothing to build for Python; run.sh starts bot.py"
