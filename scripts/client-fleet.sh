#!/usr/bin/env bash
# The long run of the fleet test (docs/client.md, "ClientFleetTests"; docs/architecture.md, "Test
# suite"): the XCTest `make test` runs with 2,000 devices and seed 1
# (Tests/RolloutEndToEndTests/ClientFleetTests.swift), here with DEVICES devices drawn with SEED:
# each device runs the client library against the published site; the packs they reach must be
# exactly what `rollout simulate --mix --seed SEED` counts, their counters ingested must give the
# figures `rollout health` reports, and after a revert every device must be back on tr-TR@17.
#
# Usage: scripts/client-fleet.sh [DEVICES] [SEED]     (defaults: 10000 and 1)
#   DEVICES  a multiple of 100, from 100 to 1000000 (FLEET_DEVICES); about 12 s per 1,000 devices
#            in a debug build on the 2-core machine. SEED from 1 to 1000000 (FLEET_SEED).
#
# Prints the test summary and the wall time. Exits 1 when the test fails; its message is printed
# above and the whole output is in .build/client-fleet.log.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
DEVICES="${1:-10000}"
SEED="${2:-1}"
usage="usage: scripts/client-fleet.sh [DEVICES, a multiple of 100] [SEED from 1 to 1000000]"
case "$DEVICES" in (*[!0-9]*|"") echo "$usage" >&2; exit 64;; esac
case "$SEED" in (*[!0-9]*|"") echo "$usage" >&2; exit 64;; esac
[ $((DEVICES % 100)) -eq 0 ] || { echo "$usage" >&2; exit 64; }

swift build --build-tests 2>&1 | tail -1
LOG="$ROOT/.build/client-fleet.log"
started=$(date +%s)
set +e
FLEET_DEVICES="$DEVICES" FLEET_SEED="$SEED" swift test --skip-build --disable-swift-testing --filter ClientFleetTests \
  >"$LOG" 2>&1
status=$?
set -e
grep -E "error:" "$LOG" || true
grep -E "Executed [0-9]+ tests?" "$LOG" | tail -1
echo "client-fleet: $DEVICES devices, seed $SEED, wall time $(($(date +%s) - started)) s, log $LOG"
exit $((status != 0))
