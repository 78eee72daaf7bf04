#!/usr/bin/env bash
# Builds the release `rollout` that is installed and shipped (make install, make dist, bench/startup)
# and prints its path on stdout: one place for the flags (docs/install.md, "What is linked how").
#   --static-swift-stdlib  the Swift runtime, Foundation (with its ICU data), Dispatch and the
#                          concurrency runtime are linked in; only Debian libraries stay dynamic.
#   -L .build/dist-link    the static FoundationNetworking (URLSession, which RolloutClient's transport
#                          uses) links with -lcurl, which needs the unversioned libcurl.so that only a
#                          -dev package has; Debian's libcurl4 has libcurl.so.4, so a libcurl.so
#                          pointing at it is made there (the binary records libcurl.so.4 either way).
# SWIFT_BUILD_FLAGS (as in the Makefile) are passed on. With a PRODUCT argument it builds that
# product the same way instead (bench/all.sh: the resolve bench, without recompiling everything for
# other flags).
# Usage: scripts/dist-build.sh [PRODUCT]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck disable=SC2206 # SWIFT_BUILD_FLAGS is a list of flags, as in the Makefile
LINK_DIR="$ROOT/.build/dist-link"
mkdir -p "$LINK_DIR"
CURL="$(ldconfig -p | sed -nE 's/^[[:space:]]*libcurl\.so\.4 \(libc6,x86-64\) => (.*)$/\1/p;s/^[[:space:]]*libcurl\.so\.4 \(libc6,AArch64\) => (.*)$/\1/p' | head -1)"
[ -n "$CURL" ] || { echo "dist-build.sh: libcurl.so.4 not found: apt-get install libcurl4" >&2; exit 2; }
ln -sfn "$CURL" "$LINK_DIR/libcurl.so"
FLAGS=(-c release --static-swift-stdlib -Xlinker -L"$LINK_DIR" ${SWIFT_BUILD_FLAGS:-})
PRODUCT="${1:-rollout}"
swift build "${FLAGS[@]}" --product "$PRODUCT" >&2
echo "$(swift build "${FLAGS[@]}" --show-bin-path)/$PRODUCT"
