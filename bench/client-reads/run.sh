#!/usr/bin/env bash
# bench/client-reads: string() latency while the client refreshes against a real site (a directory
# read through the default URLSessionTransport), locale flips and republishing run; against a plain
# dictionary lookup on the same threads (see main.swift). Goal: p99.9 < 1 ms while refreshing.
#
# Sets up a repository with the example packs (en-US@1, tr@1, tr-TR@17, vi-VN@3 at 100%), a signing
# key and a published site, then runs the bench while this script republishes the site in a loop
# (a new vi-VN content version at 100%, then `rollout publish`), so the client's refreshes are up
# to date, changing (as vi-VN), or refused (a site caught mid-publish).
#
# Usage: bench/client-reads/run.sh [ROLLOUT_BINARY]      PHASE_SECONDS=10 READERS=8
# Ends with one GOAL line per part of the goal and an INFO line against the peer; exits 1 if the goal
# fails at full size (PHASE_SECONDS >= 10; shorter runs, as make bench's, only report).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
SECONDS_A_PHASE="${PHASE_SECONDS:-10}"
# Built as the shipped rollout is (scripts/dist-build.sh): make bench's build is reused, not redone
# with other flags.
BENCH="$("$ROOT/scripts/dist-build.sh" rollout-bench-client-reads)"

WORK="$(mktemp -d)"
PUBLISHER=""
# The republishing loop is asked to stop and waited for: killing its shell would leave the rollout
# it is running writing into WORK while it is removed (rm fails, and the bench with it).
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
    # A new vi-VN content version each round, at 100%: the device gets it whenever it refreshes
    # as vi-VN, and every round moves the index sequence for tr-TR too.
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
"$BENCH" "$WORK/site" "$KEY" "$SECONDS_A_PHASE"
