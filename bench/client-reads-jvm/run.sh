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

WORK="$(mktemp -d)"
PUBLISHER=""
# The republishing loop is asked to stop and waited for, so nothing writes into WORK while it is removed.
finish() {
  touch "$WORK/stop"
  if [ -n "$PUBLISHER" ]; then wait "$PUBLISHER" || true; fi
  rm -rf "$WORK" || true
}
trap finish EXIT
cd "$WORK"
export ROLLOUT_ACTOR="Bench <bench@example.com>" HOME="$WORK" GIT_CONFIG_NOSYSTEM=1
"$BIN" init >/dev/null
"$BIN" pack add "$ROOT"/examples/packs/*.json >/dev/null
for id in en-US@1 tr@1 tr-TR@17 vi-VN@3; do "$BIN" promote "$id" --to 100% >/dev/null; done
KEY="$("$BIN" keys generate --out "$WORK/signing.key" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["publicKey"])')"
"$BIN" publish --out "$WORK/site" --key "$WORK/signing.key" >/dev/null

(
  version=4
  while [ ! -e "$WORK/stop" ]; do
    python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); p["contentVersion"] = int(sys.argv[2]); p.pop("checksum", None)
json.dump(p, open(sys.argv[3], "w"), ensure_ascii=False)' "$ROOT/examples/packs/vi-VN@3.json" "$version" "$WORK/vi.json"
    "$BIN" pack add "$WORK/vi.json" >/dev/null 2>&1 || true
    "$BIN" promote "vi-VN@$version" --to 100% >/dev/null 2>&1 || true
    "$BIN" publish --out "$WORK/site" --key "$WORK/signing.key" >/dev/null 2>&1 || true
    version=$((version + 1))
  done
) &
PUBLISHER=$!
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
java -cp "$CLASSES:$LIBRARY" BenchReads "$WORK/site" "$KEY" "$SECONDS_A_PHASE"
