#!/bin/sh
# Nothing to compile for JavaScript: this checks that Node.js 18 or later is there, as run.sh needs it,
# and that every source file parses.
cd "$(dirname "$0")" || exit 1
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' 2>/dev/null || {
    echo "build.sh: run.sh needs node, version 18 or later, on the PATH" >&2
    exit 1
}
for file in src/*.js; do
    node --check "$file" || exit 1
done
echo "ready: run.sh starts src/main.js"
