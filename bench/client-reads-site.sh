# shellcheck shell=bash
# Sourced by bench/client-reads/run.sh and bench/client-reads-jvm/run.sh, after bench/rollout-binary.sh (ROOT and
# BIN set): the site both benches read. Sets up a repository with the example packs (en-US@1, tr@1, tr-TR@17,
# vi-VN@3 at 100%), a signing key (KEY, its public key) and a site published into "$WORK/site", then republishes
# the site in a loop until the script exits (a new vi-VN content version at 100%, then `rollout publish`), so a
# client's refreshes are up to date, changing (as vi-VN), or refused (a site caught mid-publish). Leaves the
# shell in WORK, which is removed on exit.
WORK="$(mktemp -d)"
PUBLISHER=""
# The republishing loop is asked to stop and waited for: killing its shell would leave the rollout
# it is running writing into WORK while it is removed (rm fails, and the bench with it).
finish() {
  touch "$WORK/stop"
  if [ -n "$PUBLISHER" ]; then wait "$PUBLISHER" || true; fi
  rm -rf "$WORK" || true
}
trap finish EXIT
cd "$WORK"
export ROLLOUT_ACTOR="Bench <bench@example.com>" HOME="$WORK" GIT_CONFIG_NOSYSTEM=1
"$BIN" init >/dev/null
"$BIN" pack add "$ROOT"/examples/packs/*.json >/dev/null
for id in en-US@1 tr@1 tr-TR@17 vi-VN@3; do "$BIN" promote "$id" --to 100% >/dev/null; done
KEY="$("$BIN" keys generate --out "$WORK/signing.key" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["publicKey"])')"
"$BIN" publish --out "$WORK/site" --key "$WORK/signing.key" >/dev/null

(
  version=4
  while [ ! -e "$WORK/stop" ]; do
    # A new vi-VN content version each round, at 100%: the device gets it whenever it refreshes
    # as vi-VN, and every round moves the index sequence for tr-TR too.
    python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); p["contentVersion"] = int(sys.argv[2]); p.pop("checksum", None)
json.dump(p, open(sys.argv[3], "w"), ensure_ascii=False)' "$ROOT/examples/packs/vi-VN@3.json" "$version" "$WORK/vi.json"
    "$BIN" pack add "$WORK/vi.json" >/dev/null 2>&1 || true
    "$BIN" promote "vi-VN@$version" --to 100% >/dev/null 2>&1 || true
    "$BIN" publish --out "$WORK/site" --key "$WORK/signing.key" >/dev/null 2>&1 || true
    version=$((version + 1))
  done
) &
PUBLISHER=$!
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
