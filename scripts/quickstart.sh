#!/usr/bin/env bash
# The quickstart: a real walkthrough on a scratch repository. `make demo` runs it.
# Usage: scripts/quickstart.sh [PATH-TO-ROLLOUT]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROLLOUT="${1:-$ROOT/.build/debug/rollout}"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/rollout-demo.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
export ROLLOUT_ACTOR="${ROLLOUT_ACTOR:-Demo Release Manager <release@example.com>}"
cd "$SCRATCH"

step() { printf '\n\033[1m$ rollout %s\033[0m\n' "$*"; "$ROLLOUT" "$@"; }
expect_refusal() {
  printf '\n\033[1m$ rollout %s\033[0m   # expected to be refused\n' "$*"
  set +e; "$ROLLOUT" "$@"; local status=$?; set -e
  echo "(exit $status)"
  [ "$status" -ne 0 ] || { echo "quickstart: expected a refusal" >&2; exit 1; }
}

step init
cp "$ROOT"/examples/packs/*.json .
step pack lint *.json
step pack add en-US@1.json tr@1.json tr-TR@17.json tr-TR@18.json vi-VN@3.json --reason "first packs"
step pack add tr-TR@18.json
step pack list
step pack show tr-TR@18
step pack diff tr-TR@17 tr-TR@18

# Packs are immutable: editing tr-TR@18 in place is refused, the fix is tr-TR@19.
sed -e 's/Hoş geldin/Merhaba/' -e '/"checksum"/d' tr-TR@18.json > edited.json
expect_refusal pack add edited.json

# Stage: tr-TR@17 for everyone, then tr-TR@18 to 10% of Turkish devices on 4.8 and later.
step promote tr-TR@17 --to 100% --reason "first tr-TR baseline"
step promote en-US@1 --to 100%
step promote tr@1 --to 100%
step promote tr-TR@18 --to 10% --region TR --app-version '>=4.8' --dry-run
step promote tr-TR@18 --to 10% --region TR --app-version '>=4.8' --reason "typo fix"
step status tr-TR
step resolve --locale tr-TR --region TR --app-version 4.8.1 --install-id 5F0C2A7E-1111-2222-3333-444455556666
step simulate tr-TR --devices 100000
# Widening needs evidence: ingest a day of crash and fallback counts, check health, then grow.
step metrics ingest --kind crash "$ROOT/examples/metrics/crashes-healthy.csv"
step metrics ingest --kind fallback "$ROOT/examples/metrics/fallbacks-healthy.csv"
step health tr-TR
step promote tr-TR@18 --to 50% --reason "healthy after four days"
step log --segment TR/4.8

# The bad day: take it back, block it, write down why; publish what devices download, signed.
printf '\n\033[1m$ rollout keys generate --out signing.key\033[0m\n'
KEYS_JSON="$("$ROLLOUT" keys generate --out signing.key --json)"
PUBLIC_KEY="$(printf '%s\n' "$KEYS_JSON" | sed -n 's/.*"publicKey": "\([^"]*\)".*/\1/p')"
echo "public key for the app: $PUBLIC_KEY"
step publish --out site --key signing.key
step revert tr-TR --reason "crash spike on 4.8"
step rollbacks
step publish --out site --key signing.key
step verify-site site --public-key "$PUBLIC_KEY"
step resolve --locale tr-TR --region TR --app-version 4.8.1 --install-id 5F0C2A7E-1111-2222-3333-444455556666
step log --segment TR/4.8 --limit 2

printf '\n\033[1m$ git --git-dir .rollout log --format=...\033[0m   # the history is the audit log\n'
git --git-dir .rollout log -n 3 --format='%h %ad %s%n%(trailers:key=Rollout-Actor,key=Rollout-Reason)' --date=iso-strict
git --git-dir .rollout fsck --strict --no-dangling && echo "git fsck: clean"
