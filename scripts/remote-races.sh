#!/usr/bin/env bash
# The long run of the racing clones (docs/architecture.md, "Test suite"): the XCTests `make test`
# runs with 16 rounds (RemoteTests: four clones on a git daemon and on a local path, each
# promoting and reverting its own locale every round, all at once), here with ROUNDS rounds,
# REPEAT times over: every operation must land exactly once on the remote, as one line of
# single-parent commits that verify and fsck accept.
#
# Usage: scripts/remote-races.sh [ROUNDS] [REPEAT]     (defaults: 50 and 1)
#   ROUNDS  rounds per race (REMOTE_RACE_ROUNDS), a whole number over 0; about 0.6 s a round on
#           the 2-core machine. REPEAT  how many times the two races run.
#
# Prints each run's test summary and the wall time. Exits 1 at the first run that fails; its
# messages are printed and the whole output is in .build/remote-races.log.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
ROUNDS="${1:-50}"
REPEAT="${2:-1}"
usage="usage: scripts/remote-races.sh [ROUNDS over 0] [REPEAT over 0]"
case "$ROUNDS$REPEAT" in (*[!0-9]*|"") echo "$usage" >&2; exit 64;; esac
[ "$ROUNDS" -gt 0 ] && [ "$REPEAT" -gt 0 ] || { echo "$usage" >&2; exit 64; }

swift build --build-tests 2>&1 | tail -1
LOG="$ROOT/.build/remote-races.log"
: >"$LOG"
started=$(date +%s)
for run in $(seq "$REPEAT"); do
  set +e
  REMOTE_RACE_ROUNDS="$ROUNDS" swift test --skip-build --disable-swift-testing \
    --filter 'RemoteTests.testFourClones' >>"$LOG" 2>&1
  status=$?
  set -e
  echo "remote-races: run $run: $(grep -E "Executed [0-9]+ tests?" "$LOG" | tail -1 | sed 's/^[[:space:]]*//')"
  if [ "$status" -ne 0 ]; then
    grep -E "error:" "$LOG" || true
    echo "remote-races: run $run of $REPEAT failed, $ROUNDS rounds, log $LOG"
    exit 1
  fi
done
echo "remote-races: $REPEAT run(s) of $ROUNDS rounds, wall time $(($(date +%s) - started)) s, log $LOG"
