#!/usr/bin/env bash
# The quickstart: a real walkthrough on a scratch repository. `make demo` runs it.
# Usage: scripts/quickstart.sh [PATH-TO-ROLLOUT]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROLLOUT="${1:-$ROOT/.build/debug/rollout}"
# The scratch directory stays, so the report can be opened afterwards (ROLLOUT_DEMO_DIR names it).
if [ -n "${ROLLOUT_DEMO_DIR:-}" ]; then
  rm -rf "$ROLLOUT_DEMO_DIR"; mkdir -p "$ROLLOUT_DEMO_DIR"; SCRATCH="$(cd "$ROLLOUT_DEMO_DIR" && pwd)"
else
  SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/rollout-demo.XXXXXX")"
fi
export ROLLOUT_ACTOR="${ROLLOUT_ACTOR:-Demo Release Manager <release@example.com>}"
cd "$SCRATCH"

# A clock that moves: each step happens an hour (or a day) after the one before, so the history
# and the report read like a real week.
CLOCK=1795766400  # 2026-11-28T00:00:00Z minus a few days
tick() { CLOCK=$((CLOCK + ${1:-3600})); export ROLLOUT_NOW="$(date -u -d "@$CLOCK" +%Y-%m-%dT%H:%M:%SZ)"; }
step() { tick; printf '\n\033[1m$ rollout %s\033[0m\n' "$*"; "$ROLLOUT" "$@"; }
says_no() {  # a command whose answer is "no" (exit 1): show it and go on
  tick; printf '\n\033[1m$ rollout %s\033[0m\n' "$*"
  set +e; "$ROLLOUT" "$@"; local status=$?; set -e
  echo "(exit $status)"
  [ "$status" -eq 1 ] || { echo "quickstart: expected exit 1" >&2; exit 1; }
}
expect_refusal() {
  printf '\n\033[1m$ rollout %s\033[0m   # expected to be refused\n' "$*"
  set +e; "$ROLLOUT" "$@"; local status=$?; set -e
  echo "(exit $status)"
  [ "$status" -ne 0 ] || { echo "quickstart: expected a refusal" >&2; exit 1; }
}

step init
cp "$ROOT"/examples/packs/*.json .
step pack add en-US@1.json tr@1.json tr-TR@17.json tr-TR@18.json vi-VN@3.json --reason "first packs"
step pack diff tr-TR@17 tr-TR@18
for id in en-US@1 tr@1 tr-TR@17; do step promote "$id" --to 100% --reason "baseline"; done

# Stage the fix for 10% of Turkish devices on 4.8 and later, and see who gets it.
step promote tr-TR@18 --to 10% --region TR --app-version '>=4.8' --reason "typo fix"
step status tr-TR
step simulate tr-TR --devices 100000
step resolve --locale tr-TR --region TR --app-version 4.8.1 --install-id DEMO-DEVICE-0026

# A day of metrics arrives: crashes jump in TR on 4.8 with tr-TR@18, and only there.
tick 86400
step metrics ingest --kind crash "$ROOT/examples/metrics/crashes-spike-TR-4.8.csv"
step metrics ingest --kind fallback "$ROOT/examples/metrics/fallbacks-healthy.csv"
says_no health tr-TR
says_no promote tr-TR@18 --to 50%
step guard --auto-revert
step rollbacks tr-TR
step log --segment TR/4.8

# What devices download: signed. An offline root key (its public part is built into the app) signs
# the key list; the publishing key it lists signs the site, which expires unless published again.
printf '\n\033[1m$ rollout keys init --out keys\033[0m\n'
tick
KEYS_JSON="$("$ROLLOUT" keys init --out keys --json)"
ROOT_KEY="$(printf '%s\n' "$KEYS_JSON" | python3 -c 'import json, sys; print(json.load(sys.stdin)["roots"][0]["publicKey"])')"
echo "root key for the app: $ROOT_KEY (keys/root.key: keep it offline); publishing key: keys/publish-1.key"
step keys list
step publish --out site --key keys/publish-1.key --expires 7d
step verify-site site --root-key "$ROOT_KEY"
step resolve --locale tr-TR --region TR --app-version 4.8.1 --install-id DEMO-DEVICE-0026
# The same device, run by the real client library (docs/device.md): the app bundles one Turkish
# string the packs do not have yet, and the device shows it between the tr-TR pack and English.
mkdir -p bundled
printf '{"welcome.new": "Yeni: çevrimdışı mod (uygulama içi)"}\n' > bundled/tr-TR.json
DEVICE=(device --state phone --site site --root-key "$ROOT_KEY" --bundled bundled --locale tr-TR --region TR --app-version 4.8.1 --install-id DEMO-DEVICE-0026)
step "${DEVICE[@]}" refresh
step "${DEVICE[@]}" activate
step "${DEVICE[@]}" get checkout.pay --arg "amount=42,00 TL"
step "${DEVICE[@]}" get welcome.new
# The same phone on Android: the Java library (docs/android.md) behind the same flags, on its own state
# directory. It lands in the same bucket, verifies the same signatures and shows the same strings.
ANDROID=(--state phone-android "${DEVICE[@]:3}")
android_step() { tick; printf '\n\033[1m$ scripts/android-device %s\033[0m\n' "$*"; "$ROOT/scripts/android-device" "$@"; }
android_step "${ANDROID[@]}" refresh
android_step "${ANDROID[@]}" activate
for key in checkout.pay welcome.new; do
  swift_says="$("$ROLLOUT" "${DEVICE[@]}" get "$key" --arg "amount=42,00 TL" --json)"
  android_says="$("$ROOT/scripts/android-device" "${ANDROID[@]}" get "$key" --arg "amount=42,00 TL" --json)"
  [ "$swift_says" = "$android_says" ] || { printf 'quickstart: the clients differ on %s:\n%s\n%s\n' "$key" "$swift_says" "$android_says" >&2; exit 1; }
  printf '%s: Swift and Android both show "%s" (%s)\n' "$key" \
    "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["text"])' "$android_says")" \
    "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["activePack"])' "$android_says")"
done
step report tr-TR --out report.html
step verify

printf '\nThe report: %s\nThe scratch repository: %s/.rollout (delete %s when done)\n' "$SCRATCH/report.html" "$SCRATCH" "$SCRATCH"
