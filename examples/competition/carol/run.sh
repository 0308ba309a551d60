#!/bin/sh
# Starts the bot from any folder: arena play --engine-bot "NAME=path/to/this/run.sh"
exec python3 "$(dirname "$0")/bot.py" "$@"
