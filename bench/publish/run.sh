#!/usr/bin/env bash
# bench/publish: `rollout publish` of 200 locales x 50 pack versions (10,000 packs) into an empty
# directory, a second publish with nothing changed, and a publish after one locale got a new pack
# (which must write only that locale's manifest and signature, the new pack, and the index and its
# signature, and must not touch any other file); then `rollout verify-site` on the result.
# Peers, run in the same invocation on the same site:
#   (1) first publish      vs `cp -a` of the site it produced into a new directory (writing the same
#                             bytes is the floor for writing the site), and vs a copy that writes each
#                             file the way publish does (temporary file, fsync, rename: Foundation's
#                             atomic write), which shows how much of the time is the fsyncs;
#   (2) no-op publish      vs reading every file of the site once (`find | xargs cat`): a publish that
#                             proves nothing changed by comparing bytes must read at least that;
#   (3) one locale changed vs `cp` of only the files that changed;
#   (4) verify-site        vs `sha256sum` of every file of the site (the floor for checking digests).
# (1) and (2) and their peers run RUNS times, interleaved; medians are reported.
#
# The output ends with `INFO publish one-locale change / first publish: <ratio>x` (no goal is set for
# publish). Exits 1 if a check fails (publish not deterministic, a file written or touched that
# should not be, verify-site not ok).
#
# Usage: bench/publish/run.sh [ROLLOUT_BINARY]      LOCALES=200 VERSIONS=50 RUNS=3
#        LOCALES=20 VERSIONS=5 RUNS=1 bench/publish/run.sh     the small size make bench runs
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
LOCALES="${LOCALES:-200}"
VERSIONS="${VERSIONS:-50}"
RUNS="${RUNS:-3}"
CHANGED_LOCALE="${CHANGED_LOCALE:-}"   # default tr-TR
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-publish.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export ROLLOUT_ACTOR="bench <bench@example.invalid>"
unset ROLLOUT_REPO
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/publish-$(date -u +%Y%m%dT%H%M%SZ).txt"
REPO="$WORK/repo.git"
RESULTS="$WORK/results"   # name=value lines, read by the summary at the end
: >"$RESULTS"
cd "$WORK"                # no .rollout above a mktemp directory: standalone commands stay standalone

fail() { echo "FAIL: $*"; echo "fail=$*" >>"$RESULTS"; }
record() { echo "$1=$2" >>"$RESULTS"; }

# timed NAME STDOUT_FILE command...: runs the command once; records NAME_wall (ms), NAME_cpu (ms of
# user+sys CPU) and NAME_rss (peak resident KiB); the command's stdout goes to STDOUT_FILE.
timed() {
  local name="$1" stdout="$2"; shift 2
  python3 - "$name" "$stdout" "$@" >>"$RESULTS" <<'PY'
import resource, subprocess, sys, time
name, stdout, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(stdout, "wb") as out:
    t = time.perf_counter()
    code = subprocess.run(cmd, stdout=out).returncode
    wall = time.perf_counter() - t
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{name}_wall={wall * 1000:.1f}")
print(f"{name}_cpu={(usage.ru_utime + usage.ru_stime) * 1000:.1f}")
print(f"{name}_rss={usage.ru_maxrss}")
print(f"{name}_exit={code}")
PY
  local code; code="$(grep "^${name}_exit=" "$RESULTS" | tail -1 | cut -d= -f2)"
  [ "$code" = 0 ] || { fail "$name exited with $code ($*)"; cat "$stdout" >&2 || true; return 1; }
}

# The path of LOCALE@VERSION's stored pack in the repository: packs/L/V.json as generate.py writes it,
# or packs/L/<V / 1000>/V.json, the sharded layout rollout pack add writes (docs/pack-format.md).
stored_pack() {
  git --git-dir "$REPO" ls-tree -r --name-only main "packs/$1/" | grep -E "^packs/$1/([0-9]+/)?$2\.json$"
}
get() { grep "^$1=" "$RESULTS" | tail -1 | cut -d= -f2-; }
json_field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(len(v) if isinstance(v, list) else v)' "$1" "$2"; }
# The site is what devices read: publish's own record and lock beside it (DIR/.rollout-publish.json,
# rewritten by every publish, and .rollout-publish.lock: docs/manifest.md) are not counted.
BOOKKEEPING='.rollout-publish.*'
site_stat() { # DIR OUTFILE: path inode mtime_ns size, one line per site file
  python3 - "$1" >"$2" <<'PY'
import os, sys
root = sys.argv[1]
for folder, _, names in os.walk(root):
    for name in names:
        if name.startswith(".rollout-publish."):
            continue
        p = os.path.join(folder, name); s = os.stat(p)
        print(os.path.relpath(p, root), s.st_ino, s.st_mtime_ns, s.st_size)
PY
}

{
  echo "bench/publish  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$BIN" --version)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load before start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "workload: $LOCALES locales x $VERSIONS pack versions, every version published (baseline + previousBaselines); RUNS=$RUNS"

  # The repository: `rollout init`, then the generated history through git fast-import.
  "$BIN" init "$REPO" >/dev/null
  parent="$(git --git-dir "$REPO" rev-parse main)"
  t0=$(date +%s.%N)
  python3 "$HERE/generate.py" "$parent" "$LOCALES" "$VERSIONS" | git --git-dir "$REPO" fast-import --quiet
  t1=$(date +%s.%N)
  echo "repository: $(git --git-dir "$REPO" rev-list --count main) commits, $(du -sb "$REPO" | cut -f1) bytes on disk (one packfile), generated in $(python3 -c "print(f'{$t1 - $t0:.0f}')") s"

  # Sample checks: the stored packs are what rollout itself accepts.
  planned="$(git --git-dir "$REPO" ls-tree --name-only main plans/ | sed 's|^plans/||; s|\.json$||')"
  [ "$(echo "$planned" | wc -l)" = "$LOCALES" ] || fail "the repository has $(echo "$planned" | wc -l) plans, expected $LOCALES"
  sample="$(echo "$planned" | grep -x ja-JP || echo "$planned" | grep '^ja-' | head -1)"
  [ -n "$CHANGED_LOCALE" ] || CHANGED_LOCALE="$(echo "$planned" | grep -x tr-TR || echo "$planned" | grep '^tr-' | head -1)"
  listed="$("$BIN" --repo "$REPO" pack list "$sample" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["packs"]))')"
  [ "$listed" = "$VERSIONS" ] || fail "pack list $sample shows $listed packs, expected $VERSIONS"
  "$BIN" --repo "$REPO" pack show "$sample@$VERSIONS" >/dev/null || fail "pack show $sample@$VERSIONS"
  git --git-dir "$REPO" show "main:$(stored_pack "$sample" "$VERSIONS")" >"$WORK/sample.json"
  "$BIN" pack lint "$WORK/sample.json" >/dev/null || fail "standalone pack lint of $sample@$VERSIONS"
  "$BIN" --repo "$REPO" status "$sample" >/dev/null || fail "status $sample"
  [ "$("$BIN" pack checksum "$WORK/sample.json" | cut -d' ' -f1)" = "$(json_field "$WORK/sample.json" checksum)" ] || fail "pack checksum of $sample@$VERSIONS differs from the stored one"
  echo "sample checks on $sample: pack list ($listed packs), pack show, standalone pack lint, pack checksum, status: done"

  "$BIN" keys generate --out "$WORK/signing.key" --json >"$WORK/key.json"
  public_key="$(json_field "$WORK/key.json" publicKey)"

  # (1) First publish into an empty directory, RUNS times, each followed by its peer.
  for run in $(seq 1 "$RUNS"); do
    site="$WORK/site-$run"
    timed "first$run" "$WORK/first$run.json" "$BIN" --repo "$REPO" publish --out "$site" --key "$WORK/signing.key" --json
    timed "cp$run" /dev/null cp -a "$site" "$WORK/copy-$run"
    timed "fsynccp$run" /dev/null python3 -c '
import os, sys
source, target = sys.argv[1:]
for folder, _, names in os.walk(source):
    out = os.path.join(target, os.path.relpath(folder, source))
    os.makedirs(out, exist_ok=True)
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        temporary = os.path.join(out, ".tmp." + name)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, data)
        os.fsync(fd)
        os.close(fd)
        os.rename(temporary, os.path.join(out, name))
' "$site" "$WORK/fsync-copy-$run"
    rm -rf "$WORK/fsync-copy-$run"
    if [ "$run" = 1 ]; then
      record files_written "$(json_field "$WORK/first1.json" written)"
      record bytes_written "$(json_field "$WORK/first1.json" bytesWritten)"
      record site_files "$(find "$site" -type f ! -name "$BOOKKEEPING" | wc -l)"
      record site_bytes "$(du -sb --exclude="$BOOKKEEPING" "$site" | cut -f1)"
      record site_apparent "$(find "$site" -type f ! -name "$BOOKKEEPING" -printf '%s\n' | awk '{s+=$1} END {print s}')"
      record site_packs "$(find "$site/packs" -type f | wc -l)"
    else
      cmp -s "$WORK/site-1/index.json" "$site/index.json" || fail "publish is not deterministic (index.json of run $run differs)"
      rm -rf "$site" "$WORK/copy-$run"
    fi
  done
  rm -rf "$WORK/copy-1"
  [ "$(get files_written)" = "$(get site_files)" ] || fail "first publish reported $(get files_written) files written, the site has $(get site_files)"
  [ "$(get site_packs)" = "$((LOCALES * VERSIONS))" ] || fail "the site has $(get site_packs) pack files, expected $((LOCALES * VERSIONS))"
  echo "(1) first publish: $(get files_written) files, $(get bytes_written) bytes written"

  # (2) Publish again with nothing changed: nothing may be written.
  site="$WORK/site-1"
  site_stat "$site" "$WORK/stat-before-noop"
  for run in $(seq 1 "$RUNS"); do
    timed "noop$run" "$WORK/noop$run.json" "$BIN" --repo "$REPO" publish --out "$site" --key "$WORK/signing.key" --json
    # shellcheck disable=SC2016 # $1 is the inner shell's
    timed "read$run" /dev/null sh -c 'find "$1" -type f -print0 | xargs -0 cat >/dev/null' sh "$site"
    [ "$(json_field "$WORK/noop$run.json" written)" = 0 ] || fail "no-op publish $run wrote $(json_field "$WORK/noop$run.json" written) file(s)"
  done
  site_stat "$site" "$WORK/stat-after-noop"
  cmp -s "$WORK/stat-before-noop" "$WORK/stat-after-noop" || fail "no-op publish changed files on disk (inode or mtime)"
  echo "(2) no-op publish: $(json_field "$WORK/noop1.json" written) files written, $(json_field "$WORK/noop1.json" unchanged) unchanged"

  # (3) One locale gets a new pack: version VERSIONS+1 made from VERSIONS with one string changed, staged at 10%.
  next=$((VERSIONS + 1))
  git --git-dir "$REPO" show "main:$(stored_pack "$CHANGED_LOCALE" "$VERSIONS")" | python3 -c '
import json, sys
pack = json.load(sys.stdin)
del pack["checksum"]
pack["contentVersion"] = int(sys.argv[1])
key = sorted(k for k in pack["strings"] if not k.startswith(("checkout.", "legal.")))[0]
pack["strings"][key] += " (2)"
json.dump(pack, open(sys.argv[2], "w"), ensure_ascii=False, indent=2)
' "$next" "$WORK/$CHANGED_LOCALE@$next.json"
  timed packadd /dev/null "$BIN" --repo "$REPO" pack add "$WORK/$CHANGED_LOCALE@$next.json"
  timed promote /dev/null "$BIN" --repo "$REPO" promote "$CHANGED_LOCALE@$next" --to 10%
  digest="$(git --git-dir "$REPO" show "main:$(stored_pack "$CHANGED_LOCALE" "$next")" | sha256sum | cut -c1-16)"
  expected="$(printf '%s\n' "packs/$CHANGED_LOCALE/$next.$digest.json" "manifests/$CHANGED_LOCALE.json" "manifests/$CHANGED_LOCALE.json.sig" index.json index.json.sig | sort)"
  site_stat "$site" "$WORK/stat-before"
  timed incr "$WORK/incr.json" "$BIN" --repo "$REPO" publish --out "$site" --key "$WORK/signing.key" --json
  site_stat "$site" "$WORK/stat-after"
  written="$(python3 -c 'import json,sys; print("\n".join(sorted(json.load(open(sys.argv[1]))["written"])))' "$WORK/incr.json")"
  [ "$written" = "$expected" ] || fail "the publish after one change wrote [${written//$'\n'/ }], expected [${expected//$'\n'/ }]"
  # Every file other than the expected ones must keep its inode and mtime; the expected ones must be new or replaced.
  touched="$(python3 - "$WORK/stat-before" "$WORK/stat-after" <<'PY'
import sys
def load(p): return {l.split()[0]: tuple(l.split()[1:]) for l in open(p)}
before, after = load(sys.argv[1]), load(sys.argv[2])
print("\n".join(sorted(p for p in after if before.get(p) != after[p]) + [f"(removed) {p}" for p in sorted(before) if p not in after]))
PY
)"
  [ "$touched" = "$expected" ] || fail "files changed on disk by the publish after one change: [${touched//$'\n'/ }], expected [${expected//$'\n'/ }]"
  record incr_files "$(json_field "$WORK/incr.json" written)"
  record incr_bytes "$(json_field "$WORK/incr.json" bytesWritten)"
  record incr_unchanged "$(json_field "$WORK/incr.json" unchanged)"
  mkdir "$WORK/changed-copy"
  # shellcheck disable=SC2016,SC2086 # $1 and $@ are the inner shell's; $expected is a list of paths
  timed cpchanged /dev/null sh -c 'cd "$1" && shift && cp --parents "$@" "'"$WORK/changed-copy"'"' sh "$site" $expected
  echo "(3) publish after $CHANGED_LOCALE@$next (pack add, promote to 10%): written ${written//$'\n'/ }; $(get incr_unchanged) unchanged; no other file touched: $([ "$touched" = "$expected" ] && echo yes || echo NO)"

  # (4) verify-site on the result, against the repository.
  timed verify "$WORK/verify.json" "$BIN" --repo "$REPO" verify-site "$site" --public-key "$public_key" --json || true
  [ "$(json_field "$WORK/verify.json" ok)" = True ] || fail "verify-site: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["problems"][:5])' "$WORK/verify.json")"
  # shellcheck disable=SC2016 # $1 is the inner shell's
  timed sha /dev/null sh -c 'find "$1" -type f -print0 | xargs -0 sha256sum >/dev/null' sh "$site"
  echo "(4) verify-site: ok=$(json_field "$WORK/verify.json" ok), $(json_field "$WORK/verify.json" manifests) manifests, $(json_field "$WORK/verify.json" packs) packs, $(json_field "$WORK/verify.json" resolutions) resolutions compared with the repository"

  python3 - "$RESULTS" "$RUNS" <<'PY'
import statistics, sys
r = {}
for line in open(sys.argv[1]):
    k, _, v = line.rstrip("\n").partition("=")
    r[k] = v
runs = int(sys.argv[2])
f = lambda k: float(r[k])
med = lambda p, m="wall": statistics.median(f(f"{p}{i}_{m}") for i in range(1, runs + 1))
mib = lambda b: f"{int(b) / 1048576:.1f} MiB"
def row(label, ms, cpu, peer_label, peer_ms, extra=""):
    print(f"{label:<38} {ms:>10.1f} ms (cpu {cpu:>9.1f} ms){extra}")
    print(f"  peer {peer_label:<32} {peer_ms:>10.1f} ms   rollout/peer {ms / peer_ms:.1f}x")
print()
print(f"site: {int(r['site_files']):,} files ({int(r['site_packs']):,} packs), {int(r['site_bytes']):,} bytes (du -sb), {int(r['site_apparent']):,} bytes in files")
print(f"(1) first publish: {int(r['files_written']):,} files, {int(r['bytes_written']):,} bytes written ({mib(r['bytes_written'])}); peak RSS {int(r['first1_rss']) / 1024:.0f} MiB")
row("(1) publish into an empty directory", med("first"), med("first", "cpu"), "cp -a of the site", med("cp"))
print(f"  peer {'copy: temp file, fsync, rename':<32} {med('fsynccp'):>10.1f} ms   rollout/peer {med('first') / med('fsynccp'):.1f}x")
row("(2) publish, nothing changed", med("noop"), med("noop", "cpu"), "read every site file once", med("read"))
print(f"(3) after one new pack: {r['incr_files']} files, {int(r['incr_bytes']):,} bytes written, {int(r['incr_unchanged']):,} unchanged (pack add {f('packadd_wall'):.0f} ms, promote {f('promote_wall'):.0f} ms, not timed as publish)")
row("(3) publish after one locale changed", f("incr_wall"), f("incr_cpu"), "cp of the 5 changed files", f("cpchanged_wall"))
row("(4) verify-site against the repository", f("verify_wall"), f("verify_cpu"), "sha256sum of every site file", f("sha_wall"))
print(f"(3)/(1) incremental publish / first publish: {f('incr_wall') / med('first'):.2f}x;  (2)/(1) no-op / first: {med('noop') / med('first'):.2f}x")
print(f"per run: first {[r[f'first{i}_wall'] for i in range(1, runs + 1)]} cp {[r[f'cp{i}_wall'] for i in range(1, runs + 1)]} "
      f"fsync-copy {[r[f'fsynccp{i}_wall'] for i in range(1, runs + 1)]} noop {[r[f'noop{i}_wall'] for i in range(1, runs + 1)]} read {[r[f'read{i}_wall'] for i in range(1, runs + 1)]}")
fails = [v for k, v in r.items() if k == "fail"]
print("checks: " + ("all passed" if not fails else "FAILED"))
# docs/performance.md states a measured figure here (a fifth of a full publish), not a goal.
print(f"INFO publish one-locale change / first publish: {f('incr_wall') / med('first'):.2f}x")
PY
  echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$OUT"
echo "results: $OUT"
! grep -q '^fail=' "$RESULTS"
