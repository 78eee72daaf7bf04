#!/usr/bin/env bash
# The long run of the fault-injection test at the remote (issue 31, docs/reliability.md "A push
# whose connection is cut"): the same XCTest as `make test` (CutPushModelTests), against
# the release binary, over many seeds. Each seed starts the real `git http-backend` behind
# Tests/Fixtures/servers/git-http-server.py with a slowed pre-receive hook, and
# Tests/Fixtures/servers/push-fault-proxy.py in front of it cutting push connections before, while
# and after the hook runs; every step is checked to have reported exactly what happened to its own
# commit.
#
# Usage: scripts/fault-injection.sh [SEEDS] [STEPS]     (defaults: 1-20 and 40, i.e. 800 steps)
#   SEEDS  "1-20", "7" or "3,9,12"; STEPS: steps per seed.
#
# Prints the summary: seeds, steps, faults planned, cuts landed by kind, changes landed (and how
# many after a cut), hook runs, commands that said their push may have landed, violations (0
# expected) and the wall time. Exits 1 when there is a violation; each is printed with its seed,
# step, the replay settings and the steps so far.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SEEDS="${1:-1-20}"
STEPS="${2:-40}"
case "$SEEDS" in (*[!0-9,-]*|"") echo "usage: scripts/fault-injection.sh [SEEDS such as 1-20] [STEPS]" >&2; exit 64;; esac
case "$STEPS" in (*[!0-9]*|"") echo "usage: scripts/fault-injection.sh [SEEDS such as 1-20] [STEPS]" >&2; exit 64;; esac

swift build -c release 2>&1 | tail -1
BIN="$(swift build -c release --show-bin-path)/rollout"
swift build --build-tests 2>&1 | tail -1
LOG="$ROOT/.build/fault-injection.log"
started=$(date +%s)
set +e
ROLLOUT_BIN="$BIN" LANDED_SEEDS="$SEEDS" LANDED_STEPS="$STEPS" \
  swift test --skip-build --disable-swift-testing --filter CutPushModelTests >"$LOG" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - started ))
grep -E "^landed-push: VIOLATION|^seed [0-9]+ step" "$LOG" || true
grep -E "^landed-push: (seeds|cut|kind)" "$LOG" || true
grep -E "Executed [0-9]+ tests?" "$LOG" | tail -1
echo "fault-injection: seeds $SEEDS, $STEPS steps each, release binary $BIN, wall time ${elapsed} s, log $LOG"
exit $status
