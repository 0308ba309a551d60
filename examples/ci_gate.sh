#!/usr/bin/env bash
# Gate a bot's change in its own CI: merge only when the candidate (the bot as changed) is better than the
# baseline (the bot as released), as `arena match` decides with its sequential test on the same boards.
#
#   examples/ci_gate.sh BASELINE_PLUGIN CANDIDATE_PLUGIN [more `arena match` options]
#
# In a CI job, take the baseline from the main branch (read with git into the arena's cache; the work tree is
# not touched), then gate:
#
#   examples/ci_gate.sh my_bot.py@origin/main my_bot.py -d expert --delta 0.5
#
# Exit code: 0 the candidate is accepted as better, 1 it is not (no better, or undecided at --max-games),
# 2 an error (a missing file, a bot that does not load, bad options). Both versions play under aliases
# (--plugin base=... --plugin cand=...), so they may share their player name and even their version.
# The games go to a store of their own, deleted at the end, unless GATE_STORE names one to keep: a kept store
# resumes a rerun, but a bot changed without a new `version` keeps its old games there (the arena warns).
set -u

if [ "$#" -lt 2 ]; then
    echo "usage: $0 BASELINE_PLUGIN CANDIDATE_PLUGIN [arena match options]" >&2
    exit 2
fi
baseline=$1
candidate=$2
shift 2

store=${GATE_STORE:-}
if [ -z "$store" ]; then
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    store=$scratch/gate.db
fi

arena match cand base --plugin "base=$baseline" --plugin "cand=$candidate" \
    --store "$store" -d "${GATE_DIFFICULTY:-beginner}" --delta "${GATE_DELTA:-1}" \
    --batch "${GATE_BATCH:-200}" --max-games "${GATE_MAX_GAMES:-20000}" "$@"
code=$?
case $code in
    0) echo "gate: passed, the candidate is better than the baseline" ;;
    1) echo "gate: failed, the candidate is not shown to be better than the baseline" ;;
    *) echo "gate: error, the match could not decide (exit $code)" ;;
esac
exit "$code"
