#!/bin/sh
# Builds build/bot (exit code non-zero when the build fails), from any folder.
cd "$(dirname "$0")" || exit 1
command -v "${CXX:-g++}" >/dev/null 2>&1 || { echo "build.sh: needs ${CXX:-g++} (Debian: apt-get install g++ make)" >&2; exit 1; }
command -v make >/dev/null 2>&1 || { echo "build.sh: needs make (Debian: apt-get install make)" >&2; exit 1; }
if ! echo '#include <nlohmann/json.hpp>' | "${CXX:-g++}" ${JSON_INCLUDE:+-isystem "$JSON_INCLUDE"} -std=c++17 -E -x c++ - >/dev/null 2>&1; then
    echo "build.sh: needs nlohmann/json.hpp (Debian: apt-get install nlohmann-json3-dev; elsewhere set JSON_INCLUDE to its folder)" >&2
    exit 1
fi
make --no-print-directory build/bot
