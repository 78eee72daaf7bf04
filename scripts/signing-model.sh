#!/usr/bin/env bash
# The long run of the signing model's randomized test (SignatureVerifyTests,
# testRequireSignedFlagsExactlyTheBadChangesOfThreeClonesSyncing; docs/audit.md): three clones of one
# remote sign, forge and sync at random, and `rollout verify --require-signed` must flag exactly the
# changes the model says are bad, with `git verify-commit` agreeing on each signature. `make test`
# runs seed 35 for 24 steps.
#
# Usage: scripts/signing-model.sh [SEEDS] [STEPS] [FIRST_SEED]    (defaults: 20 seeds of 100 steps, from 1)
# Prints each seed's line, then the seeds that failed (replay one: SIGNATURE_SEED=N SIGNATURE_STEPS=STEPS
# swift test --skip-build --filter SignatureVerifyTests/testRequireSignedFlagsExactlyTheBadChangesOfThreeClonesSyncing).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SEEDS="${1:-20}"
STEPS="${2:-100}"
FIRST="${3:-1}"
for value in "$SEEDS" "$STEPS" "$FIRST"; do
  case "$value" in (*[!0-9]*|"") echo "usage: scripts/signing-model.sh [SEEDS] [STEPS] [FIRST_SEED]" >&2; exit 64;; esac
done
swift build --build-tests -j 2 2>&1 | tail -1
TEST=RolloutEndToEndTests.SignatureVerifyTests/testRequireSignedFlagsExactlyTheBadChangesOfThreeClonesSyncing
started=$(date +%s)
failed=()
for seed in $(seq "$FIRST" $((FIRST + SEEDS - 1))); do
  log="$ROOT/.build/signing-model-$seed.log"
  if SIGNATURE_SEED="$seed" SIGNATURE_STEPS="$STEPS" swift test --skip-build --disable-swift-testing --filter "$TEST" >"$log" 2>&1; then
    grep -h 'SignatureVerifyTests: seed' "$log" || echo "seed $seed: passed"
  else
    failed+=("$seed")
    echo "seed $seed: FAILED (log: $log)"
    grep -E 'error:' "$log" | head -5
  fi
done
echo "seeds $FIRST-$((FIRST + SEEDS - 1)), $STEPS steps each, $(( $(date +%s) - started )) s, failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
