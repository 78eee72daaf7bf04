#!/usr/bin/env bash
# bench/client-reads: string() latency while the client refreshes against a real site (a directory
# read through the default URLSessionTransport), locale flips and republishing run; against a plain
# dictionary lookup on the same threads (see main.swift). Goal: p99.9 < 1 ms while refreshing.
#
# Sets up a repository with the example packs, a signing key and a published site
# (bench/client-reads-site.sh), then runs the bench while that script republishes the site, so the
# client's refreshes are up to date, changing (as vi-VN), or refused (a site caught mid-publish).
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

# shellcheck source=bench/client-reads-site.sh
source "$ROOT/bench/client-reads-site.sh"
"$BENCH" "$WORK/site" "$KEY" "$SECONDS_A_PHASE"
