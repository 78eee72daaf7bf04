#!/usr/bin/env bash
# The long runs of the sample-ratio-mismatch simulations (Tests/RolloutModelTests/SampleRatioTests,
# docs/health.md "Sample ratio mismatch"): the XCTests `make test` runs, with many more runs, and
# the clustered-sessions scenario over a range of device counts, to see where the band gives way.
#
# Usage: scripts/srm-simulations.sh [RUNS] [DEVICES...]
#   RUNS     rollouts at the planned share (default 10000); as many at the band's edge, half as many
#            ramps, a tenth as many with the bug from the start and from day 8, and a tenth as many
#            clustered per device count
#   DEVICES  devices in the smallest (5%) segment for the clustered scenario, the others in
#            proportion (default 80000 20000 5000 2000 1000 500)
#   SRM_SIM_DEVICE_SESSIONS (sessions a device a day, default 10), SRM_SIM_SPREAD (log-spread of
#   device activity, default 1) and SRM_SIM_BURST (gamma shape of a device's hourly bursts, default 1)
#   pass through to the clustered scenario.
#
# Prints the tests' "srm:" lines and their pass or failure; exits 1 if any assertion failed (for the
# clustered scenario at small device counts that failure is the finding, not a bug).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
RUNS="${1:-10000}"
shift || true
DEVICES=("$@")
[ ${#DEVICES[@]} -eq 0 ] && DEVICES=(80000 20000 5000 2000 1000 500)
for value in "$RUNS" "${DEVICES[@]}"; do
  case "$value" in (*[!0-9]*|""|0) echo "usage: scripts/srm-simulations.sh [RUNS] [DEVICES...] (positive integers)" >&2; exit 64;; esac
done
swift build --build-tests 2>&1 | tail -1
LOG="$ROOT/.build/srm-simulations.log"
: >"$LOG"
status=0
started=$(date +%s)

# run TEST [VARIABLE=VALUE...]: one test of SampleRatioTests with the variables set.
run() {
  local test="$1"; shift
  if ! env "$@" swift test --skip-build --disable-swift-testing --filter "SampleRatioTests/$test" >>"$LOG" 2>&1; then
    echo "FAILED: $test $*"
    status=1
  fi
  grep -E "^srm:" "$LOG" | tail -1
}

run testHourlyLooksForTwoWeeksAtThePlannedShareHoldNoMoreOftenThanTheLevel SRM_SIM_RUNS="$RUNS"
run testHourlyLooksAtTheEdgeOfTheBandHoldNoMoreOftenThanTheLevel SRM_SIM_EDGE_RUNS="$RUNS"
run testARampThroughSixSharesHoldsNoMoreOftenThanTheLevel SRM_SIM_RAMP_RUNS="$(( (RUNS + 1) / 2 ))"
run testTwiceThePlannedShareInTheSmallestSegmentIsHeldWithinSixHours SRM_SIM_BUG_RUNS="$(( (RUNS + 9) / 10 ))"
run testTwiceThePlannedShareFromTheEighthDayIsHeldWithinTwelveHours SRM_SIM_BUG_RUNS="$(( (RUNS + 9) / 10 ))"
for devices in "${DEVICES[@]}"; do
  run testSessionsClusteredByDeviceHoldNoMoreOftenThanTheLevel SRM_SIM_DEVICES="$devices" \
    SRM_SIM_CLUSTER_RUNS="$(( (RUNS + 9) / 10 ))" SRM_SIM_DEVICE_SESSIONS="${SRM_SIM_DEVICE_SESSIONS:-10}" \
    SRM_SIM_SPREAD="${SRM_SIM_SPREAD:-1}" SRM_SIM_BURST="${SRM_SIM_BURST:-1}"
done
echo "srm-simulations: $RUNS runs, devices ${DEVICES[*]}, wall time $(( $(date +%s) - started )) s, log $LOG"
exit $status
