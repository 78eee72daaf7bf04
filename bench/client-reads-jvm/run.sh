#!/usr/bin/env bash
# bench/client-reads-jvm: the Java client's string() latency while it refreshes against a real site, against a
# HashMap behind a ReentrantLock doing the same lookups on the same threads (see BenchReads.java): the JVM side of
# bench/client-reads, on the same published site and the same republishing loop.
#
# Usage: bench/client-reads-jvm/run.sh [ROLLOUT_BINARY]      PHASE_SECONDS=10 READERS=8
# Prints the table and INFO lines with the ratios to the peer (p50, p99, p99.9); the JVM is not held to the
# Swift client's goal, only measured.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
SECONDS_A_PHASE="${PHASE_SECONDS:-10}"
CLASSES="$("$ROOT/android/build.sh" bench | tail -1)"
LIBRARY="$ROOT/.build/android/classes"

# shellcheck source=bench/client-reads-site.sh
source "$ROOT/bench/client-reads-site.sh"
java -cp "$CLASSES:$LIBRARY" BenchReads "$WORK/site" "$KEY" "$SECONDS_A_PHASE"
