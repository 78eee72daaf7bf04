#!/usr/bin/env bash
# bench/hook-signed: what the server's signature checks cost (docs/teams.md, "Signatures on the
# server"; figures in docs/performance.md).
#
# Usage: bench/hook-signed/run.sh [ROLLOUT_BINARY]
#   ROLLOUT_BINARY  default: a release build
#   RUNS=5          pushes timed per setup;  CHANGES=200  signed changes in the push
#
# A repository with the example packs and one signer (an ed25519 key, rollout signing every change
# through git config commit.gpgSign) makes CHANGES signed promotes offline. Then, run by run,
# interleaved, `git push` of all of them to a fresh bare server with no hook and with `rollout hook
# pre-receive --require-signed`, and the hook alone (run as git runs it, on a server that holds the
# objects); then `rollout verify --since BASE --require-signed` on a fresh clone of the server (the
# CI status check), and with `--since main~1` (one new change), against `rollout verify` of the whole
# clone. Prints the medians (seconds) and `INFO hook-signed ...: <ratio>x` lines. Exits 1 when a
# push or a check fails. Not in `make bench` (bench/all.sh): run it on its own.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
RUNS="${RUNS:-5}"
CHANGES="${CHANGES:-200}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-hook-signed.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1 ROLLOUT_ACTOR="Ana Release <ana@example.com>"
mkdir -p "$HOME"
git config --global user.name "Ana Release"
git config --global user.email ana@example.com
cd "$WORK"
r() { "$BIN" "$@" >/dev/null; }
now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ssh-keygen -q -t ed25519 -N "" -C ana -f ana
r init
r pack add "$ROOT"/examples/packs/*.json
git --git-dir .rollout config gpg.format ssh
git --git-dir .rollout config user.signingKey "$WORK/ana"
git --git-dir .rollout config commit.gpgSign true
r signers add ana@example.com --key ana.pub --role admin,release
git init --bare --quiet base.git
git --git-dir .rollout push --quiet base.git main
BASE="$(git --git-dir .rollout rev-parse main)"
made=0
for percent in $(seq 1 100); do
  for id in en-US@1 vi-VN@3; do
    [ "$made" -lt "$CHANGES" ] || break 2
    r --offline promote "$id" --to "$percent%" --force --reason step
    made=$((made + 1))
  done
done
TIP="$(git --git-dir .rollout rev-parse main)"
echo "$CHANGES signed changes after $BASE, tip $TIP"

# A fresh server at BASE with `hook` as its pre-receive hook ("" for none).
server() {
  rm -rf server.git
  git clone --bare --quiet base.git server.git
  if [ -n "$1" ]; then printf '#!/bin/sh\nexec %s %s\n' "$BIN" "$1" >server.git/hooks/pre-receive; chmod +x server.git/hooks/pre-receive; fi
}
push() { # setup name, hook
  server "$2"
  local start; start=$(now)
  git --git-dir .rollout push --quiet "$WORK/server.git" main
  echo "$(now) - $start" | bc >>"$1.times"
  [ "$(git --git-dir server.git rev-parse main)" = "$TIP" ] || { echo "the push did not land ($1)" >&2; exit 1; }
}
for _ in $(seq "$RUNS"); do
  push plain ""
  start=$(now)
  echo "$BASE $TIP refs/heads/main" | GIT_DIR="$WORK/server.git" "$BIN" hook pre-receive --require-signed
  echo "$(now) - $start" | bc >>alone.times
  push signed "hook pre-receive --require-signed"
done
rm -rf clone
"$BIN" clone "$WORK/server.git" clone >/dev/null
for _ in $(seq "$RUNS"); do
  start=$(now); "$BIN" --repo clone verify --since "$BASE" --require-signed >/dev/null; echo "$(now) - $start" | bc >>since.times
  start=$(now); "$BIN" --repo clone verify >/dev/null; echo "$(now) - $start" | bc >>whole.times
  start=$(now); "$BIN" --repo clone verify --since main~1 --require-signed >/dev/null; echo "$(now) - $start" | bc >>last.times
done
for name in plain signed alone since whole last; do printf '%s %.3f\n' "$name" "$(median <"$name.times")"; done >medians
cat medians
read -r _ plain < <(grep '^plain ' medians)
read -r _ signed < <(grep '^signed ' medians)
read -r _ since < <(grep '^since ' medians)
read -r _ whole < <(grep '^whole ' medians)
read -r _ last < <(grep '^last ' medians)
echo "INFO hook-signed push of $CHANGES signed changes, hook --require-signed against no hook: $(echo "scale=2; $signed / $plain" | bc)x"
echo "INFO hook-signed verify --since BASE --require-signed against verify of the whole clone: $(echo "scale=2; $since / $whole" | bc)x"
echo "INFO hook-signed verify --since main~1 --require-signed (one new change) against verify of the whole clone: $(echo "scale=2; $last / $whole" | bc)x"
