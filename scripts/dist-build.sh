#!/usr/bin/env bash
# Builds the release `rollout` that is installed and shipped (make install, make dist, bench/startup)
# and prints its path on stdout: one place for the flags (docs/install.md, "What is linked how").
#   --static-swift-stdlib  the Swift runtime, Foundation (with its ICU data), Dispatch and the
#                          concurrency runtime are linked in; only Debian libraries stay dynamic.
#   -L .build/dist-link    Debian's archives for libgit2, OpenSSL, zlib and libxml2 (see below), and the static FoundationNetworking (URLSession, which RolloutClient's transport
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
# The C libraries Debian ships as archives are linked in (docs/performance.md, "Install and start-up":
# binding ~40 shared libraries was most of the start-up). -lgit2, -lcrypto, -lz and -lxml2 (what
# pkg-config and FoundationXML ask for) find here, before the system directories, a linker script of
# the same name that pulls in the archive and the archives it needs, as one group (order-free).
ARCHIVES="$(pkg-config --variable=libdir libgit2)"   # Debian's multiarch directory; no C compiler needed
[ -n "$ARCHIVES" ] || { echo "dist-build.sh: pkg-config does not know libgit2: apt-get install libgit2-dev pkg-config" >&2; exit 2; }
group() { # name archive... : LINK_DIR/lib<name>.so = GROUP(the archives), each checked to exist
  local name="$1" members=() archive
  shift
  for archive in "$@"; do
    if [[ "$archive" == /* ]]; then members+=("$archive"); continue; fi
    [ -f "$ARCHIVES/lib$archive.a" ] || { echo "dist-build.sh: $ARCHIVES/lib$archive.a missing: apt-get install the -dev package that has it" >&2; exit 2; }
    members+=("$ARCHIVES/lib$archive.a")
  done
  printf 'GROUP ( %s )\n' "${members[*]}" >"$LINK_DIR/lib$name.so.tmp"
  mv "$LINK_DIR/lib$name.so.tmp" "$LINK_DIR/lib$name.so"
}
# libgit2's own (pkg-config --static --libs libgit2), and libssh2's OpenSSL. GSSAPI (Kerberos for
# HTTP remotes that ask for Negotiate) has no archive in Debian: libgssapi_krb5.so.2 stays shared.
GSSAPI="$(ldconfig -p | sed -nE 's/^[[:space:]]*libgssapi_krb5\.so\.2 \(libc6,(x86-64|AArch64)\) => (.*)$/\2/p' | head -1)"
[ -n "$GSSAPI" ] || { echo "dist-build.sh: libgssapi_krb5.so.2 not found: apt-get install libgssapi-krb5-2" >&2; exit 2; }
group git2 git2 mbedtls mbedx509 mbedcrypto http_parser ssh2 ssl crypto pcre2-8 z "$GSSAPI"
group crypto crypto
group z z
# FoundationXML's libxml2 (the Android importer's XMLParser) with its ICU and lzma.
group xml2 xml2 icui18n icuuc icudata lzma z
# SwiftPM puts each pkg-config module's -L/usr/lib/<triple> before the -L above, so libgit2, libcrypto
# and zlib get .pc files of their own here, the same but for Libs, which names this directory.
mkdir -p "$LINK_DIR/pkgconfig"
for module in libgit2:git2 libcrypto:crypto zlib:z; do
  pc="$(pkg-config --variable=pcfiledir "${module%%:*}")/${module%%:*}.pc"
  sed -E "/^(Libs|Libs.private|Requires.private):/d" "$pc" >"$LINK_DIR/pkgconfig/${module%%:*}.pc"
  echo "Libs: -L$LINK_DIR -l${module#*:}" >>"$LINK_DIR/pkgconfig/${module%%:*}.pc"
done
export PKG_CONFIG_PATH="$LINK_DIR/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# -no-pie: a position-dependent executable needs no relative relocations at start-up (~100,000 for
# the Swift metadata of a PIE rollout: half of what ld.so did); the libraries keep their ASLR.
FLAGS=(-c release --static-swift-stdlib -Xlinker -L"$LINK_DIR" -Xlinker -no-pie ${SWIFT_BUILD_FLAGS:-})
PRODUCT="${1:-rollout}"
swift build "${FLAGS[@]}" --product "$PRODUCT" >&2
# rollout execs rollout-device for `rollout device`; install-tree.sh takes it from beside rollout.
if [ "$PRODUCT" = rollout ]; then swift build "${FLAGS[@]}" --product rollout-device >&2; fi
echo "$(swift build "${FLAGS[@]}" --show-bin-path)/$PRODUCT"
