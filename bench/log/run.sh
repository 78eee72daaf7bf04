#!/usr/bin/env bash
# bench/log: an auditor's `rollout log --segment TR/4.8` on a fresh `rollout clone`.
#
# Histories of SMALL and CHANGES plan changes over 200 locales (bench/log/generate.py through git
# fast-import, in the form `rollout promote` commits). Goals, each a ratio measured in this run:
#   log-cold-clone: the first `log --segment TR/4.8` on a fresh clone of the CHANGES history (it builds
#     the log index) against `git log --format=%H%n%B main` of the whole history in the same clone;
#     ROUNDS fresh clones, the two commands interleaved round by round, medians compared. Goal <= 10x.
#   log-warm-growth: the warm `log --segment TR/4.8` (median of RUNS, index built) at CHANGES against
#     the same at SMALL: a query must not grow with history. Goal <= 3x.
#   log-cold-clone-all: the first `log --segment TR/4.8 --limit 0` on a fresh clone of the CHANGES
#     history, a question about the whole history, which indexes all of it (the first query above
#     indexes only what it needs), against the same peer in the same clone, run just before it;
#     ROUNDS more fresh clones, medians; wall and CPU (user + system of the process and its
#     children) ratios, the goal on wall. Goal <= 5x.
# The histories carry Rollout-Plans as rollout writes it; LEGACY=1 generates them without it, as a
# rollout from before the trailer wrote them (every change then indexed from its trees).
# At full size (CHANGES >= 100000) a failed goal exits 1; smaller runs (make bench) only report.
#
# Usage: bench/log/run.sh [ROLLOUT_BINARY]   CHANGES=100000 SMALL=1000 ROUNDS=3 RUNS=11
# Small: CHANGES=2000 SMALL=200 ROUNDS=1 RUNS=5 bench/log/run.sh
# ROLLOUT_LOG_PROFILE=1 makes rollout print the index build's phase times on stderr (shown below).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
CHANGES="${CHANGES:-100000}"
SMALL="${SMALL:-1000}"
ROUNDS="${ROUNDS:-3}"
RUNS="${RUNS:-11}"
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

# Wall and CPU milliseconds (user + system, children included) for one run, its output discarded.
once_wall_cpu_ms() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
c = cpu(); t = time.perf_counter(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{(time.perf_counter() - t) * 1000:.1f} {(cpu() - c) * 1000:.1f}")
PY
}

# Milliseconds for one run of a command, its output discarded.
once_ms() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.perf_counter(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); print(f"{(time.perf_counter() - t) * 1000:.1f}")
PY
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

median() { python3 -c 'import statistics, sys; print(f"{statistics.median(map(float, sys.argv[1:])):.1f}")' "$@"; }

{
  echo "bench/log  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$BIN" --version)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "histories: $SMALL and $CHANGES changes over 200 locales (bench/log/generate.py through git fast-import)"
  small="$(make_repo small "$SMALL")"
  large="$(make_repo large "$CHANGES")"
  echo "commits: $(git --git-dir "$small" rev-list --count main) and $(git --git-dir "$large" rev-list --count main)"

  colds=(); peers=(); clones=()
  for round in $(seq 1 "$ROUNDS"); do
    clone="$WORK/clone$round"
    clones+=("$(once_ms "$BIN" clone "$large" "$clone")")
    # Interleaved: the peer first in odd rounds, second in even ones; each on the same fresh clone.
    if (( round % 2 )); then
      peers+=("$(once_ms git --git-dir "$clone" log --format=%H%n%B main)")
      colds+=("$(once_ms "$BIN" --repo "$clone" log --segment TR/4.8)")
    else
      colds+=("$(once_ms "$BIN" --repo "$clone" log --segment TR/4.8)")
      peers+=("$(once_ms git --git-dir "$clone" log --format=%H%n%B main)")
    fi
    echo "round $round: rollout clone ${clones[-1]} ms; first log --segment TR/4.8 ${colds[-1]} ms; peer git log --format=%H%n%B main ${peers[-1]} ms"
    [ "$round" = "$ROUNDS" ] || rm -rf "$clone"
  done
  # A question about the whole history on ROUNDS more fresh clones: everything gets indexed. The
  # peer runs just before it in the same clone; medians of the rounds compared.
  fulls=(); full_cpus=(); full_peers=(); full_peer_cpus=()
  for round in $(seq 1 "$ROUNDS"); do
    full_clone="$WORK/clone-full"
    "$BIN" clone "$large" "$full_clone" >/dev/null
    read -r full_peer full_peer_cpu < <(once_wall_cpu_ms git --git-dir "$full_clone" log --format=%H%n%B main)
    read -r full full_cpu < <(once_wall_cpu_ms "$BIN" --repo "$full_clone" log --segment TR/4.8 --limit 0)
    echo "whole history, round $round: first log --segment TR/4.8 --limit 0 on a fresh clone $full ms (CPU $full_cpu ms); git log --format=%H%n%B main $full_peer ms (CPU $full_peer_cpu ms)"
    fulls+=("$full"); full_cpus+=("$full_cpu"); full_peers+=("$full_peer"); full_peer_cpus+=("$full_peer_cpu")
    [ "$round" = "$ROUNDS" ] || rm -rf "$full_clone"
  done
  echo "matches shown with --limit 0: $("$BIN" --repo "$full_clone" log --segment TR/4.8 --limit 0 --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["changes"]))')"
  echo "commits carrying Rollout-Plans: $(git --git-dir "$full_clone" log --format=%H --grep='^Rollout-Plans: ' main | wc -l) of $(git --git-dir "$full_clone" rev-list --count main)"
  rm -rf "$full_clone"
  full="$(median "${fulls[@]}")"; full_cpu="$(median "${full_cpus[@]}")"
  full_peer="$(median "${full_peers[@]}")"; full_peer_cpu="$(median "${full_peer_cpus[@]}")"
  cold="$(median "${colds[@]}")"; peer="$(median "${peers[@]}")"
  echo "cold, median of $ROUNDS fresh clones: log --segment TR/4.8 $cold ms; git log --format=%H%n%B main $peer ms"
  echo "phases of one more cold build (ROLLOUT_LOG_PROFILE=1):"
  rm -rf "$clone/rollout/log-index"
  ROLLOUT_LOG_PROFILE=1 "$BIN" --repo "$clone" log --segment TR/4.8 2>&1 >/dev/null | sed 's/^/  /'
  echo "index size at $CHANGES changes: $(du -sh "$clone/rollout/log-index" | cut -f1)"

  "$BIN" --repo "$small" log --segment TR/4.8 >/dev/null
  small_warm="$(median_ms "$BIN" --repo "$small" log --segment TR/4.8)"
  large_warm="$(median_ms "$BIN" --repo "$clone" log --segment TR/4.8)"
  small_locale="$(median_ms "$BIN" --repo "$small" log --locale tr-TR)"
  large_locale="$(median_ms "$BIN" --repo "$clone" log --locale tr-TR)"
  echo "warm (median of $RUNS): log --segment TR/4.8 $small_warm ms at $SMALL, $large_warm ms at $CHANGES; log --locale tr-TR $small_locale ms and $large_locale ms"
  echo "matches shown (default limit 50): $("$BIN" --repo "$clone" log --segment TR/4.8 --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["changes"]))')"

  python3 - "$cold" "$peer" "$small_warm" "$large_warm" "$CHANGES" "$full" "$full_peer" "$full_cpu" "$full_peer_cpu" <<'PY'
import sys
cold, peer, small_warm, large_warm = map(float, sys.argv[1:5])
full = int(sys.argv[5]) >= 100_000
whole, whole_peer, whole_cpu, whole_peer_cpu = map(float, sys.argv[6:10])
print(f"INFO log-cold-clone-all CPU: {whole_cpu / whole_peer_cpu:.2f}x git log's CPU")
failed = False
goals = [("log-cold-clone", cold / peer, 10), ("log-warm-growth", large_warm / small_warm, 3),
         ("log-cold-clone-all --segment TR/4.8 --limit 0", whole / whole_peer, 5)]
for name, ratio, limit in goals:
    ok = ratio <= limit
    failed |= not ok
    print(f"GOAL {name}: {ratio:.2f}x (goal <= {limit}x): {'pass' if ok else 'FAIL'}")
sys.exit(1 if failed and full else 0)
PY
} | tee "$OUT"
exit "${PIPESTATUS[0]}"
