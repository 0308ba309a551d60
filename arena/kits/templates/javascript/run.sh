#!/bin/sh
# Starts the bot from any folder: arena play --engine-bot "NAME=path/to/this/run.sh"
exec node "$(dirname "$0")/src/main.js" "$@"
