#!/bin/sh
# Builds target/release/bot (exit code non-zero when the build fails), from any folder.
# cargo reads .cargo/config.toml here: serde_json comes from Debian's packaged crates, offline.
cd "$(dirname "$0")" || exit 1
command -v cargo >/dev/null 2>&1 || { echo "build.sh: needs cargo (Debian: apt-get install cargo)" >&2; exit 1; }
if [ -f .cargo/config.toml ] && ! ls -d /usr/share/cargo/registry/serde_json-* >/dev/null 2>&1; then
    echo "build.sh: .cargo/config.toml takes serde_json from Debian's packaged crates, which are not installed" \
        "(apt-get install librust-serde-json-dev); or delete .cargo/config.toml to fetch it from crates.io" >&2
    exit 1
fi
cargo build --release --quiet || exit $?
echo "ready: run.sh starts target/release/bot"
