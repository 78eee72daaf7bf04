#!/usr/bin/env bash
# bench/startup: how long `rollout --version` takes from exec to exit, against `git --version`
# (a small C program that links nothing heavy: the floor a user compares a CLI's start-up with).
# Goal: median rollout / median git <= 3x. Both run RUNS times each, interleaved run by run (rollout,
# git, rollout, git...), spawned the same way (posix_spawn from one Python process, output to
# /dev/null, wall time from spawn to reap), so the spawn cost is in both.
# Also prints, for information, what the dynamic loader did for each (LD_DEBUG=statistics: objects
# loaded, relocations, time in relocation): the first thing a slow start-up is checked for.
#
# Usage: bench/startup/run.sh [ROLLOUT_BINARY]      RUNS=500
#   ROLLOUT_BINARY  default: the release binary `make install` and `make dist` ship
#                   (scripts/dist-build.sh: static Swift runtime)
# Exits 1 if the goal fails.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
RUNS="${RUNS:-500}"
BIN="${1:-}"
[ -n "$BIN" ] || BIN="$("$ROOT/scripts/dist-build.sh")"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
[ -x "$BIN" ] || { echo "$0: $BIN is not an executable rollout binary" >&2; exit 2; }
GIT="$(command -v git)" || { echo "$0: needs git" >&2; exit 2; }
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/startup-$(date -u +%Y%m%dT%H%M%SZ).txt"

{
  echo "rollout: $BIN ($(stat -c %s "$BIN") bytes): $("$BIN" --version)"
  echo "git:     $GIT: $("$GIT" --version)"
  echo "runs:    $RUNS each, interleaved; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for tool in "$BIN" "$GIT"; do
    # ld.so writes its statistics to stderr; keep the lines that say where loading time goes.
    stats="$(LD_DEBUG=statistics "$tool" --version 2>&1 >/dev/null | sed -E 's/^ *[0-9]+: *//' \
      | grep -E "total startup time|time needed for relocation|number of relocations|relocations from cache|objects loaded" \
      | sed -E 's/[[:space:]]+/ /g' | paste -sd';' -)"
    echo "ld.so   $(basename "$tool"): $stats"
  done
  python3 - "$RUNS" "$BIN" "$GIT" <<'PY'
import os, statistics, sys, time
runs, rollout, git = int(sys.argv[1]), sys.argv[2], sys.argv[3]
devnull = os.open(os.devnull, os.O_WRONLY)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]

def once(path):
    start = time.perf_counter_ns()
    pid = os.posix_spawn(path, [path, "--version"], os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{path} --version failed")
    return elapsed / 1e6

for path in (rollout, git):   # warm the page cache and the loader's caches
    for _ in range(5):
        once(path)
times = {rollout: [], git: []}
for _ in range(runs):
    for path in (rollout, git):
        times[path].append(once(path))

def line(name, values):
    q = statistics.quantiles(values, n=10)
    return f"{name:<18} median {statistics.median(values):7.2f} ms   p10 {q[0]:7.2f} ms   p90 {q[-1]:7.2f} ms"

print(line("rollout --version", times[rollout]))
print(line("git --version", times[git]))
ratio = statistics.median(times[rollout]) / statistics.median(times[git])
print(f"GOAL startup (rollout --version / git --version): {ratio:.2f}x (goal <= 3x): {'pass' if ratio <= 3 else 'FAIL'}")
PY
} | tee "$OUT"
grep -q "^GOAL .*: pass$" "$OUT"
