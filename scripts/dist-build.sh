#!/usr/bin/env bash
# Builds the release `rollout` that is installed and shipped (make install, make dist, bench/startup)
# and prints its path on stdout: one place for the flags (docs/install.md, "What is linked how").
#   --static-swift-stdlib  the Swift runtime, Foundation (with its ICU data), Dispatch and the
#                          concurrency runtime are linked in; only Debian libraries stay dynamic.
# SWIFT_BUILD_FLAGS (as in the Makefile) are passed on.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck disable=SC2206 # SWIFT_BUILD_FLAGS is a list of flags, as in the Makefile
FLAGS=(-c release --static-swift-stdlib ${SWIFT_BUILD_FLAGS:-})
swift build "${FLAGS[@]}" --product rollout >&2
echo "$(swift build "${FLAGS[@]}" --show-bin-path)/rollout"
