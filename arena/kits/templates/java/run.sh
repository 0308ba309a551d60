#!/bin/sh
# Starts the bot from any folder: arena play --engine-bot "NAME=path/to/this/run.sh" (build.sh first).
# The JVM's heap and reserved spaces are kept small, so it starts under the arena's memory limit
# (--memory-mb, 2048 MB of address space by default); raise -Xmx if your bot needs more.
here="$(dirname "$0")"
[ -f "$here/build/classes/bot/Main.class" ] || { echo "run.sh: $here/build/classes is not built yet: run $here/build.sh first" >&2; exit 127; }
exec java -Xmx512m -Xss8m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:CompressedClassSpaceSize=64m \
    -XX:MaxMetaspaceSize=128m -cp "$here/build/classes" bot.Main "$@"
