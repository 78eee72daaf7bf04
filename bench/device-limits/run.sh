#!/usr/bin/env bash
# bench/device-limits: peak memory (RSS) and time of a device and of verify-site given files far over
# their size limits (docs/client.md, "Size limits"; issue 31 item 3). Each case publishes a small site
# (the example packs at 100%), grows one file with spaces, and runs one command under /usr/bin/time:
#   pack-file   rollout device refresh, --site DIR: a 300 MB pack whose manifest states < 1 KB
#   pack-http   the same site over HTTP (python3 http.server on 127.0.0.1)
#   index-http  a 500 MiB index.json over HTTP
#   sig-verify  rollout verify-site on a site whose index.json.sig is 300 MB
#   pack-verify rollout verify-site on the 300 MB pack
# A device reads each file up to its limit plus one byte (the manifest's byte count for a pack), and
# verify-site does the same, so every case should stay near the process's size at rest (tens of MB).
#
# With ANDROID_DEVICE set (the path of scripts/android-device, of a tree whose .build/android may be rebuilt),
# the device cases run again with the Java client (java-baseline, java-pack-file, java-pack-http,
# java-index-http).
#
# Usage: bench/device-limits/run.sh [ROLLOUT_BINARY]     PACK_MB=300 INDEX_MIB=500 ANDROID_DEVICE=
#   ROLLOUT_BINARY  default: a release build (bench/rollout-binary.sh); rollout-device must be beside it.
# Prints one line a case: name, exit code, peak RSS in MB, seconds, the command's first output lines.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
PACK_MB="${PACK_MB:-300}"
INDEX_MIB="${INDEX_MIB:-500}"
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (GNU time) for the peak RSS" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-device-limits.XXXXXX")"
SERVER=""
finish() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap finish EXIT
cd "$WORK"
export ROLLOUT_ACTOR="Bench <bench@example.com>" HOME="$WORK" GIT_CONFIG_NOSYSTEM=1
"$BIN" init >/dev/null
"$BIN" pack add "$ROOT"/examples/packs/*.json >/dev/null
for id in en-US@1 tr@1 tr-TR@17; do "$BIN" promote "$id" --to 100% >/dev/null; done
KEY="$("$BIN" keys generate --out "$WORK/signing.key" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["publicKey"])')"
"$BIN" publish --out "$WORK/site" --key "$WORK/signing.key" >/dev/null

# grow SITE FILE BYTES: FILE of a copy of the site, extended with spaces to BYTES bytes.
grow() {
  rm -rf "$WORK/$1"
  cp -r "$WORK/site" "$WORK/$1"
  python3 - "$WORK/$1/$2" "$3" <<'EOF'
import os, sys
path, size = sys.argv[1], int(sys.argv[2])
with open(path, "ab") as f:
    chunk = b" " * (1 << 20)
    left = size - os.path.getsize(path)
    while left > 0:
        f.write(chunk[:min(left, len(chunk))])
        left -= min(left, len(chunk))
EOF
}

# serve DIR: a loopback HTTP server on DIR; sets SERVER (its pid) and URL.
serve() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  python3 -u -c '
import functools, http.server, sys
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
    functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1]))
print(server.server_address[1], flush=True)
server.serve_forever()' "$1" >"$WORK/port" 2>/dev/null &
  SERVER=$!
  for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
  URL="http://127.0.0.1:$(head -1 "$WORK/port")/"
}

# measure NAME COMMAND...: one line: name, exit code, peak RSS (MB), seconds, the first lines of output.
measure() {
  local name="$1" code=0
  shift
  /usr/bin/time -o "$WORK/time" -f '%M %e' "$@" >"$WORK/out" 2>&1 || code=$?
  read -r kb seconds < <(tail -1 "$WORK/time")
  printf '%-15s exit %-3s peak RSS %6.1f MB  %6.2f s  %s\n' "$name" "$code" "$(echo "$kb / 1024" | bc -l)" \
    "$seconds" "$(grep -v '^Command exited' "$WORK/out" | head -2 | tr -s ' \n' ' ' | cut -c1-150)"
}

# device NAME SITE: the command line of a fresh device (state NAME) refreshing from SITE; a name starting
# with java- is the Java client's (ANDROID_DEVICE).
device() {
  local program=("$BIN" device)
  case "$1" in java-*) program=("$ANDROID_DEVICE") ;; esac
  echo "${program[@]}" --state "$WORK/state-$1" --site "$2" --public-key "$KEY" --locale tr-TR --region TR \
    --app-version 4.8.1 refresh
}

PACK="$(cd "$WORK/site" && ls packs/tr-TR/17.*.json)"
echo "rollout: $BIN; pack $PACK grown to $PACK_MB MB, index.json to $INDEX_MIB MiB; load $(cut -d' ' -f1-3 /proc/loadavg)"
grow big-pack "$PACK" $((PACK_MB * 1000 * 1000))
grow big-index index.json $((INDEX_MIB * 1024 * 1024))
prefixes=("")
[ -z "${ANDROID_DEVICE:-}" ] || prefixes+=(java-)
for p in "${prefixes[@]}"; do
  # shellcheck disable=SC2046
  measure "${p}baseline" $(device "${p}baseline" "$WORK/site")
  # shellcheck disable=SC2046
  measure "${p}pack-file" $(device "${p}pack-file" "$WORK/big-pack")
  serve "$WORK/big-pack"
  # shellcheck disable=SC2046
  measure "${p}pack-http" $(device "${p}pack-http" "$URL")
  serve "$WORK/big-index"
  # shellcheck disable=SC2046
  measure "${p}index-http" $(device "${p}index-http" "$URL")
done
measure pack-verify "$BIN" verify-site "$WORK/big-pack" --public-key "$KEY"
grow big-sig index.json.sig $((PACK_MB * 1000 * 1000))
measure sig-verify "$BIN" verify-site "$WORK/big-sig" --public-key "$KEY"
