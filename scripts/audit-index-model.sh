#!/usr/bin/env bash
# The long run of the log index's model-based test (Tests/RolloutStoreTests/AuditIndexModelTests):
# random histories, queries, kills, damage and rewrites, every answer compared with a walk of the
# history without an index. `make test` runs 4 seeds of 100 steps.
#
# Usage: scripts/audit-index-model.sh [SEEDS] [STEPS] [FIRST_SEED]    (defaults: 200 seeds of 200 steps, from 1)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SEEDS="${1:-200}"
STEPS="${2:-200}"
FIRST="${3:-1}"
for value in "$SEEDS" "$STEPS" "$FIRST"; do
  case "$value" in (*[!0-9]*|"") echo "usage: scripts/audit-index-model.sh [SEEDS] [STEPS] [FIRST_SEED]" >&2; exit 64;; esac
done
swift build --build-tests 2>&1 | tail -1
started=$(date +%s)
AUDIT_MODEL_SEEDS="$SEEDS" AUDIT_MODEL_STEPS="$STEPS" AUDIT_MODEL_FIRST_SEED="$FIRST" \
  swift test --skip-build --disable-swift-testing --filter AuditIndexModelTests 2>&1 | grep -E 'error|Executed' | sort -u
echo "seeds $FIRST-$((FIRST + SEEDS - 1)), $STEPS steps each, $(( $(date +%s) - started )) s"
