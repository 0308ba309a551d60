#!/bin/sh
# Compiles the bot into build/classes (exit code non-zero when the build fails), from any folder.
cd "$(dirname "$0")" || exit 1
command -v javac >/dev/null 2>&1 || { echo "build.sh: needs javac, JDK 17 or later (Debian: apt-get install default-jdk-headless)" >&2; exit 1; }
rm -rf build/classes
mkdir -p build/classes
javac --release 17 -encoding UTF-8 -Xlint:all -d build/classes src/main/java/bot/*.java || exit $?
echo "ready: run.sh starts bot.Main from build/classes"
