#!/usr/bin/env bash
# Line coverage per target, counting the code the end-to-end tests reach through the `rollout` and
# `rollout-device` processes they spawn, not only the code running inside the test bundle
# (docs/architecture.md, "Test coverage").
#   1. builds with coverage instrumentation on its own scratch path (.build/coverage), so the plain
#      build that `make test` uses keeps its flags and is not rebuilt;
#   2. runs the tests with LLVM_PROFILE_FILE pointing into a fresh directory: the test bundle and every
#      `rollout` and `rollout-device` it starts (Processes.baseEnvironment passes the variable on, and
#      rollout execs rollout-device with its own environment) write a profile there on exit. `%m`
#      merges the profiles of one binary into one file as processes exit (a run spawns thousands;
#      the runtime locks the file while it merges, so processes running at once add up, not
#      overwrite); a process killed by a signal writes none. Without arguments the tests run as
#      `make test` runs them, JOBS processes at a time (scripts/swift-tests.sh, default the number of
#      cores, logs in .build/coverage/swift-tests); with swift test's options, one `swift test` runs them;
#   3. merges them (llvm-profdata) and reports over all three binaries (llvm-cov), counting files under
#      Sources/<Target>/ for <Target>; tests, generated sources and bench/ are left out.
# Prints a table per target (also in .build/coverage/report/targets.txt); llvm-cov's per-file table
# (files.txt), the files by lines never run (untested.txt) and every source annotated line by line
# (html/index.html) go beside it. The tarball test of `make test` (scripts/dist-test.sh) is not run.
# Usage: scripts/coverage.sh [CLASS...]      every test (or these classes), JOBS processes at a time
#                                            (JOBS=1: one by one), as scripts/swift-tests.sh runs them
#        scripts/coverage.sh --filter 'PackCommandTests|ImportTests'   swift test's arguments, one process
# Exit status: the tests' (the report is written either way: a test that fails still counts).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SCRATCH=.build/coverage
REPORT="$SCRATCH/report"
PROFILES="$ROOT/$SCRATCH/profiles"
# SWIFT_BUILD_FLAGS comes from the Makefile, as for `make test`; unquoted on purpose (several flags).
# shellcheck disable=SC2086
BUILD=(--scratch-path "$SCRATCH" --enable-code-coverage ${SWIFT_BUILD_FLAGS:-})

# The toolchain's own LLVM tools: a profile is read only by the LLVM that wrote it (Debian's llvm-cov,
# older, rejects the toolchain's profiles).
TOOLS="$(dirname "$(readlink -f "$(command -v swift)")")"
PROFDATA="$TOOLS/llvm-profdata" LLVM_COV="$TOOLS/llvm-cov"
for tool in "$PROFDATA" "$LLVM_COV"; do [ -x "$tool" ] || { echo "coverage: $tool is missing from the toolchain" >&2; exit 1; }; done

# The build runs embed-template (the EmbedTemplate plugin's tool), instrumented too: its profile goes
# to the scratch path, not to default.profraw in the working directory.
export LLVM_PROFILE_FILE="$ROOT/$SCRATCH/build-tools/%m.profraw"
swift build --build-tests "${BUILD[@]}" || exit 1
BIN="$(swift build "${BUILD[@]}" --show-bin-path)"
BUNDLE="$(find "$BIN" -maxdepth 1 -name '*PackageTests.xctest' | head -1)"
[ -n "$BUNDLE" ] || { echo "coverage: no test bundle in $BIN" >&2; exit 1; }
OBJECTS=("$BUNDLE" "$BIN/rollout" "$BIN/rollout-device")
for object in "${OBJECTS[@]}"; do [ -x "$object" ] || { echo "coverage: $object is missing" >&2; exit 1; }; done

rm -rf "$PROFILES" "$REPORT"
mkdir -p "$PROFILES" "$REPORT"
export LLVM_PROFILE_FILE="$PROFILES/%m.profraw"
if [[ "${1:-}" != -* ]]; then
  # swift-tests.sh builds (nothing left to build) and asks for the bin path with these flags, so it
  # runs the instrumented bundle; its logs go beside the report, not where `make test` keeps its own.
  SWIFT_BUILD_FLAGS="${BUILD[*]}" SWIFT_TESTS_OUT="$ROOT/$SCRATCH/swift-tests" ./scripts/swift-tests.sh "$@" 2>&1 | tee "$SCRATCH/test.log"
else
  # Without --enable-code-coverage here: swift test would then set LLVM_PROFILE_FILE to its own path.
  swift test --skip-build --scratch-path "$SCRATCH" --disable-swift-testing "$@" 2>&1 | tee "$SCRATCH/test.log"
fi
status=${PIPESTATUS[0]}

shopt -s nullglob
raw=("$PROFILES"/*.profraw)
[ ${#raw[@]} -gt 0 ] || { echo "coverage: no profile was written to $PROFILES" >&2; exit 1; }
# A profile cut short (a process killed while writing it) is skipped with a warning, not fatal.
"$PROFDATA" merge --sparse --failure-mode=warn -o "$SCRATCH/merged.profdata" "${raw[@]}" || exit 1

COV=(-instr-profile "$SCRATCH/merged.profdata" "${OBJECTS[0]}" -object "${OBJECTS[1]}" -object "${OBJECTS[2]}"
  "-ignore-filename-regex=(/\.build/|/Tests/|/bench/)")
"$LLVM_COV" report "${COV[@]}" >"$REPORT/files.txt" || exit 1
"$LLVM_COV" export -summary-only "${COV[@]}" >"$REPORT/summary.json" || exit 1
"$LLVM_COV" show -format=html -output-dir "$REPORT/html" "${COV[@]}" >/dev/null || exit 1

python3 - "$REPORT/summary.json" "$ROOT" "$REPORT/targets.txt" "$REPORT/untested.txt" <<'EOF'
import json, sys, collections
summary, root, out, untested = sys.argv[1], sys.argv[2].rstrip("/") + "/Sources/", sys.argv[3], sys.argv[4]
targets = collections.defaultdict(lambda: [0, 0, 0])
files = [f for f in json.load(open(summary))["data"][0]["files"] if f["filename"].startswith(root)]
for file in files:
    lines = file["summary"]["lines"]
    row = targets[file["filename"][len(root):].split("/")[0]]
    row[0] += lines["covered"]; row[1] += lines["count"]; row[2] += 1
rows = ["%-18s %6s %15s %8s" % ("target", "files", "lines covered", "percent")]
total = [0, 0, 0]
for name in sorted(targets):
    covered, count, sources = targets[name]
    total = [total[0] + covered, total[1] + count, total[2] + sources]
    rows.append("%-18s %6d %15s %7.1f%%" % (name, sources, "%d/%d" % (covered, count), 100.0 * covered / max(count, 1)))
rows.append("%-18s %6d %15s %7.1f%%" % ("all", total[2], "%d/%d" % (total[0], total[1]), 100.0 * total[0] / max(total[1], 1)))
open(out, "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
# Where the untested code is: files by lines never run, most first.
missed = sorted(((f["summary"]["lines"]["count"] - f["summary"]["lines"]["covered"], f) for f in files), key=lambda x: -x[0])
with open(untested, "w") as handle:
    handle.write("%7s %7s %8s  %s\n" % ("missed", "lines", "percent", "file"))
    for gap, f in missed:
        lines = f["summary"]["lines"]
        handle.write("%7d %7d %7.1f%%  %s\n" % (gap, lines["count"], lines["percent"], f["filename"][len(root):]))
EOF
echo "coverage: per file $REPORT/files.txt, by lines missed $REPORT/untested.txt, line by line $REPORT/html/index.html"
[ "$status" -eq 0 ] || echo "coverage: the tests failed under instrumentation (exit $status, $SCRATCH/test.log); the figures count them as they ran" >&2
exit "$status"
