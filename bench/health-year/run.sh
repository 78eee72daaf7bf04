#!/usr/bin/env bash
# bench/health-year: `rollout health LOCALE`, `rollout guard` and `rollout report LOCALE` on a year of
# stored metrics (issue 36, goal 2).
#
# The repository: LOCALES locales (8), each with a pack per 30-day release cycle, promoted by real
# `rollout promote` commands (the first pack to 100%, then each cycle's candidate staged at 10% on the
# cycle's first day and completed to 100% on its last; the newest cycle's candidate stays staged, on
# a ramp), and DAYS (365) daily ingests of an aggregated export (bench/health-year/generate.py through
# git fast-import): per day, locale and kind (crash, fallback) one rollup of 2 packs x 200 regions x
# 40 app versions (16,000 entries), in the compact form, with the provenance records ingest writes.
#
# Peers (the floor), run in the same invocation, interleaved round by round with rollout:
#   health/report LOCALE: `git cat-file --batch` of every rollup blob of LOCALE (both kinds);
#   guard:                the same for every locale guard looks at (every locale has a staged pack).
# Wall time is the median of RUNS (time.perf_counter around the process); CPU time (user + sys) from
# the same runs. The rounds run after one cold run of health and guard (printed apart): the first
# run learns which rollups name which packs (the rollup-packs cache, docs/performance.md). The output ends with `GOAL health-year-...: N s (goal <= 2 s)` lines: absolute
# seconds, as the issue asks, with the ratio to the floor beside them; report is INFO.
#
# Usage: bench/health-year/run.sh [ROLLOUT_BINARY]   DAYS=365 LOCALES=8 RUNS=3 KEEP=0 FASTIMPORT_PACK=0
#   BEFORE=OTHER_ROLLOUT_BINARY  also times that binary (the one before a change) in every round,
#                                right after ROLLOUT_BINARY, checks that it prints the same health and
#                                guard, and prints INFO lines of before and after side by side
#   REUSE=DIR                    times the repository a KEEP=1 run kept (DIR/repo) instead of building
#                                one; DAYS and LOCALES must be the ones it was built with
# Small (under a minute once rollout is built): DAYS=30 LOCALES=2 RUNS=1 bench/health-year/run.sh
# Exits 1 if a goal fails at the full size (DAYS >= 365 and LOCALES >= 8); smaller runs only report.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
DAYS="${DAYS:-365}"
LOCALES="${LOCALES:-8}"
RUNS="${RUNS:-3}"
export DAYS LOCALES
if [ -n "${REUSE:-}" ]; then
  [ -d "$REUSE/repo/.rollout" ] || { echo "$0: REUSE=$REUSE holds no repo/.rollout (keep one with KEEP=1)" >&2; exit 2; }
  WORK="$(cd "$REUSE" && pwd)"
else
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-health-year.XXXXXX")"
  # KEEP=1 keeps the repository (its path is printed), for profiling or REUSE.
  [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
fi
export ROLLOUT_ACTOR="bench <bench@example.invalid>"
unset ROLLOUT_REPO ROLLOUT_NOW
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/health-year-$(date -u +%Y%m%dT%H%M%SZ).txt"
END=2026-11-30
CYCLE=30
ALL_LOCALES=(tr-TR en-US de-DE fr-FR es-ES ja-JP pt-BR vi-VN)
USED=("${ALL_LOCALES[@]:0:$LOCALES}")
REPO="$WORK/repo"
GIT=(git --git-dir "$REPO/.rollout")

day_date() { date -u -d "$END - $((DAYS - 1 - $1)) days" +%Y-%m-%d; } # day index -> date

# One pack JSON per locale and content version (no checksum: it is optional).
write_packs() {
  local cycles=$(((DAYS - 1) / CYCLE + 1)) locale v
  mkdir -p "$WORK/packs"
  for locale in "${USED[@]}"; do
    for v in $(seq 1 $((cycles + 1))); do
      printf '{"contentVersion":%d,"locale":"%s","minAppVersion":"4.0.0","schemaVersion":2,"strings":{"home.title":"Home %d","cart.items":"%%d items"}}\n' \
        "$v" "$locale" "$v" >"$WORK/packs/$locale@$v.json"
    done
  done
  echo "$cycles"
}

# The plan history, as a release manager's promotes at the dates the metrics follow.
promote_history() { # cycles
  local cycles=$1 locale c v first last
  for locale in "${USED[@]}"; do
    ROLLOUT_NOW="$(day_date 0)T00:00:00Z" "$BIN" promote "$locale@1" --to 100% >/dev/null
    for c in $(seq 0 $(($1 - 1))); do
      v=$((c + 2)); first=$((c * CYCLE)); last=$(((c + 1) * CYCLE - 1))
      if ((c < cycles - 1)); then
        ROLLOUT_NOW="$(day_date "$first")T00:05:00Z" "$BIN" promote "$locale@$v" --to 10% --force --reason bench >/dev/null
        ROLLOUT_NOW="$(day_date "$last")T23:55:00Z" "$BIN" promote "$locale@$v" --to 100% --force --reason bench >/dev/null
      else
        ROLLOUT_NOW="$(day_date "$first")T00:05:00Z" "$BIN" promote "$locale@$v" --to 10% --force --reason bench >/dev/null
      fi
    done
  done
}

# Seconds (wall) and CPU seconds of one run, output discarded: "wall cpu".
timed() {
  python3 - "$@" <<'PY'
import os, subprocess, sys, time
t = time.perf_counter(); c0 = os.times()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
c1 = os.times(); w = time.perf_counter() - t
if r.returncode not in (0, 1):
    sys.stderr.write(r.stderr.decode()); sys.exit(f"{sys.argv[1:]} exited {r.returncode}")
print(f"{w:.3f} {(c1.children_user - c0.children_user) + (c1.children_system - c0.children_system):.3f}")
PY
}

# The floor: every rollup blob of the locales given, through one git cat-file --batch.
cat_rollups() { # locale...
  local locale list="$WORK/blobs-$#.txt"
  for locale in "$@"; do
    "${GIT[@]}" ls-tree -r --format='%(objectname)' main "metrics/crash/$locale" "metrics/fallback/$locale"
  done >"$list"
  echo "${GIT[*]} cat-file --batch <$list"
}

{
  echo "bench/health-year  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$BIN" --version)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  t0=$SECONDS
  cycles=$(((DAYS - 1) / CYCLE + 1))
  if [ -z "${REUSE:-}" ]; then
    mkdir -p "$REPO" && cd "$REPO"
    ROLLOUT_NOW="$(day_date 0)T00:00:00Z" "$BIN" init >/dev/null
    write_packs >/dev/null
    ROLLOUT_NOW="$(day_date 0)T00:00:00Z" "$BIN" pack add "$WORK"/packs/*.json >/dev/null
    promote_history "$cycles"
    parent="$("${GIT[@]}" rev-parse main)"
    python3 "$HERE/generate.py" "$parent" "$END" | "${GIT[@]}" fast-import --quiet
    # The newest cycle's candidate on a ramp (guard follows it), promoted after the metrics as a
    # release manager would.
    ROLLOUT_NOW="${END}T09:00:00Z" "$BIN" promote "${USED[0]}@$((cycles + 1))" --ramp 10,25,50,100 --force --reason bench >/dev/null || true
    # The rollups stored as rollout stores them: fast-import makes each blob a delta of one written
    # before it, so a recent day is at the end of a chain of up to 50 deltas through older days, a
    # form rollout never writes (each ingest packs its rollups whole, and so does gc; docs/pack-format.md,
    # "Packing"). FASTIMPORT_PACK=1 keeps fast-import's pack, the slowest form to read recent days from.
    if [ "${FASTIMPORT_PACK:-0}" != 1 ]; then
      tg=$SECONDS
      "$BIN" gc >/dev/null
      echo "rollout gc: $((SECONDS - tg)) s"
    fi
    built="built in $((SECONDS - t0)) s"
  else
    cd "$REPO"
    # The caches of earlier runs go, so that the first runs below are the first again.
    rm -rf "$REPO/.rollout/rollout/rollup-packs" "$REPO/.rollout/rollout/rollup-totals" "$REPO/.rollout/rollout/log-index"
    built="reused from $REPO"
  fi
  echo "history: $DAYS days x ${#USED[@]} locales x 2 kinds ($("${GIT[@]}" ls-tree -r --name-only main metrics/crash metrics/fallback | wc -l) rollups), $cycles release cycles of $CYCLE days, $("${GIT[@]}" rev-list --count main) commits, $built"
  [ "${KEEP:-0}" = 1 ] && echo "repository: $REPO"
  echo "rollup bytes of ${USED[0]}: $(bash -c "$(cat_rollups "${USED[0]}")" | wc -c); of every locale: $(bash -c "$(cat_rollups "${USED[@]}")" | wc -c)"
  "${GIT[@]}" count-objects -vH | grep size-pack
  export ROLLOUT_NOW="${END}T12:00:00Z"
  health_floor="$(cat_rollups "${USED[0]}")"
  guard_floor="$(cat_rollups "${USED[@]}")"
  # The first run of each learns which rollups name which packs (rollout/rollup-packs, a cache like
  # the log index) and reads every rollup blob, as the floor does: timed once, apart (INFO).
  read -r cold_health cold_health_cpu < <(timed "$BIN" health "${USED[0]}")
  read -r cold_guard cold_guard_cpu < <(timed "$BIN" guard)
  echo "cold (first runs, every rollup read): health ${cold_health} s wall (${cold_health_cpu} s CPU), guard ${cold_guard} s wall (${cold_guard_cpu} s CPU)"
  declare -A wall cpu
  names=(health health-floor guard guard-floor report)
  if [ -n "$BEFORE" ]; then
    # The same answers from both binaries, or the comparison means nothing.
    for args in "health ${USED[0]}" guard; do
      # shellcheck disable=SC2086
      cmp -s <("$BIN" $args 2>&1) <("$BEFORE" $args 2>&1) || { echo "BEFORE prints another $args" >&2; exit 1; }
    done
    echo "BEFORE ($("$BEFORE" --version)) prints the same health ${USED[0]} and guard"
    names=(health health-before health-floor guard guard-before guard-floor report report-before)
  fi
  for round in $(seq 1 "$RUNS"); do
    for name in "${names[@]}"; do
      case $name in
        health) read -r w c < <(timed "$BIN" health "${USED[0]}") ;;
        health-floor) read -r w c < <(timed bash -c "$health_floor") ;;
        guard) read -r w c < <(timed "$BIN" guard) ;;
        guard-floor) read -r w c < <(timed bash -c "$guard_floor") ;;
        report) read -r w c < <(timed "$BIN" report "${USED[0]}" --out "$WORK/report.html") ;;
        health-before) read -r w c < <(timed "$BEFORE" health "${USED[0]}") ;;
        guard-before) read -r w c < <(timed "$BEFORE" guard) ;;
        report-before) read -r w c < <(timed "$BEFORE" report "${USED[0]}" --out "$WORK/report.html") ;;
      esac
      wall[$name]+="$w "; cpu[$name]+="$c "
    done
    echo "round $round: $(for n in "${names[@]}"; do printf '%s %s s; ' "$n" "$(echo "${wall[$n]}" | awk '{print $NF}')"; done)"
  done
  echo "health ${USED[0]}:"; "$BIN" health "${USED[0]}" | head -5 | sed 's/^/  /' || true
  echo "guard:"; "$BIN" guard | head -12 | sed 's/^/  /' || true
  args=()
  for n in "${names[@]}"; do args+=("$n" "${wall[$n]}" "${cpu[$n]}"); done
  python3 - "$DAYS" "$LOCALES" "${args[@]}" <<'PY'
import statistics, sys
full = int(sys.argv[1]) >= 365 and int(sys.argv[2]) >= 8
a = sys.argv[3:]
m = {a[i]: (statistics.median(map(float, a[i + 1].split())), statistics.median(map(float, a[i + 2].split())))
     for i in range(0, len(a), 3)}
for n, (w, c) in m.items():
    print(f"median {n}: {w:.2f} s wall, {c:.2f} s CPU")
failed = False
for name, floor in [("health", "health-floor"), ("guard", "guard-floor")]:
    w, c = m[name]; fw, fc = m[floor]
    ok = w <= 2.0
    failed |= not ok
    print(f"GOAL health-year-{name}: {w:.2f} s (goal <= 2 s): {'pass' if ok else 'FAIL'}  "
          f"[{w / fw:.2f}x the floor's wall, {c / max(fc, 0.001):.2f}x its CPU]")
w, c = m["report"]; fw, fc = m["health-floor"]
print(f"INFO health-year-report: {w:.2f} s [{w / fw:.2f}x the floor's wall, {c / max(fc, 0.001):.2f}x its CPU]")
for name in ("health", "guard", "report"):
    if name + "-before" in m:
        (w, c), (bw, bc) = m[name], m[name + "-before"]
        print(f"INFO health-year-{name} before: {bw:.2f} s wall, {bc:.2f} s CPU; after/before {w / bw:.2f}x wall, "
              f"{c / max(bc, 0.001):.2f}x CPU")
sys.exit(1 if failed and full else 0)
PY
} | tee "$OUT"
exit "${PIPESTATUS[0]}"
