#!/usr/bin/env bash
# bench/client-reads: string() latency while the client refreshes against a real site (a directory
# read through the default URLSessionTransport), locale flips and republishing run; against a plain
# dictionary lookup on the same threads (see main.swift). Goal: p99.9 < 1 ms while refreshing.
#
# Sets up a repository with the example packs (en-US@1, tr@1, tr-TR@17, vi-VN@3 at 100%), a signing
# key and a published site, then runs the bench while this script republishes the site in a loop
# (tr-TR@18 promoted to 100%, then reverted, each followed by `rollout publish`), so the client's
# refreshes alternate between up to date, changing, and refused (a site caught mid-publish).
#
# Usage: bench/client-reads/run.sh [ROLLOUT_BINARY]      SECONDS=10
# Exits 1 if the goal fails.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
SECONDS_A_PHASE="${SECONDS:-10}"
(cd "$ROOT" && swift build -c release --product rollout-bench-client-reads >&2)
BENCH="$(cd "$ROOT" && swift build -c release --show-bin-path)/rollout-bench-client-reads"

WORK="$(mktemp -d)"
trap 'kill "$PUBLISHER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
cd "$WORK"
export ROLLOUT_ACTOR="Bench <bench@example.com>" HOME="$WORK" GIT_CONFIG_NOSYSTEM=1
"$BIN" init >/dev/null
"$BIN" pack add "$ROOT"/examples/packs/*.json >/dev/null
for id in en-US@1 tr@1 tr-TR@17 vi-VN@3; do "$BIN" promote "$id" --to 100% >/dev/null; done
KEY="$("$BIN" keys generate --out "$WORK/signing.key" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["publicKey"])')"
"$BIN" publish --out "$WORK/site" --key "$WORK/signing.key" >/dev/null

(
  while true; do
    "$BIN" promote tr-TR@18 --to 100% --force --reason bench >/dev/null 2>&1 || true
    "$BIN" publish --out "$WORK/site" --key "$WORK/signing.key" >/dev/null 2>&1 || true
    "$BIN" revert tr-TR --reason bench >/dev/null 2>&1 || true
    "$BIN" publish --out "$WORK/site" --key "$WORK/signing.key" >/dev/null 2>&1 || true
  done
) &
PUBLISHER=$!
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
"$BENCH" "$WORK/site" "$KEY" "$SECONDS_A_PHASE"
