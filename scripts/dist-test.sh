#!/usr/bin/env bash
# The release tarball runs on a Debian machine without the Swift toolchain (docs/install.md).
# Run by `make test` after scripts/dist.sh; counted there as one test.
#   1. the .sha256 beside the tarball checks (sha256sum -c, as a user would);
#   2. unpacked, bin/rollout needs no library from the toolchain and none that is missing, and every
#      library it loads belongs to an installed Debian package (ldd, dpkg -S);
#   3. with the toolchain hidden (a private mount namespace with an empty tmpfs over it: the Swift
#      runtime's shared libraries are gone, checked before anything runs) and a bare environment,
#      `rollout --version` prints the tarball's version, and `rollout init`, `pack add` of
#      examples/packs, `verify`, `completion bash` and `device ... status` (rollout execs
#      libexec/rollout/rollout-device) work;
#   4. bin/rollout links no libcurl (that is rollout-device's alone), and bin/rollout without its
#      libexec/rollout/rollout-device says where it looked, with exit 66.
# Never skips: if the toolchain cannot be hidden (no unshare, no permission to mount), it fails
# and says why.
# Usage: scripts/dist-test.sh dist/rollout-<version>-linux-<arch>.tar.gz
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail() { echo "dist-test: FAIL: $*" >&2; exit 1; }
ok() { echo "dist-test: ok: $*"; }

if [ "${1:-}" = "--hidden" ]; then
  # Inside the mount namespace: $2 toolchain directory, $3 unpacked rollout directory, $4 version.
  TOOLCHAIN="$2" PKG="$3" VERSION="$4"
  mount -t tmpfs -o size=1m,mode=755 rollout-dist-test "$TOOLCHAIN" || fail "cannot mount a tmpfs over $TOOLCHAIN"
  if find "$TOOLCHAIN" -mindepth 1 | grep -q .; then fail "$TOOLCHAIN still has files after the tmpfs mount"; fi
  ok "$TOOLCHAIN hidden (empty tmpfs in a private mount namespace)"
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
  cd "$WORK"
  run() { # what... : runs rollout with a bare environment; fails with its output
    local out
    out="$(env -i PATH=/usr/bin:/bin HOME="$WORK" ROLLOUT_ACTOR="dist test <dist@example.invalid>" \
      "$PKG/bin/rollout" "$@" 2>&1)" || fail "rollout $* with $TOOLCHAIN hidden: $out"
    printf '%s\n' "$out"
  }
  version="$(run --version)"
  [[ "$version" == "rollout $VERSION "* ]] || fail "rollout --version printed \"$version\", not version $VERSION"
  ok "rollout --version: $version"
  run init >/dev/null
  ok "rollout init"
  run pack add "$ROOT"/examples/packs/*.json >/dev/null
  ok "rollout pack add examples/packs/*.json"
  run verify >/dev/null
  ok "rollout verify"
  [ "$(run completion bash)" = "$(cat "$PKG/share/bash-completion/completions/rollout")" ] \
    || fail "rollout completion bash differs from the tarball's completion file"
  ok "rollout completion bash matches share/bash-completion/completions/rollout"
  device="$(run device --state "$WORK/phone" --site "$WORK" --public-key "ed25519:$(head -c 32 /dev/zero | base64)" \
    --locale tr-TR --region TR --app-version 4.8.1 --json status)"
  grep -q '"action": "status"' <<<"$device" || fail "rollout device status printed: $device"
  ok "rollout device status (bin/rollout execs libexec/rollout/rollout-device)"
  exit 0
fi

TARBALL="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
NAME="$(basename "$TARBALL" .tar.gz)"
VERSION="$(sed -nE 's/^rollout-(.+)-linux-[^-]+$/\1/p' <<<"$NAME")"
[ -n "$VERSION" ] || fail "$TARBALL is not named rollout-<version>-linux-<arch>.tar.gz"

(cd "$(dirname "$TARBALL")" && sha256sum --check --status "$NAME.tar.gz.sha256") \
  || fail "$NAME.tar.gz.sha256 does not check"
ok "sha256sum -c $NAME.tar.gz.sha256"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-dist-test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
tar -xzf "$TARBALL" -C "$WORK"
PKG="$WORK/$NAME"
for file in bin/rollout libexec/rollout/rollout-device share/bash-completion/completions/rollout share/zsh/site-functions/_rollout \
  share/fish/vendor_completions.d/rollout.fish share/doc/rollout/install.md; do
  [ -s "$PKG/$file" ] || fail "the tarball has no $NAME/$file"
done
ok "unpacked: bin/rollout, libexec/rollout/rollout-device, bash/zsh/fish completions, share/doc/rollout/install.md"

# The toolchain is where the swift that builds this lives: .../usr/bin/swift -> ...
SWIFT="$(command -v swift)" || fail "no swift on PATH: cannot tell which toolchain to hide"
TOOLCHAIN="$(dirname "$(dirname "$(dirname "$(readlink -f "$SWIFT")")")")"
case "$TOOLCHAIN" in /|/usr|/usr/local) fail "the toolchain is installed in $TOOLCHAIN, which cannot be hidden";; esac
[ -d "$TOOLCHAIN/usr/lib/swift" ] || fail "$TOOLCHAIN does not look like a Swift toolchain"

for program in bin/rollout libexec/rollout/rollout-device; do
  libraries="$(env -u LD_LIBRARY_PATH ldd "$PKG/$program")" || fail "ldd $PKG/$program failed"
  if grep -F "$TOOLCHAIN" <<<"$libraries"; then fail "$program loads libraries from $TOOLCHAIN"; fi
  if grep -E "not found|libswift|libFoundation|libdispatch|libBlocksRuntime" <<<"$libraries"; then
    fail "$program needs the Swift runtime or a missing library"
  fi
  while read -r path; do
    dpkg -S "$(readlink -f "$path")" >/dev/null 2>&1 || dpkg -S "$path" >/dev/null 2>&1 \
      || fail "$path (needed by $program) belongs to no Debian package"
  done < <(grep -oE '/[^ ]+\.so[^ ]*' <<<"$libraries" | sort -u)
  ok "ldd $program: nothing from $TOOLCHAIN, every library from a Debian package ($(grep -c '=>' <<<"$libraries") libraries)"
  if [ "$program" = bin/rollout ]; then
    if grep -F libcurl <<<"$libraries" || nm -D "$PKG/$program" | grep -qiw 'U curl_[a-z_]*'; then
      fail "bin/rollout links libcurl; only libexec/rollout/rollout-device should"
    fi
    ok "bin/rollout links no libcurl"
  fi
done

# A rollout whose rollout-device is missing says where it looked (exit 66), and runs nothing else.
mkdir -p "$WORK/alone/bin"
cp "$PKG/bin/rollout" "$WORK/alone/bin/rollout"
set +e
alone="$("$WORK/alone/bin/rollout" device --state "$WORK/alone/phone" --site "$WORK" --public-key x \
  --locale tr-TR --region TR --app-version 4.8.1 status 2>&1)"
status=$?
set -e
[ "$status" -eq 66 ] && grep -qF "$WORK/alone/libexec/rollout/rollout-device" <<<"$alone" \
  || fail "rollout device without rollout-device exited $status: $alone"
ok "without libexec/rollout/rollout-device, rollout device exits 66 naming where it looked"

if [ "$(id -u)" -eq 0 ]; then UNSHARE=(unshare --mount --propagation private)
else UNSHARE=(unshare --user --map-root-user --mount --propagation private); fi
command -v unshare >/dev/null || fail "needs unshare (Debian's util-linux) to hide $TOOLCHAIN"
"${UNSHARE[@]}" "$0" --hidden "$TOOLCHAIN" "$PKG" "$VERSION" \
  || fail "the tarball's rollout with $TOOLCHAIN hidden (see above)"
echo "dist-test: passed: $NAME runs without the Swift toolchain"
