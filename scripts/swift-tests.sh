#!/usr/bin/env bash
# The Swift tests of `make test`, JOBS test processes at a time (docs/architecture.md, "Test suite").
# `swift test --parallel` starts one process per test (905 of them, about 0.15 s each before a test
# runs) and prints no closing count; this runs the built test bundle once per class for the slow
# classes (Tests/class-seconds.tsv, slowest first, so the longest start first) and once per batch of
# BATCH classes for the rest, JOBS at a time, each class's tests in order in one process as
# `swift test` runs them. Every process's output is printed whole when it ends (one
# process's lines never mix with another's) and kept in .build/swift-tests/; the last line adds
# them up ("Executed N tests, F failed", F counting tests, not failed assertions), which the
# Makefile reads.
#
# Usage: scripts/swift-tests.sh [CLASS...]    (default: every class of the bundle)
#        scripts/swift-tests.sh --seconds     every class's seconds in the last run, slowest first
#          (the classes over 5 s are what Tests/class-seconds.tsv lists)
#   JOBS   processes at once (default: the number of cores); JOBS=1 runs the classes one by one
#   BATCH  fast classes per process (default 8)
#   SWIFT_TESTS_OUT  where the logs go, emptied first (default .build/swift-tests; scripts/coverage.sh
#          keeps its own)
# Exit status: 0 when every process passed, 1 otherwise (a process that crashed counts its class's
# tests as run and one failure, and is named with its log).
set -uo pipefail
# The whole script is read before it runs (the braces, closed by the last line): a script edited
# while a long run uses it would otherwise go on from the wrong byte.
{
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${SWIFT_TESTS_OUT:-$ROOT/.build/swift-tests}"
if [ "${1:-}" = --seconds ]; then
  cat "$OUT"/*.log 2>/dev/null | awk '
    /^Test Suite .* (passed|failed) at/ { name = $3; gsub("\047", "", name); next }
    name != "" && /Executed [0-9]+ tests?/ { match($0, /in [0-9.]+ /); printf "%s\t%.1f\n", name, substr($0, RSTART + 3, RLENGTH - 4) }
    { name = "" }' | grep -v -e '^Selected	' -e '\.xctest	' -e '^All tests	' | sort -t$'\t' -k2,2nr
  exit 0
fi
JOBS="${JOBS:-$(nproc)}"
BATCH="${BATCH:-8}"
case "$JOBS$BATCH" in (*[!0-9]*) echo "usage: JOBS=N BATCH=N scripts/swift-tests.sh [CLASS...]" >&2; exit 64;; esac
# SWIFT_BUILD_FLAGS comes from the Makefile; unquoted on purpose (several flags).
# shellcheck disable=SC2086
swift build --build-tests ${SWIFT_BUILD_FLAGS:-} || exit 1
# shellcheck disable=SC2086
BIN="$(swift build ${SWIFT_BUILD_FLAGS:-} --show-bin-path)"
BUNDLE="$(find "$BIN" -maxdepth 1 -name '*PackageTests.xctest' | head -1)"
[ -n "$BUNDLE" ] || { echo "swift-tests: no test bundle in $BIN" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"

# Module.Class of every test, and how many tests each has.
"$BUNDLE" --list-tests | sed -nE 's#^([A-Za-z0-9_]+\.[A-Za-z0-9_]+)/.*#\1#p' | sort | uniq -c >"$OUT/classes" || exit 1
if [ $# -gt 0 ]; then
  printf '%s\n' "$@" | awk 'NR == FNR { want[$1] = 1; next } { split($2, n, "."); if (want[$2] || want[n[2]]) print }' \
    - "$OUT/classes" >"$OUT/picked"
  mv "$OUT/picked" "$OUT/classes"
  [ -s "$OUT/classes" ] || { echo "swift-tests: no test class is named $*" >&2; exit 1; }
fi

# One line per process: the slow classes alone, slowest first, then the others BATCH at a time.
awk -v batch="$BATCH" '
  NR == FNR { if ($1 !~ /^#/) seconds[$1] = $2; next }
  { split($2, n, "."); s = seconds[n[2]]; if (s > 0) print s, $2; else rest[++count] = $2 }
  END { for (i = 1; i <= count; i += batch) { line = rest[i]; for (j = i + 1; j < i + batch && j <= count; j++) line = line "," rest[j]; print 0, line } }
' Tests/class-seconds.tsv "$OUT/classes" | sort -s -k1,1nr | cut -d' ' -f2 >"$OUT/batches"

# The CPU seconds the script's finished children used so far (`times` in this shell: a subshell
# starts its count at zero).
children_cpu() { awk 'END { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%d", t }' "$OUT/times"; }
times >"$OUT/times"
cpu_before=$(children_cpu)
started=$(date +%s)
# Each process: its log kept, printed whole under a lock, its exit status beside it.
export BUNDLE OUT
run_batch() {
  local log
  log="$OUT/$(printf '%s' "$1" | cksum | cut -d' ' -f1).log"
  "$BUNDLE" "$1" >"$log" 2>&1
  echo "$?" >"$log.status"
  printf '%s\n' "$1" >"$log.classes"
  flock "$OUT/lock" cat "$log"
}
export -f run_batch
xargs -a "$OUT/batches" -d '\n' -P "$JOBS" -I{} bash -c 'run_batch "$1"' _ {}

# The closing line: every process's own closing line ("Selected tests") added up, counting tests
# that failed (XCTest's own "with N failures" counts failed assertions: one test can fail ten).
executed=0 failures=0 crashed=0
for status_file in "$OUT"/*.log.status; do
  log="${status_file%.status}"
  summary=$(grep -A1 "^Test Suite 'Selected tests' \(passed\|failed\)" "$log" | sed -nE 's/^[[:space:]]*Executed ([0-9]+) tests?, with ([0-9]+) failures?.*/\1/p' | tail -1)
  if [ -n "$summary" ]; then
    failed=$(grep -c "^Test Case '.*' failed (" "$log")
    executed=$((executed + summary)) failures=$((failures + failed))
    [ "$(cat "$status_file")" -eq 0 ] || [ "$failed" -gt 0 ] || failures=$((failures + 1))
  else
    tests=$(tr ',' '\n' <"$log.classes" | awk 'NR == FNR { want[$1] = 1; next } want[$2] { sum += $1 } END { print sum + 0 }' - "$OUT/classes")
    executed=$((executed + tests)) failures=$((failures + 1)) crashed=$((crashed + 1))
    echo "swift-tests: the process for $(cat "$log.classes") ended without its closing line (exit $(cat "$status_file")): $log" >&2
  fi
done
# CPU seconds of every test process and what it started (user and system), beside the wall time: on a
# loaded machine the wall time says little, the CPU seconds do not change with the load.
times >"$OUT/times"
cpu=$(($(children_cpu) - cpu_before))
echo "swift-tests: $(wc -l <"$OUT/batches") processes, $JOBS at a time, $(($(date +%s) - started)) s wall, $cpu s CPU; logs in $OUT"
printf '\t Executed %d tests, %d failed (%d crashed)\n' "$executed" "$failures" "$crashed"
[ "$failures" -eq 0 ]
exit
}
