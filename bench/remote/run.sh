#!/usr/bin/env bash
# bench/remote: what a shared repository costs per change, and how fast a permanent failure fails
# (docs/teams.md, "When the remote fails"; figures in docs/performance.md).
#
# Usage: bench/remote/run.sh [ROLLOUT_BINARY]
#   ROLLOUT_BINARY  default: a release build
#   RUNS=20         changes (and failures) timed per setup
#
# Starts the smart-HTTP git server the end-to-end tests use (Tests/Fixtures/servers/
# git-http-server.py: the real git http-backend behind Basic auth) on loopback, and times, each run
# interleaved with its peer:
#   - one change (promote, then revert, alternating) in a repository with no remote, with a remote on
#     a local path, and with a remote over authenticated HTTP; the peer is plain git fetching and
#     pushing one new commit to the same HTTP server (the network floor rollout builds on);
#   - rollout clone with a wrong password, against git clone with the same URL;
#   - a promote refused by the server's pre-receive hook, against git push of a commit the same hook
#     refuses; the hook counts its runs, which must equal the pushes tried (no retries).
# Writes bench/out/remote-<date>.txt and prints it, ending with one `INFO remote ...: <ratio>x` line
# per comparison (docs/performance.md states figures, no goal). Exits 1 when a failure was retried
# or exited with the wrong code, 2 when something failed outright. Small: RUNS=3 (make bench).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
for tool in git python3; do command -v "$tool" >/dev/null || { echo "run.sh: needs $tool" >&2; exit 2; }; done
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/remote-$(date -u +%Y%m%dT%H%M%SZ).txt"
python3 "$HERE/measure.py" "$BIN" "$ROOT" "${RUNS:-20}" | tee "$OUT"
exit "${PIPESTATUS[0]}"
