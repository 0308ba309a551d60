#!/bin/sh
# Builds the bot and its tests, then runs the tests (exit code non-zero when one fails), from any folder.
cd "$(dirname "$0")" || exit 1
./build.sh || exit 1
rm -rf build/test-classes
mkdir -p build/test-classes
javac --release 17 -encoding UTF-8 -cp build/classes -d build/test-classes src/test/java/bot/*.java || exit 1
# The client's tests, then your strategy's (./test.sh bot.ClientTest runs one class alone).
[ "$#" -gt 0 ] || set -- bot.ClientTest bot.StrategyTest
exec java -cp build/classes:build/test-classes bot.TestRunner "$@"
