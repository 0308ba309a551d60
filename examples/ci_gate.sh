#!/usr/bin/env bash
# Gate a bot's change in its own CI: merge only when the candidate (the bot as changed) is better than the
# baseline (the bot as released), as `arena match` decides with its sequential test on the same boards.
#
#   examples/ci_gate.sh BASELINE CANDIDATE [more `arena match` options]
#
# BASELINE and CANDIDATE are each a plugin file (my_bot.py) or a starter kit's folder (my-bot/, what
# `arena new-bot` writes, in any language: built with its build.sh, played with its run.sh). Either may be read at
# a git revision, FILE@REV or DIR@REV, without touching the work tree. In a CI job, take the baseline from the
# main branch:
#
#   examples/ci_gate.sh my_bot.py@origin/main my_bot.py -d expert --delta 0.5
#   examples/ci_gate.sh my-bot@origin/main my-bot -d expert
#
# Exit code (arena match's): 0 the candidate is better, 1 it is not (no better, or worse), 3 undecided at
# --max-games (GATE_MAX_GAMES), 2 an error (a missing file, a bot that does not load or build, bad options).
# Both versions play under the names base and cand, so they may share their player name and even their version.
# The games go to a store of their own, deleted at the end, unless GATE_STORE names one to keep: a kept store
# resumes a rerun, and a bot changed without a new version plays as a version of its own there
# (`cand@1+<hash of its files>`), never mixed with the old one's games.
set -u

if [ "$#" -lt 2 ]; then
    echo "usage: $0 BASELINE CANDIDATE [arena match options]" >&2
    exit 2
fi
baseline=$1
candidate=$2
shift 2

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
store=${GATE_STORE:-$scratch/gate.db}

# The `arena match` options that play BOT (a plugin or a kit, at a revision or not) as NAME; a kit is built first.
bot_options() {
    local name=$1 given=$2
    local path=$given rev=""
    if [[ "$given" == *@* && ! -e "$given" ]]; then
        path=${given%@*}
        rev=${given##*@}
    fi
    if [ -f "$path" ] || [[ "$path" == *.py ]]; then
        options+=(--plugin "$name=$given")  # arena reads FILE@REV itself
        return 0
    fi
    local folder=$path
    if [ -n "$rev" ]; then
        local top prefix
        top=$(git -C "$(dirname "$path")" rev-parse --show-toplevel) || return 2
        prefix=$(cd "$path" 2>/dev/null && git rev-parse --show-prefix) || prefix=$(realpath -m --relative-to="$top" "$path")/
        folder=$scratch/$name
        mkdir -p "$folder"
        if ! git -C "$top" archive "$rev" "$prefix" | tar -x -C "$folder" --strip-components="$(tr -cd / <<<"$prefix" | wc -c)"; then
            echo "gate: error, cannot read $path at $rev" >&2
            return 2
        fi
    fi
    if [ ! -x "$folder/run.sh" ]; then
        echo "gate: error, $given is neither a plugin file nor a kit's folder (no run.sh)" >&2
        return 2
    fi
    if [ -x "$folder/build.sh" ] && ! "$folder/build.sh" >"$scratch/$name-build.log" 2>&1; then
        echo "gate: error, $given does not build; its build log:" >&2
        cat "$scratch/$name-build.log" >&2
        return 2
    fi
    options+=(--engine-bot "$name=$folder/run.sh")
}

options=()
bot_options base "$baseline" || exit 2
bot_options cand "$candidate" || exit 2

arena match cand base "${options[@]}" \
    --store "$store" -d "${GATE_DIFFICULTY:-beginner}" --delta "${GATE_DELTA:-1}" \
    --batch "${GATE_BATCH:-200}" --max-games "${GATE_MAX_GAMES:-20000}" "$@"
code=$?
case $code in
    0) echo "gate: passed, the candidate is better than the baseline" ;;
    1) echo "gate: failed, the candidate is not better than the baseline" ;;
    3) echo "gate: undecided, the boards could not tell within --max-games (raise GATE_MAX_GAMES)" ;;
    *) echo "gate: error, the match could not be played (exit $code)" ;;
esac
exit "$code"
