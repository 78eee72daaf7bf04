#!/usr/bin/env bash
# bench/startup: how long `rollout --version` takes from exec to exit, against `git --version`
# (a small C program that links nothing heavy: the floor a user compares a CLI's start-up with).
# Goal: median rollout / median git <= 3x. Both run RUNS times each, interleaved run by run (rollout,
# git, rollout, git...), spawned the same way (posix_spawn from one Python process, output to
# /dev/null, wall time from spawn to reap), so the spawn cost is in both.
# Also, for information (the profile in docs/performance.md, "Install and start-up"):
#   - what the dynamic loader did for each (LD_DEBUG=statistics: relocations, time in relocation);
#   - a third program in the same rounds: an empty C `main` linked with exactly the shared libraries
#     rollout names (DT_NEEDED, read from the binary), built here with cc: what loading them costs
#     before any Swift or rollout code runs.
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
CC="$(command -v cc || command -v clang)" || { echo "$0: needs cc (or clang) for the libraries-only peer" >&2; exit 2; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-startup.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# -l:libfoo.so.N for every library rollout needs (except the loader itself), kept even if unused.
mapfile -t needed < <(readelf -d "$BIN" | sed -nE 's/.*Shared library: \[(.*)\]/\1/p' | grep -v '^ld-linux')
printf 'int main(void) { return 0; }\n' >"$WORK/empty.c"
"$CC" -O2 -o "$WORK/libraries-only" "$WORK/empty.c" -Wl,--no-as-needed "${needed[@]/#/-l:}"
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
  echo "libraries-only: an empty C main linked with ${needed[*]}"
  python3 - "$RUNS" "$BIN" "$GIT" "$WORK/libraries-only" <<'PY'
import os, resource, statistics, sys, time
runs, rollout, git, libraries = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
devnull = os.open(os.devnull, os.O_WRONLY)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]

def once(path):
    # Wall time from spawn to reap, and the child's CPU time (user + system) from wait4's rusage:
    # the CPU time does not grow when other processes keep the cores busy; the wall time does.
    start = time.perf_counter_ns()
    pid = os.posix_spawn(path, [path, "--version"], os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{path} --version failed")
    return elapsed / 1e6, (usage.ru_utime + usage.ru_stime) * 1000

programs = (rollout, git, libraries)
for path in programs:   # warm the page cache
    for _ in range(5):
        once(path)
wall = {path: [] for path in programs}
cpu = {path: [] for path in programs}
for _ in range(runs):
    for path in programs:
        w, c = once(path)
        wall[path].append(w)
        cpu[path].append(c)

def line(name, path):
    q = statistics.quantiles(wall[path], n=10)
    return (f"{name:<20} median {statistics.median(wall[path]):7.2f} ms   p10 {q[0]:7.2f} ms   p90 {q[-1]:7.2f} ms"
            f"   cpu median {statistics.median(cpu[path]):6.2f} ms")

print(line("rollout --version", rollout))
print(line("git --version", git))
print(line("libraries-only", libraries))
g = statistics.median(wall[git])
print(f"libraries-only / git: {statistics.median(wall[libraries]) / g:.2f}x wall, "
      f"{statistics.median(cpu[libraries]) / statistics.median(cpu[git]):.2f}x cpu; "
      f"rollout / git: {statistics.median(cpu[rollout]) / statistics.median(cpu[git]):.2f}x cpu")
ratio = statistics.median(wall[rollout]) / g
print(f"GOAL startup (rollout --version / git --version): {ratio:.2f}x (goal <= 3x): {'pass' if ratio <= 3 else 'FAIL'}")
PY
} | tee "$OUT"
grep -q "^GOAL .*: pass$" "$OUT"
