#!/usr/bin/env bash
# bench/log: `rollout log --segment TR/4.8` on a history of 1,000 changes and on one of 100,000 changes
# over 200 locales. Goal: the time at 100,000 is at most 3x the time at 1,000 (the query must not
# grow linearly with history). The index is built by the first query (reported as "cold"); the
# goal applies to the queries after it ("warm", median of RUNS). The peer, run in the same invocation
# on the same repositories, is plain `git log -n 50` (the newest 50 commits with their messages).
#
# Usage: bench/log/run.sh [ROLLOUT_BINARY]      SMALL=1000 LARGE=100000 RUNS=15
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
SMALL="${SMALL:-1000}"
LARGE="${LARGE:-100000}"
RUNS="${RUNS:-15}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-log.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export ROLLOUT_ACTOR="bench <bench@example.invalid>"
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/log-$(date -u +%Y%m%dT%H%M%SZ).txt"

make_repo() { # name changes
  local repo="$WORK/$1.git"
  "$BIN" init "$repo" >/dev/null
  local parent; parent="$(git --git-dir "$repo" rev-parse main)"
  python3 "$HERE/generate.py" "$2" "$parent" | git --git-dir "$repo" fast-import --quiet
  echo "$repo"
}

median_ms() { # command...
  python3 - "$RUNS" "$@" <<'PY'
import statistics, subprocess, sys, time
runs = int(sys.argv[1]); cmd = sys.argv[2:]
times = []
for _ in range(runs):
    t = time.perf_counter(); subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL); times.append(time.perf_counter() - t)
print(f"{statistics.median(times) * 1000:.1f}")
PY
}

once_ms() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.perf_counter(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); print(f"{(time.perf_counter() - t) * 1000:.1f}")
PY
}

{
  echo "bench/log  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$BIN" --version)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "histories: $SMALL and $LARGE changes over 200 locales (generated with bench/log/generate.py through git fast-import)"
  small="$(make_repo small "$SMALL")"
  large="$(make_repo large "$LARGE")"
  echo "commits: $(git --git-dir "$small" rev-list --count main) and $(git --git-dir "$large" rev-list --count main)"
  for name in small large; do
    repo="$WORK/$name.git"
    cold="$(once_ms "$BIN" --repo "$repo" log --segment TR/4.8)"
    warm="$(median_ms "$BIN" --repo "$repo" log --segment TR/4.8)"
    locale="$(median_ms "$BIN" --repo "$repo" log --locale tr-TR)"
    peer="$(median_ms git --git-dir "$repo" log -n 50 --format=%H%n%B main)"
    printf '%s\n' "$name: log --segment TR/4.8 cold (builds the index) ${cold} ms; warm ${warm} ms; log --locale tr-TR ${locale} ms; peer git log -n 50 ${peer} ms"
    eval "${name}_warm=$warm ${name}_peer=$peer ${name}_locale=$locale"
  done
  echo "matches shown (default limit 50): $("$BIN" --repo "$large" log --segment TR/4.8 --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["changes"]))')"
  echo "index size at $LARGE changes: $(du -sh "$large/rollout/log-index" | cut -f1)"
  python3 - "$small_warm" "$large_warm" "$small_peer" "$large_peer" "$small_locale" "$large_locale" <<'PY'
import sys
sw, lw, sp, lp, sl, ll = map(float, sys.argv[1:])
ratio = lw / sw
print(f"ratio log --segment warm, large/small: {ratio:.2f}x (goal <= 3x) {'PASS' if ratio <= 3 else 'FAIL'}")
print(f"ratio log --locale warm, large/small: {ll / sl:.2f}x")
print(f"ratio peer git log -n 50, large/small: {lp / sp:.2f}x")
print(f"rollout log --segment / git log -n 50: small {sw / sp:.1f}x, large {lw / lp:.1f}x")
sys.exit(0 if ratio <= 3 else 1)
PY
} | tee "$OUT"
