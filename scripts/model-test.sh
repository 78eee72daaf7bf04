#!/usr/bin/env bash
# The long run of the model-based test (docs/reliability.md "Model-based test of whole
# operations"): the same XCTest as `make test`, against the release binary, over many seeds.
#
# Usage: scripts/model-test.sh [SEEDS] [STEPS]     (defaults: 1-50 and 400, i.e. 20,000 steps)
#   SEEDS  "1-50", "7" or "3,9,12"; STEPS: steps per seed.
#   MODEL_KILL_RATE (default 0.05), MODEL_JOBS (seeds at once, default 2) and MODEL_KEEP_GOING=1 (record every violation and go on,
#   to list distinct findings) pass through from the environment.
#
# Prints the summary: seeds, steps, steps and exit codes per step kind, kills landed, stale
# locks cleared, violations (0 expected) and the wall time. Exits 1 when there is a violation;
# each one is printed in full with its seed, step, the replay command and the steps so far, and
# its scratch directory is kept.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SEEDS="${1:-1-50}"
STEPS="${2:-400}"
case "$SEEDS" in (*[!0-9,-]*|"") echo "usage: scripts/model-test.sh [SEEDS such as 1-50] [STEPS]" >&2; exit 64;; esac
case "$STEPS" in (*[!0-9]*|"") echo "usage: scripts/model-test.sh [SEEDS such as 1-50] [STEPS]" >&2; exit 64;; esac

swift build -c release 2>&1 | tail -1
BIN="$(swift build -c release --show-bin-path)/rollout"
swift build --build-tests 2>&1 | tail -1
LOG="$ROOT/.build/model-test.log"
started=$(date +%s)
set +e
ROLLOUT_BIN="$BIN" MODEL_SEEDS="$SEEDS" MODEL_STEPS="$STEPS" MODEL_KILL_RATE="${MODEL_KILL_RATE:-0.05}" MODEL_JOBS="${MODEL_JOBS:-2}" \
  swift test --skip-build --disable-swift-testing --filter ModelBasedTests >"$LOG" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - started ))
grep -E "^model: VIOLATION|^model: replay" "$LOG" || true
grep -E "^model: (seeds|kind|violation x|wall|rollout metrics retract)" "$LOG" || true
grep -E "Executed [0-9]+ tests?" "$LOG" | tail -1
echo "model-test: seeds $SEEDS, $STEPS steps each, release binary $BIN, wall time ${elapsed} s, log $LOG"
exit $status
