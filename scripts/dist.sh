#!/usr/bin/env bash
# make dist: dist/rollout-<version>-linux-<arch>.tar.gz and its .sha256 (sha256sum's format), and the
# tarball's path on stdout. <version> is what the built binary's `rollout --version` prints (its one
# source: RolloutCLI.version), <arch> is `uname -m`. The tarball unpacks to one directory laid out
# like an install prefix (docs/install.md):
#   rollout-<version>-linux-<arch>/bin/rollout
#   .../libexec/rollout/rollout-device                (what `rollout device` runs)
#   .../share/bash-completion/completions/rollout    .../share/zsh/site-functions/_rollout
#   .../share/fish/vendor_completions.d/rollout.fish
#   .../share/doc/rollout/{README.md,install.md,LICENSE if there is one}
# The same binary gives the same tarball bytes: entries sorted, owner root, times set to the
# commit's, gzip without a name or time stamp.
# Usage: scripts/dist.sh [ROLLOUT_BINARY]     default: scripts/dist-build.sh builds it
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${1:-}"
[ -n "$BIN" ] || BIN="$("$ROOT/scripts/dist-build.sh")"
[ -x "$BIN" ] || { echo "dist.sh: $BIN is not an executable rollout binary" >&2; exit 2; }

# "rollout 0.1.0 (libgit2 1.5.1)" -> 0.1.0
VERSION="$("$BIN" --version | sed -nE 's/^rollout ([^ ]+).*/\1/p')"
[[ "$VERSION" =~ ^[0-9A-Za-z.+-]+$ ]] || { echo "dist.sh: cannot read a version from $BIN --version" >&2; exit 2; }
NAME="rollout-$VERSION-linux-$(uname -m)"
DIST="$ROOT/dist"
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/rollout-dist.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT

"$ROOT/scripts/install-tree.sh" "$BIN" "$STAGE/$NAME"

mkdir -p "$DIST"
stamp="$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)"
tar -C "$STAGE" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$stamp" -cf - "$NAME" \
  | gzip -9n >"$DIST/$NAME.tar.gz"
(cd "$DIST" && sha256sum "$NAME.tar.gz" >"$NAME.tar.gz.sha256")
echo "dist.sh: $(cat "$DIST/$NAME.tar.gz.sha256")" >&2
echo "$DIST/$NAME.tar.gz"
