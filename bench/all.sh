#!/usr/bin/env bash
# make bench: every benchmark under bench/ at a small size, in a few minutes, then every goal's line.
# Each bench script ends with one `GOAL <name>: <ratio>x (goal <= <limit>x): pass|FAIL` line per goal
# docs/performance.md states, or `INFO <name>: <ratio>x` lines where it states a measured figure but
# no goal; this collects them (and says which bench printed none) into a summary at the end. Every
# ratio is against a peer measured in the same run. At these sizes the ratios are indicative only:
# a goal that fails here does not fail `make bench`. A bench that breaks does: one that exits with
# anything but 0 or 1, runs past BENCH_TIMEOUT, or exits 1 with no failing GOAL line (a correctness
# check failed, not a goal). The full-size figures, with the commands that made them, are in
# docs/performance.md.
#
# Usage: bench/all.sh [ROLLOUT_BINARY]     BENCH_TIMEOUT=900 (seconds a bench may take)
#   ROLLOUT_BINARY  default: the release binary make install ships (scripts/dist-build.sh), built once
#                   and copied aside, so a bench that builds something else cannot swap it mid-run.
#                   The resolve and client-reads programs are built by scripts/dist-build.sh too, with
#                   the same flags, so nothing is compiled twice.
# Sizes (each script's own knobs): startup RUNS=100; ingest SHAPE=repeated SIZE_MB=50 RUNS=1 APPS=2, in
# its three modes (days, ORDER=shuffled, GZIP=1), SHAPE=aggregated DAYS=2 RUNS=1 (256,000 rows, one a
# group) and SHAPE=random SIZE_MB=20 RUNS=1 (about 2.7 rows a group); ingest-outcome DAYS=1 RUNS=1
# (256,000 outcome rows, two metrics, against the crash ingest of the same 128,000 groups); log CHANGES=2000 SMALL=200
# ROUNDS=1 RUNS=3; pack-add VERSIONS=50 KEYS=500; publish LOCALES=20 VERSIONS=5 RUNS=1; remote RUNS=3;
# status LOCALES=40 DAYS=14 RUNS=3; health-year DAYS=40 LOCALES=2 RUNS=1; client-reads PHASE_SECONDS=2;
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
  local begin=$SECONDS status label
  (cd "$ROOT" && env "${env[@]}" timeout "$TIMEOUT" "$@") 2>&1 | tee "$OUT/$name.txt"
  status=${PIPESTATUS[0]}
  label="$(printf '%-22s' "$name")"
  local lines; lines="$(grep -E '^(GOAL|INFO) ' "$OUT/$name.txt")"
  if [ -n "$lines" ]; then
    while IFS= read -r line; do echo "$label$line"; done <<<"$lines" >>"$SUMMARY"
  else
    echo "$label(no GOAL or INFO line)" >>"$SUMMARY"
  fi
  case "$status" in
    0) ;;
    1) grep -qE '^GOAL .*: FAIL$' <<<"$lines" ||
         { broken=1; echo "${label}BROKEN: exit 1 with no failing GOAL line: a check failed (see $OUT/$name.txt)" >>"$SUMMARY"; } ;;
    124) broken=1; echo "${label}BROKEN: ran past $TIMEOUT s" >>"$SUMMARY" ;;
    *) broken=1; echo "${label}BROKEN: exit $status (see $OUT/$name.txt)" >>"$SUMMARY" ;;
  esac
  echo "=== bench $name: exit $status after $((SECONDS - begin)) s"
}

bench startup RUNS=100 -- bench/startup/run.sh "$BIN"
# APPS=2: 18,000 keys, so the 50 MB file has about as many rows per key as the full-size one (a 50 MB
# file with the full size's 360,000 keys is mostly the commit of its rollups, not reading).
bench ingest SHAPE=repeated SIZE_MB=50 RUNS=1 APPS=2 -- bench/ingest/run.sh "$BIN"
bench ingest-shuffled SHAPE=repeated SIZE_MB=50 RUNS=1 APPS=2 ORDER=shuffled -- bench/ingest/run.sh "$BIN"
bench ingest-gzip SHAPE=repeated SIZE_MB=50 RUNS=1 APPS=2 GZIP=1 -- bench/ingest/run.sh "$BIN"
# Issue 36's shapes, few rows a group, where the cost per group counts: an analytics job's grouped
# export (one row a group; two days, so that the half file is one) and rows drawn at random.
bench ingest-aggregated SHAPE=aggregated DAYS=2 RUNS=1 -- bench/ingest/run.sh "$BIN"
bench ingest-random SHAPE=random SIZE_MB=20 RUNS=1 -- bench/ingest/run.sh "$BIN"
# Issue 37's outcome CSV, two metrics a group, against the crash ingest of the same groups: one day.
bench ingest-outcome DAYS=1 RUNS=1 -- bench/ingest-outcome/run.sh "$BIN"
bench log CHANGES=2000 SMALL=200 ROUNDS=1 RUNS=3 -- bench/log/run.sh "$BIN"
# 50 versions stay under automatic packing's threshold, so the storage ratio here is the loose
# objects' (about 10x); 1,000 versions pack (docs/performance.md, "Storage").
bench pack-add VERSIONS=50 KEYS=500 -- bench/pack-add/run.sh "$BIN"
bench publish LOCALES=20 VERSIONS=5 RUNS=1 -- bench/publish/run.sh "$BIN"
bench remote RUNS=3 -- bench/remote/run.sh "$BIN"
bench status LOCALES=40 DAYS=14 RUNS=3 -- bench/status/run.sh "$BIN"
bench health-year DAYS=40 LOCALES=2 RUNS=1 -- bench/health-year/run.sh "$BIN"
bench client-reads PHASE_SECONDS=2 -- bench/client-reads/run.sh "$BIN"
bench client-reads-jvm PHASE_SECONDS=2 -- bench/client-reads-jvm/run.sh "$BIN"
RESOLVE="$("$ROOT/scripts/dist-build.sh" rollout-bench-resolve)" || exit 2
bench resolve -- "$RESOLVE" 100000 3

{
  echo
  echo "=== bench/all.sh summary: small sizes, $((SECONDS - started)) s in all (outputs in ${OUT#"$ROOT"/})"
  echo "    ratios at these sizes are indicative; the full-size figures are in docs/performance.md"
  cat "$SUMMARY"
} | tee "$OUT/summary.txt"
exit $((broken ? 2 : 0))
