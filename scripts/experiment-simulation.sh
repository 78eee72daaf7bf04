#!/usr/bin/env bash
# The long run of the experiment simulations (docs/experiments.md, "Proof by simulation"): the XCTests
# `make test` runs (Tests/RolloutModelTests/ExperimentSimulationTests.swift: 120 runs a scenario,
# seed 1) with many more runs and another seed, then the page's table at two traffic levels, from
# `rollout experiment simulate` on the release build.
#
# Usage: scripts/experiment-simulation.sh [RUNS] [SEED]    (defaults: 2000 runs a scenario, seed 1)
# Exits 1 when a test fails (its message is printed above the figures).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
RUNS="${1:-2000}"
SEED="${2:-1}"
usage="usage: scripts/experiment-simulation.sh [RUNS from 1 to 1000000] [SEED from 1 to 1000000]"
for value in "$RUNS" "$SEED"; do
  case "$value" in (*[!0-9]*|"") echo "$usage" >&2; exit 64;; esac
done
started=$(date +%s)
swift build --build-tests 2>&1 | tail -1
status=0
EXPERIMENT_SIM_RUNS="$RUNS" EXPERIMENT_SIM_SEED="$SEED" \
  swift test --skip-build --disable-swift-testing --filter ExperimentSimulationTests > .build/experiment-simulation.log 2>&1 \
  || status=1
grep -E 'error:|experiment-simulation:|Executed' .build/experiment-simulation.log | sort -u
swift build -c release --product rollout 2>&1 | tail -1
ROLLOUT="$(swift build -c release --show-bin-path)/rollout"
for exposures in 40000 10000; do
  echo
  "$ROLLOUT" experiment simulate --runs "$RUNS" --seed "$SEED" --exposures "$exposures" --rate 5%
done
echo
echo "$RUNS runs a scenario, seed $SEED, $(( $(date +%s) - started )) s"
exit "$status"
