#!/bin/sh
# Starts the bot from any folder: arena play --engine-bot "NAME=path/to/this/run.sh" (build.sh first).
exec "$(dirname "$0")/build/bot" "$@"
