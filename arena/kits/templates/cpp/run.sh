#!/bin/sh
# Starts the bot from any folder: arena play --engine-bot "NAME=path/to/this/run.sh" (build.sh first).
here="$(dirname "$0")"
[ -x "$here/build/bot" ] || { echo "run.sh: $here/build/bot is not built yet: run $here/build.sh first" >&2; exit 127; }
exec "$here/build/bot" "$@"
