#!/bin/sh
# Starts the bot from any folder: arena play --engine-bot "NAME=path/to/this/run.sh" (build.sh first).
here="$(dirname "$0")"
[ -x "$here/target/release/bot" ] || { echo "run.sh: $here/target/release/bot is not built yet: run $here/build.sh first" >&2; exit 127; }
exec "$here/target/release/bot" "$@"
