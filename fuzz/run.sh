#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with swiftc (-sanitize=fuzzer,address) and runs each one for
# FUZZ_SECONDS, one after the other. docs/reliability.md, "Fuzzing", describes the targets.
#
#   fuzz/run.sh                  build, then run pack, csv, versions and manifest
#   fuzz/run.sh csv versions     only these targets
#   FUZZ_SECONDS=60 fuzz/run.sh  one minute each (default 600)
#   FUZZ_BUILD=0 fuzz/run.sh     reuse the binaries already built
#   FUZZ_RUN=0 fuzz/run.sh       build only
#   FUZZ_SOURCES=DIR fuzz/run.sh build the product sources in DIR/Sources (for example an export of
#                                one commit made with git archive) instead of this checkout's
#
# Everything is written under FUZZ_DIR (default /tmp/rollout-fuzz), never under .build: the modules
# and binaries, the corpus each run grows (seeded from fuzz/corpus/<target> and, as regression
# inputs, fuzz/crashes/<target>; both are only read), crash artifacts (FUZZ_DIR/crashes/<target>/),
# each run's log, and summary.tsv with one line per run.
# Exits non-zero if a target failed to build or found a crash.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=${FUZZ_SOURCES:-$ROOT}
OUT=${FUZZ_DIR:-/tmp/rollout-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-600}
SWIFTC=${SWIFTC:-swiftc}
ALL_TARGETS=(pack csv versions manifest)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL_TARGETS[@]}")

# Longest input libFuzzer generates, per target: packs and manifests are small JSON files (the
# example packs are about 1 KiB), CSV needs a few records, the version parsers take one token.
max_len() {
  case "$1" in
    pack) echo 8192 ;;
    csv) echo 4096 ;;
    versions) echo 128 ;;
    manifest) echo 8192 ;;
    *) echo "fuzz/run.sh: unknown target $1 (targets: ${ALL_TARGETS[*]})" >&2; return 1 ;;
  esac
}
for t in "${TARGETS[@]}"; do max_len "$t" >/dev/null || exit 64; done

FLAGS=(-O -swift-version 6 -sanitize=fuzzer,address -parse-as-library)
MODULES="$OUT/modules"
BIN="$OUT/bin"

# swiftc, without the linker's warnings about ASan's local symbols (noise); fails if swiftc does.
compile() {
  "$SWIFTC" "${FLAGS[@]}" "$@" 2>&1 | grep -v 'ld.gold: warning: Cannot export local symbol'
  return "${PIPESTATUS[0]}"
}

build() {
  mkdir -p "$MODULES" "$BIN"
  cd "$SRC" || return 1
  echo "== building into $OUT ($("$SWIFTC" --version 2>&1 | head -1))"
  compile -wmo -module-name RolloutCrypto -I Sources/CCrypto \
    -emit-module -emit-module-path "$MODULES/RolloutCrypto.swiftmodule" \
    -c Sources/RolloutCrypto/*.swift -o "$MODULES/RolloutCrypto.o" || return 1
  compile -wmo -module-name RolloutModel -I "$MODULES" -I Sources/CCrypto \
    -emit-module -emit-module-path "$MODULES/RolloutModel.swiftmodule" \
    -c $(find Sources/RolloutModel -name '*.swift' | sort) -o "$MODULES/RolloutModel.o" || return 1
  # Only the CSV reader of RolloutIngest and the gzip reader it reads through: the rest of that
  # module needs RolloutStore and libgit2.
  compile -wmo -module-name RolloutIngest -I "$MODULES" -I Sources/CCrypto -I Sources/CZlib \
    -emit-module -emit-module-path "$MODULES/RolloutIngest.swiftmodule" \
    -c Sources/RolloutIngest/CSVReader.swift Sources/RolloutIngest/GzipReader.swift \
    -o "$MODULES/RolloutIngest.o" || return 1
  local t objects
  for t in "${TARGETS[@]}"; do
    objects=("$MODULES/RolloutCrypto.o" "$MODULES/RolloutModel.o")
    [ "$t" = csv ] && objects+=("$MODULES/RolloutIngest.o" -lz)
    compile -module-name "fuzz_$t" -I "$MODULES" -I Sources/CCrypto -I Sources/CZlib \
      "$ROOT/fuzz/Support.swift" "$ROOT/fuzz/$t.swift" "${objects[@]}" -lcrypto -o "$BIN/$t" || return 1
    echo "built $BIN/$t"
  done
}

if [ "${FUZZ_BUILD:-1}" != 0 ]; then
  build || { echo "fuzz/run.sh: build failed" >&2; exit 1; }
fi
[ "${FUZZ_RUN:-1}" = 0 ] && exit 0

# The Swift runtime's own crash handler would race libFuzzer's; hashing is made deterministic so a
# saved crash replays the same way (dictionary order reaches error messages and sort ties).
export SWIFT_BACKTRACE=enable=no
export SWIFT_DETERMINISTIC_HASHING=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:handle_abort=1}

# The commit the fuzzed sources come from, marked when the checkout's fuzzed sources differ from it.
fuzzed=(Sources/RolloutModel Sources/RolloutCrypto Sources/CCrypto Sources/RolloutIngest/CSVReader.swift
  Sources/RolloutIngest/GzipReader.swift Sources/CZlib)
commit=${FUZZ_COMMIT:-$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)}
if [ -z "${FUZZ_COMMIT:-}" ] && [ -n "$(git -C "$SRC" status --porcelain -- "${fuzzed[@]}" 2>/dev/null)" ]; then commit="$commit+modified"; fi
status=0
for t in "${TARGETS[@]}"; do
  corpus="$OUT/corpus/$t"
  crashes="$OUT/crashes/$t"
  log="$OUT/logs/$t-$(date -u +%Y%m%dT%H%M%SZ).log"
  mkdir -p "$corpus" "$crashes" "$OUT/logs"
  dict=()
  [ -f "$ROOT/fuzz/dict/$t.dict" ] && dict=(-dict="$ROOT/fuzz/dict/$t.dict")
  echo "== $t: ${SECONDS_EACH}s, -max_len=$(max_len "$t"), log $log"
  start=$(date +%s)
  # The first corpus directory receives what the run finds; the checked-in seeds are only read.
  # Inputs that once broke an invariant (fuzz/crashes/<target>) run first with the seeds.
  seeds=("$ROOT/fuzz/corpus/$t")
  [ -d "$ROOT/fuzz/crashes/$t" ] && seeds+=("$ROOT/fuzz/crashes/$t")
  nice -n 10 "$BIN/$t" "$corpus" "${seeds[@]}" "${dict[@]}" \
    -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$crashes/" >"$log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  final=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1)
  execs=$(sed -nE 's/^stat::number_of_executed_units:[[:space:]]*([0-9]+).*/\1/p' "$log")
  rate=$(sed -nE 's/^stat::average_exec_per_sec:[[:space:]]*([0-9]+).*/\1/p' "$log")
  cov=$(sed -nE 's/.* cov: ([0-9]+) .*/\1/p' <<<"$final")
  ft=$(sed -nE 's/.* ft: ([0-9]+) .*/\1/p' <<<"$final")
  corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*) .*/\1/p' <<<"$final")
  artifact=$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -1)
  echo "$final"
  grep -E '^stat::' "$log"
  if [ $rc -ne 0 ]; then
    status=1
    echo "!! $t stopped after ${elapsed}s with exit code $rc; input: ${artifact:-none saved}"
    grep -m3 -E 'Fatal error|ERROR: (libFuzzer|AddressSanitizer)|SUMMARY' "$log"
  fi
  printf '%s\t%s\t%s\t%ss\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$commit" "$t" "$elapsed" \
    "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$rc" "${artifact:-}" >>"$OUT/summary.tsv"
done
echo "== summary (date, commit, target, seconds, execs, exec/s, cov, ft, corpus, exit, artifact) in $OUT/summary.tsv"
exit $status
