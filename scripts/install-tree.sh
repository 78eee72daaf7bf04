#!/usr/bin/env bash
# Installs a built rollout and its shell completions under a prefix, in the places each shell looks
# (the same layout for `make install` and the dist tarball; docs/install.md):
#   PREFIX/bin/rollout
#   PREFIX/libexec/rollout/rollout-device              (what `rollout device` runs; taken from beside
#                                                       ROLLOUT_BINARY, where the build puts it)
#   PREFIX/share/bash-completion/completions/rollout   (bash-completion loads it on first use)
#   PREFIX/share/zsh/site-functions/_rollout           (on zsh's default fpath for /usr/local and /usr)
#   PREFIX/share/fish/vendor_completions.d/rollout.fish
#   PREFIX/share/doc/rollout/{README.md,install.md,LICENSE if there is one}
# The completion scripts are what `rollout completion bash|zsh|fish` prints, made by the binary
# being installed.
# Usage: scripts/install-tree.sh ROLLOUT_BINARY PREFIX     (PREFIX may include a DESTDIR)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -eq 2 ] || { echo "usage: install-tree.sh ROLLOUT_BINARY PREFIX" >&2; exit 64; }
BIN="$1" PREFIX="$2"
DEVICE="$(dirname "$BIN")/rollout-device"
[ -x "$DEVICE" ] || { echo "install-tree.sh: no $DEVICE beside $BIN (scripts/dist-build.sh builds both)" >&2; exit 66; }
install -d "$PREFIX/bin" "$PREFIX/libexec/rollout" "$PREFIX/share/bash-completion/completions" "$PREFIX/share/zsh/site-functions" \
  "$PREFIX/share/fish/vendor_completions.d" "$PREFIX/share/doc/rollout"
install -m 755 "$BIN" "$PREFIX/bin/rollout"
install -m 755 "$DEVICE" "$PREFIX/libexec/rollout/rollout-device"
completion() { # shell file
  local tmp; tmp="$(mktemp)"
  "$BIN" completion "$1" >"$tmp"
  install -m 644 "$tmp" "$2"
  rm -f "$tmp"
}
completion bash "$PREFIX/share/bash-completion/completions/rollout"
completion zsh "$PREFIX/share/zsh/site-functions/_rollout"
completion fish "$PREFIX/share/fish/vendor_completions.d/rollout.fish"
install -m 644 "$ROOT/README.md" "$ROOT/docs/install.md" "$PREFIX/share/doc/rollout/"
for license in LICENSE LICENSE.md LICENSE.txt COPYING; do
  if [ -f "$ROOT/$license" ]; then install -m 644 "$ROOT/$license" "$PREFIX/share/doc/rollout/"; fi
done
