#!/usr/bin/env bash
# make bench: every benchmark under bench/ at a small size, in a few minutes, then every goal's line.
# Each bench script ends with `GOAL <name>: <ratio>x (goal <= <limit>x): pass|FAIL` lines; this
# collects them (and says which bench printed none) into a summary at the end. At these sizes the
# ratios are indicative only: a goal that fails here does not fail `make bench`; a bench that breaks
# (exits with anything but 0 or 1, or runs past BENCH_TIMEOUT) does. The full-size figures, with
# the commands that made them, are in docs/performance.md.
#
# Usage: bench/all.sh [ROLLOUT_BINARY]     BENCH_TIMEOUT=900 (seconds a bench may take)
#   ROLLOUT_BINARY  default: the release binary make install ships (scripts/dist-build.sh), built once
#                   and copied aside, so a bench that builds something else cannot swap it mid-run.
#                   (bench/client-reads builds its own program with plain `swift build -c release`,
#                   whose flags differ from the shipped build's: the first run compiles twice.)
# Sizes (each script's own knobs): startup RUNS=100; ingest SIZE_MB=50 RUNS=1, in its three modes
# (days, ORDER=shuffled, GZIP=1); log CHANGES=2000 SMALL=200 ROUNDS=1 RUNS=3; pack-add VERSIONS=50
# KEYS=500; publish LOCALES=20 VERSIONS=5 RUNS=1; remote RUNS=3; client-reads PHASE_SECONDS=2;
# resolve 100,000 devices x 3 rounds.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
TIMEOUT="${BENCH_TIMEOUT:-900}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-all.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/all-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"

BIN="${1:-}"
if [ -z "$BIN" ]; then BIN="$("$ROOT/scripts/dist-build.sh")" || exit 2; fi
cp "$BIN" "$WORK/rollout" || exit 2
BIN="$WORK/rollout"

SUMMARY="$WORK/summary"
: >"$SUMMARY"
broken=0
started=$SECONDS

bench() { # name env... -- command...
  local name="$1"; shift
  local env=()
  while [ "$1" != "--" ]; do env+=("$1"); shift; done
  shift
  echo
  echo "=== bench $name: ${env[*]} $*"
  local begin=$SECONDS status
  (cd "$ROOT" && env "${env[@]}" timeout "$TIMEOUT" "$@") 2>&1 | tee "$OUT/$name.txt"
  status=${PIPESTATUS[0]}
  local goals; goals="$(grep -E '^GOAL ' "$OUT/$name.txt")"
  if [ -n "$goals" ]; then
    sed "s/^/$(printf '%-22s' "$name")/" <<<"$goals" >>"$SUMMARY"
  else
    printf '%-22s(no GOAL line)\n' "$name" >>"$SUMMARY"
  fi
  case "$status" in
    0 | 1) ;;
    124) broken=1; printf '%-22sBROKEN: ran past %s s\n' "$name" "$TIMEOUT" >>"$SUMMARY" ;;
    *) broken=1; printf '%-22sBROKEN: exit %s (see %s)\n' "$name" "$status" "$OUT/$name.txt" >>"$SUMMARY" ;;
  esac
  echo "=== bench $name: exit $status after $((SECONDS - begin)) s"
}

bench startup RUNS=100 -- bench/startup/run.sh "$BIN"
bench ingest SIZE_MB=50 RUNS=1 -- bench/ingest/run.sh "$BIN"
bench ingest-shuffled SIZE_MB=50 RUNS=1 ORDER=shuffled -- bench/ingest/run.sh "$BIN"
bench ingest-gzip SIZE_MB=50 RUNS=1 GZIP=1 -- bench/ingest/run.sh "$BIN"
bench log CHANGES=2000 SMALL=200 ROUNDS=1 RUNS=3 -- bench/log/run.sh "$BIN"
bench pack-add VERSIONS=50 KEYS=500 -- bench/pack-add/run.sh "$BIN"
bench publish LOCALES=20 VERSIONS=5 RUNS=1 -- bench/publish/run.sh "$BIN"
bench remote RUNS=3 -- bench/remote/run.sh "$BIN"
bench client-reads PHASE_SECONDS=2 -- bench/client-reads/run.sh "$BIN"
RESOLVE="$("$ROOT/scripts/dist-build.sh" rollout-bench-resolve)" || exit 2
bench resolve -- "$RESOLVE" 100000 3

{
  echo
  echo "=== bench/all.sh summary: small sizes, $((SECONDS - started)) s in all (outputs in ${OUT#"$ROOT"/})"
  echo "    ratios at these sizes are indicative; the full-size figures are in docs/performance.md"
  cat "$SUMMARY"
} | tee "$OUT/summary.txt"
exit $((broken ? 2 : 0))
