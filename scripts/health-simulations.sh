#!/usr/bin/env bash
# The long run of the health simulations (docs/health.md, "Evidence: the simulation tests"): the
# XCTests `make test` runs (Tests/RolloutModelTests/HealthTests.swift), with the same number of
# rollouts in every scenario, many more than `make test` affords, and other seeds.
#
# Usage: scripts/health-simulations.sh [RUNS] [SEED]     (defaults: 2000 and 1)
#   RUNS  rollouts per scenario (HEALTH_SIM_RUNS); SEED  the seed base (HEALTH_SIM_SEED; `make test`
#   uses 0). Each rollout is 336 hourly looks; 2000 per scenario take about 3 minutes in a debug build.
#
# Prints one `health:` line per scenario (false alarms of the method and of a naive fixed-sample
# interval on the same counts), the test summary and the wall time. Exits 1 when a test fails; its
# message is printed above the figures and the whole output is in .build/health-simulations.log.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
RUNS="${1:-2000}"
SEED="${2:-1}"
usage="usage: scripts/health-simulations.sh [RUNS from 1 to 1000000] [SEED from 0 to 1000000]"
case "$RUNS" in (*[!0-9]*|"") echo "$usage" >&2; exit 64;; esac
case "$SEED" in (*[!0-9]*|"") echo "$usage" >&2; exit 64;; esac

swift build --build-tests 2>&1 | tail -1
LOG="$ROOT/.build/health-simulations.log"
started=$(date +%s)
set +e
HEALTH_SIM_RUNS="$RUNS" HEALTH_SIM_SEED="$SEED" swift test --skip-build --disable-swift-testing --filter HealthTests >"$LOG" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - started ))
grep -E "error:" "$LOG" || true
grep -E "^health:" "$LOG" || true
grep -E "Executed [0-9]+ tests?" "$LOG" | tail -1
echo "health-simulations: $RUNS rollouts per scenario, seed base $SEED, wall time ${elapsed} s, log $LOG"
exit $(( status != 0 ))
