# shellcheck shell=bash
# Sourced by the bench scripts: sets BIN to the rollout binary named by $1, or builds a release one,
# and makes BEFORE (a second binary, the one before a change, for the scripts that time both) an
# absolute path when it is set. Needs ROOT (the package root) to be set.
BIN="${1:-}"
if [ -z "$BIN" ]; then
  (cd "$ROOT" && swift build -c release >&2)
  BIN="$(cd "$ROOT" && swift build -c release --show-bin-path)/rollout"
fi
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
[ -x "$BIN" ] || { echo "$0: $BIN is not an executable rollout binary" >&2; exit 2; }
BEFORE="${BEFORE:-}"
if [ -n "$BEFORE" ]; then
  [ -f "$BEFORE" ] && [ -x "$BEFORE" ] || { echo "$0: BEFORE=$BEFORE is not an executable rollout binary" >&2; exit 2; }
  BEFORE="$(cd "$(dirname "$BEFORE")" && pwd)/$(basename "$BEFORE")"
fi
