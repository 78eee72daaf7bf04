#!/usr/bin/env bash
# Crash safety: SIGKILL `rollout` at random moments during pack add, promote, metrics ingest,
# revert and publish, hundreds of times, and check what every killed run leaves behind.
#
# Usage: scripts/kill-harness.sh BIN [RUNS]      (RUNS defaults to 300)
#
# Needs bash, git, python3 (only to generate the large inputs) and coreutils.
#
# It builds one base repository (init; pack add of examples/packs/*.json except vi-VN@3, which
# is held back for the pack-add runs, plus a generated 5,000-key de-DE@1; en-US@1, tr@1 and
# tr-TR@17 promoted to 100%; a signing key from `rollout keys generate`; a site published;
# then de-DE@1 completed and tr-TR@18 staged to 10% in TR, so the site is one publish behind and
# revert has something to take back). Each run copies the base (cp -a), starts one operation
# round-robin, SIGKILLs it after a random delay drawn uniformly from 0 to 1.1x that operation's
# unkilled duration (measured first: a warm-up and the median of 5; then kept current with the
# unkilled re-runs of step 5, since other work on the machine changes it), and then checks:
#   1. `rollout verify` exits 0. A stale lock it reports is counted, removed with the rm command
#      it prints, and verify runs again. A *.lock file in the repository that verify did not
#      report is a failure.
#   2. `git fsck --strict --no-dangling` exits 0 (anything it prints is recorded).
#   3. refs/heads/main is the before-tip, or one commit on top of it whose Rollout-Action is the
#      operation's (a publish records itself too). Anything else is an in-between state.
#   4. publish: the site is still the previous one (or absent), or `verify-site` passes against
#      the repository, or it is partial and the next publish completes it (recorded: what a device
#      would say about the partial site, and the temporary files the kill left).
#   5. The same operation run again, unkilled, succeeds (for a revert that already landed, a
#      refusal with exit 1 is the expected answer), and `rollout verify` still exits 0 after it.
# Every failure keeps its repository (and site) under /tmp/kill-failures/<session>/ with why.txt.
# Prints a summary table; exits 1 if any run failed, 64 on bad usage.
#
# Environment: KILL_SEED (bash RANDOM seed, to replay a sequence of delays), KILL_FAILURES
# (default /tmp/kill-failures), KILL_LOG (per-run log, default /tmp/kill-harness-<session>.log),
# KILL_VERBOSE=1 (print every run with something to note), KILL_KEEP_WORK=1 (keep the scratch).
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 64
fi
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
RUNS="${2:-300}"
[ -x "$BIN" ] || { echo "kill-harness: $1 is not an executable" >&2; exit 64; }
case "$RUNS" in ''|*[!0-9]*) echo "kill-harness: RUNS must be a whole number" >&2; exit 64 ;; esac
for tool in git python3 sha256sum; do
  command -v "$tool" >/dev/null || { echo "kill-harness: needs $tool" >&2; exit 64; }
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
EXAMPLES="$ROOT/examples"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kill-harness.XXXXXX")"
SESSION_NAME="$(date -u +%Y%m%d-%H%M%S)-$$"
FAILURES="${KILL_FAILURES:-/tmp/kill-failures}/$SESSION_NAME"   # created on the first failure
LOG="${KILL_LOG:-${TMPDIR:-/tmp}/kill-harness-$SESSION_NAME.log}"
: > "$LOG" || { echo "kill-harness: cannot write $LOG" >&2; exit 64; }
cleanup() { [ "${KILL_KEEP_WORK:-0}" = 1 ] || rm -rf "$WORK"; }
trap cleanup EXIT

SEED="${KILL_SEED:-$(( $(date +%s) % 32768 ))}"
RANDOM=$SEED

export ROLLOUT_ACTOR='Kill Harness <kill@example.com>'
export NO_COLOR=1
unset ROLLOUT_NOW ROLLOUT_REPO
export GIT_CONFIG_NOSYSTEM=1

say() { printf '%s\n' "$*"; printf '%s\n' "$*" >> "$LOG"; }
log() { printf '%s\n' "$*" >> "$LOG"; }
die() { echo "kill-harness: $*" >&2; exit 70; }
now_us() { local t=${EPOCHREALTIME/./}; echo "$((10#$t))"; }
ms() { printf '%d.%d' $(($1 / 1000)) $((($1 % 1000) / 100)); }   # microseconds -> "12.3"
rand30() { echo $(( (RANDOM << 15) | RANDOM )); }
problems_of() { sed -n 's/^  //p' <<< "$1" | sort -u | tr '\n' ' '; }   # rollout verify's problem lines, once each

# ---------------------------------------------------------------------------------------------
# Inputs and the base repository.

IN="$WORK/in"
BASE="$WORK/base"
mkdir -p "$IN" "$BASE"
say "kill-harness: $BIN, $RUNS runs, seed $SEED, scratch $WORK"
BIN_SOURCE="$(git -C "$(dirname "$BIN")/../.." rev-parse --short HEAD 2>/dev/null || echo 'unknown')"
say "  binary: $("$BIN" --version 2>/dev/null || echo 'rollout ?'), built from $(cd "$(dirname "$BIN")/../.." && pwd) at $BIN_SOURCE; examples from $ROOT"

python3 - "$IN" <<'PY' || die "cannot generate the inputs"
import json, sys
out = sys.argv[1]
def pack(locale, version, keys, path):
    strings = {f"gen.section{i // 1000:03d}.key{i:05d}":
               f"Generated string {i} for {locale}, long enough to make the pack heavy: " + "lorem ipsum dolor sit amet " * 3
               for i in range(keys)}
    strings["home.title"] = "Welcome"
    doc = {"locale": locale, "contentVersion": version, "minAppVersion": "4.2.0", "schemaVersion": 2,
           "fallbackLocale": "en-US", "strings": strings}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=2)
pack("de-DE", 1, 5000, f"{out}/de-DE@1.json")     # in the base, completed after the previous site: publish writes it
pack("fr-FR", 1, 12000, f"{out}/fr-FR@1.json")    # the large pack-add runs add it with vi-VN@3
regions = ["TR", "DE", "CY", "NL", "AT", "GB"]
versions = ["4.8.1", "4.8.2", "4.9.0", "4.9.1"]
with open(f"{out}/big-crashes.csv", "w") as f:    # October: no overlap with examples/metrics (November)
    f.write("date,locale,pack,region,app_version,sessions,crashes\n")
    for i in range(300000):
        f.write(f"2026-10-{1 + i % 28:02d},tr-TR,tr-TR@{17 + i % 2},{regions[i % 6]},{versions[(i // 7) % 4]},{100 + i % 50},{i % 3}\n")
PY

base() { ROLLOUT_REPO="$BASE/repo" "$BIN" "$@" >> "$LOG" 2>&1 || die "base: rollout $* failed (see $LOG)"; }
ROLLOUT_REPO= "$BIN" init "$BASE/repo" >> "$LOG" 2>&1 || die "base: init failed"
base pack add "$EXAMPLES/packs/en-US@1.json" "$EXAMPLES/packs/tr@1.json" "$EXAMPLES/packs/tr-TR@17.json" \
  "$EXAMPLES/packs/tr-TR@18.json" "$IN/de-DE@1.json" --reason 'kill harness base'
for pack in en-US@1 tr@1 tr-TR@17; do base promote "$pack" --to 100% --reason 'kill harness baseline'; done
KEY="$BASE/signing.key"
PUBLIC_KEY="$(ROLLOUT_REPO="$BASE/repo" "$BIN" keys generate --out "$KEY" --json | sed -n 's/.*"publicKey": "\([^"]*\)".*/\1/p')"
[ -n "$PUBLIC_KEY" ] || die "base: keys generate printed no public key"
base publish --out "$BASE/site" --key "$KEY"
base promote de-DE@1 --to 100% --reason 'kill harness: completed after the previous site'
base promote tr-TR@18 --to 10% --region TR --reason 'kill harness: staged for the revert runs'
ROLLOUT_REPO="$BASE/repo" "$BIN" verify >> "$LOG" 2>&1 || die "base: verify failed"
git --git-dir "$BASE/repo" fsck --strict --no-dangling >> "$LOG" 2>&1 || die "base: git fsck failed"
BEFORE="$(git --git-dir "$BASE/repo" rev-parse refs/heads/main)"
site_sums() { (cd "$1" 2>/dev/null && find . -type f ! -name '.dat.nosync*' -print0 | sort -z | xargs -0 -r sha256sum); }
site_sums "$BASE/site" > "$BASE/site.sums"
say "  base: $(git --git-dir "$BASE/repo" rev-list --count refs/heads/main) commits, tip ${BEFORE:0:12}, previous site $(wc -l < "$BASE/site.sums") files, key $PUBLIC_KEY"

# ---------------------------------------------------------------------------------------------
# The operations. Each run of OP alternates between its variants.

OPS=(pack-add promote ingest revert publish)
declare -A VARIANTS=(
  [pack-add]="pack-add:vi-VN pack-add:vi-VN+fr-FR"
  [promote]="promote:tr-TR@18-50%"
  [ingest]="ingest:example-csv ingest:12MB-csv"
  [revert]="revert:tr-TR"
  [publish]="publish:update publish:fresh"
)
declare -A ACTION=([pack-add]=pack-add [promote]=promote [ingest]=metrics-ingest [revert]=revert [publish]=publish)
ALL_VARIANTS=()
for op in "${OPS[@]}"; do for v in ${VARIANTS[$op]}; do ALL_VARIANTS+=("$v"); done; done

# command_for VARIANT RUNDIR: sets CMD (the rollout arguments).
command_for() {
  case "$1" in
    pack-add:vi-VN) CMD=(pack add "$EXAMPLES/packs/vi-VN@3.json" --reason 'kill harness') ;;
    pack-add:vi-VN+fr-FR) CMD=(pack add "$EXAMPLES/packs/vi-VN@3.json" "$IN/fr-FR@1.json" --reason 'kill harness') ;;
    promote:tr-TR@18-50%) CMD=(promote tr-TR@18 --to 50% --region TR --force --reason 'kill harness') ;;
    ingest:example-csv) CMD=(metrics ingest --kind crash "$EXAMPLES/metrics/crashes-healthy.csv") ;;
    ingest:12MB-csv) CMD=(metrics ingest --kind crash "$IN/big-crashes.csv") ;;
    revert:tr-TR) CMD=(revert tr-TR --reason 'kill harness') ;;
    publish:update|publish:fresh) CMD=(publish --out "$2/site" --key "$KEY") ;;
    *) die "unknown variant $1" ;;
  esac
}

# fresh RUNDIR VARIANT: a new copy of the base (and of the previous site for publish:update).
fresh() {
  rm -rf "$1"
  mkdir -p "$1"
  cp -a "$BASE/repo" "$1/repo"
  [ "$2" = publish:update ] && cp -a "$BASE/site" "$1/site"
  return 0
}

# Measure every variant unkilled (one warm-up, then the median of 5), to scale the kill delays.
declare -A DURATION
declare -A MEASURED
for v in "${ALL_VARIANTS[@]}"; do
  samples=()
  for k in 0 1 2 3 4 5; do
    fresh "$WORK/measure" "$v"
    command_for "$v" "$WORK/measure"
    t0=$(now_us)
    ROLLOUT_REPO="$WORK/measure/repo" "$BIN" "${CMD[@]}" >> "$LOG" 2>&1 || die "measuring $v: rollout ${CMD[*]} failed"
    [ "$k" = 0 ] || samples+=($(( $(now_us) - t0 )))
  done
  DURATION[$v]=$(printf '%s\n' "${samples[@]}" | sort -n | sed -n 3p)
  MEASURED[$v]=${DURATION[$v]}
  say "  $v: unkilled $(ms "${DURATION[$v]}") ms (median of: $(for s in "${samples[@]}"; do printf '%s ' "$(ms "$s")"; done)ms); kill delays uniform in 0..$(ms $(( DURATION[$v] * 11 / 10 ))) ms"
done
rm -rf "$WORK/measure"

# ---------------------------------------------------------------------------------------------
# Counters, per variant.

declare -A N LANDED FINISHED OUT_BEFORE OUT_AFTER SITE_PREV SITE_DONE SITE_PARTIAL LOCKS CLEARED OPLOCK TEMPS FAILED FSCKNOTE
for v in "${ALL_VARIANTS[@]}"; do
  for c in N LANDED FINISHED OUT_BEFORE OUT_AFTER SITE_PREV SITE_DONE SITE_PARTIAL LOCKS CLEARED OPLOCK TEMPS FAILED FSCKNOTE; do
    declare -n ref=$c; ref[$v]=0; unset -n ref
  done
done
declare -A LOCK_KINDS=() PARTIAL_KINDS=() TEMP_KINDS=() FAILURE_KINDS=()
FAILURE_LIST=()
bump() { declare -n ref=$1; ref[$2]=$(( ${ref[$2]:-0} + ${3:-1} )); unset -n ref; }

# ---------------------------------------------------------------------------------------------
# One run.

RUN="$WORK/run"
run_once() {
  local i=$1 op=$2 v=$3
  local repo="$RUN/repo" site="$RUN/site" why=() notes=()
  fresh "$RUN" "$v"
  command_for "$v" "$RUN"
  export ROLLOUT_REPO="$repo"

  # Start it, kill it.
  local span=$(( DURATION[$v] * 11 / 10 )) delay pid rc
  delay=$(( $(rand30) % (span + 1) ))
  "$BIN" "${CMD[@]}" > "$RUN/op.out" 2>&1 &
  pid=$!
  sleep "$((delay / 1000000)).$(printf '%06d' $((delay % 1000000)))"
  kill -KILL "$pid" 2>/dev/null
  { wait "$pid"; rc=$?; } 2>/dev/null
  bump N "$v"
  local landed=0
  if [ "$rc" -eq 137 ]; then landed=1; bump LANDED "$v"; else bump FINISHED "$v"; fi
  [ "$landed" = 1 ] || [ "$rc" -eq 0 ] || why+=("the unkilled operation exited $rc: $(tr '\n' ' ' < "$RUN/op.out")")

  # The state the kill left, kept as evidence should this run fail (the checks below change it).
  mkdir -p "$RUN/as-killed"
  cp -a "$repo" "$RUN/as-killed/repo"
  [ -d "$site" ] && cp -a "$site" "$RUN/as-killed/site"

  # Leftovers: lock files and temporary files, before anything else touches the directory.
  local locks_found temps
  locks_found="$(cd "$repo" && find . -name '*.lock' | sed 's|^\./||' | sort)"
  temps="$( (cd "$repo" && find . \( -name 'tmp_object_git2_*' -o -name '.dat.nosync*' \) | sed 's|^\./|repo/|';
            [ -d "$site" ] && cd "$site" && find . -name '.dat.nosync*' | sed 's|^\./|site/|') | sort)"
  if [ -n "$temps" ]; then
    bump TEMPS "$v" "$(wc -l <<< "$temps")"
    while read -r t; do bump TEMP_KINDS "$(sed -e 's/tmp_object_git2_.*/tmp_object_git2_*/' -e 's/\.dat\.nosync.*/.dat.nosync*/' -e 's|/packs/[^/]*/|/packs/*/|' <<< "$t")"; done <<< "$temps"
    notes+=("temporary files left: $(tr '\n' ' ' <<< "$temps")")
  fi

  # 1. rollout verify (clearing reported stale locks).
  local vout vrc reported cmd lockpath
  vout="$("$BIN" verify 2>&1)"; vrc=$?
  reported="$(sed -n 's/^stale lock? .*clear it with: \(rm .*\)$/\1/p' <<< "$vout")"
  local reported_paths=""
  if [ -n "$reported" ]; then
    # The operation itself, run while the lock is there, must give up with 75 and name the same rm.
    local lout lrc
    lout="$("$BIN" "${CMD[@]}" 2>&1)"; lrc=$?
    if [ "$op" != publish ]; then
      if [ "$lrc" -eq 75 ] && grep -qF "remove it with $(head -1 <<< "$reported")" <<< "$lout"; then
        bump OPLOCK "$v"
      else
        why+=("with the stale lock in place, running it again exited $lrc without naming the lock: $(tr '\n' ' ' <<< "$lout")")
      fi
    fi
    while read -r cmd; do
      lockpath="${cmd#rm }"
      reported_paths+="${lockpath#"$repo"/}"$'\n'
      bump LOCKS "$v"
      bump LOCK_KINDS "${lockpath#"$repo"/}"
      if [ "${cmd:0:3}" = "rm " ] && [ "${lockpath#"$repo"/}" != "$lockpath" ] && sh -c "$cmd" && [ ! -e "$lockpath" ]; then
        bump CLEARED "$v"
        notes+=("stale lock reported and cleared: $cmd")
      else
        why+=("verify reported a lock but its command did not clear it: $cmd")
      fi
    done <<< "$reported"
    local vout1="$vout"
    vout="$("$BIN" verify 2>&1)"; vrc=$?
    vout="$vout1"$'\n'"--- after clearing the lock(s):"$'\n'"$vout"
  fi
  local unreported
  unreported="$(comm -23 <(printf '%s\n' "$locks_found" | sed '/^$/d') <(printf '%s' "$reported_paths" | sed '/^$/d' | sort))"
  [ -z "$unreported" ] || why+=("lock file(s) verify did not report: $(tr '\n' ' ' <<< "$unreported")")
  [ "$vrc" -eq 0 ] || why+=("rollout verify exited $vrc: $(problems_of "$vout")")

  # 2. git fsck.
  local fout frc
  fout="$(git --git-dir "$repo" fsck --strict --no-dangling 2>&1)"; frc=$?
  [ "$frc" -eq 0 ] || why+=("git fsck exited $frc: $(tr '\n' ' ' <<< "$fout")")
  if [ "$frc" -eq 0 ] && [ -n "$(grep -v '^Checking' <<< "$fout")" ]; then bump FSCKNOTE "$v"; notes+=("fsck said: $(tr '\n' ' ' <<< "$fout")"); fi

  # 3. before or after, nothing in between.
  local tip parents action outcome=""
  tip="$(git --git-dir "$repo" rev-parse --verify -q refs/heads/main)"
  if [ "$tip" = "$BEFORE" ]; then
    outcome=before
  elif [ -n "$tip" ]; then
    parents="$(git --git-dir "$repo" log -1 --format=%P "$tip")"
    action="$(git --git-dir "$repo" log -1 --format='%(trailers:key=Rollout-Action,valueonly,separator=%x20)' "$tip" | sed '/^$/d')"
    if [ "$parents" = "$BEFORE" ] && [ -n "${ACTION[$op]}" ] && [ "$action" = "${ACTION[$op]}" ]; then
      outcome=after
    else
      why+=("in-between state: refs/heads/main is ${tip:0:12} (parents ${parents:0:12}, action '$action'), neither the before-tip ${BEFORE:0:12} nor one ${ACTION[$op]:-<none>} commit on it")
    fi
  else
    why+=("refs/heads/main is gone")
  fi
  [ "$outcome" = before ] && bump OUT_BEFORE "$v"
  [ "$outcome" = after ] && bump OUT_AFTER "$v"
  if [ "$landed" = 0 ] && [ "$rc" -eq 0 ] && [ "$outcome" != after ]; then
    why+=("the operation finished with exit 0 but the state is '$outcome', not after")
  fi

  # 4. publish: previous site, complete site, or partial (the next publish completes it).
  local site_outcome="" sout
  if [ "$op" = publish ]; then
    local now_sums prev_sums
    now_sums="$(site_sums "$site")"
    if [ "$v" = publish:update ]; then prev_sums="$(cat "$BASE/site.sums")"; else prev_sums=""; fi
    if [ "$now_sums" = "$prev_sums" ]; then
      site_outcome=previous; bump SITE_PREV "$v"
    elif sout="$("$BIN" verify-site "$site" --public-key "$PUBLIC_KEY" 2>&1)"; then
      site_outcome=complete; bump SITE_DONE "$v"
    else
      site_outcome=partial; bump SITE_PARTIAL "$v"
      # What a device would say about it (no repository to compare with).
      local dout kind
      dout="$(cd / && env -u ROLLOUT_REPO "$BIN" verify-site "$site" --public-key "$PUBLIC_KEY" 2>&1)"
      if [ $? -eq 0 ]; then
        kind="device accepts it (older index, all it names is present)"
      else
        kind="device refuses: $(sed -n '2p' <<< "$dout" | sed -e 's/^ *//' -e 's/ does not verify with.*/ does not verify/' -e 's|packs/[^:]*|packs/…|')"
      fi
      bump PARTIAL_KINDS "$v: $kind"
      notes+=("partial site: $kind")
    fi
  fi

  # 5. the same operation again, unkilled: the repository is usable.
  local rout rrc
  # A later clock, as when someone retries by hand: the retry never recreates the killed commit's id.
  local t0 took later
  later="$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
  t0=$(now_us)
  rout="$(ROLLOUT_NOW="$later" "$BIN" "${CMD[@]}" 2>&1)"; rrc=$?
  took=$(( $(now_us) - t0 ))
  # From the before-state this is the whole operation, unkilled: let the delay scale follow the
  # machine's load (other work on a shared machine changes durations by 2x and more).
  if [ "$rrc" -eq 0 ] && [ "$outcome" = before ]; then DURATION[$v]=$(( (DURATION[$v] * 3 + took) / 4 )); fi
  if [ "$rrc" -ne 0 ] && ! { [ "$op" = revert ] && [ "$outcome" = after ] && [ "$rrc" -eq 1 ]; }; then
    why+=("running it again exited $rrc: $(tr '\n' ' ' <<< "$rout")")
  fi
  if [ "$op" = publish ]; then
    sout="$("$BIN" verify-site "$site" --public-key "$PUBLIC_KEY" 2>&1)" || why+=("after publishing again, verify-site fails: $(tr '\n' ' ' <<< "$sout")")
  fi
  local vout2
  vout2="$("$BIN" verify 2>&1)" || why+=("after running it again, rollout verify still exits 1: $(problems_of "$vout2")")
  git --git-dir "$repo" fsck --strict --no-dangling > /dev/null 2>&1 || why+=("after running it again, git fsck fails")

  local line
  line="run $(printf '%4d' "$i") $(printf '%-22s' "$v") delay $(printf '%7s' "$(ms "$delay")") ms  $([ "$landed" = 1 ] && echo 'killed  ' || echo "exit $rc  ")  state ${outcome:-???}${site_outcome:+, site $site_outcome}"
  for n in "${notes[@]}"; do line+=$'\n'"      $n"; done
  if [ ${#why[@]} -gt 0 ]; then
    bump FAILED "$v"
    # The known way to get here: killed inside libgit2's ref update, after it appended the reflog
    # entry for the new commit and before it renamed refs/heads/main.lock over refs/heads/main.
    local diagnosis="" orphan
    orphan="$(tail -1 "$RUN/as-killed/repo/logs/refs/heads/main" | cut -d' ' -f2)"
    if [ "$orphan" != "$BEFORE" ] && [ "$outcome" = before ] && [ -n "$orphan" ] \
       && [ "$(git --git-dir "$repo" log -1 --format=%P "$orphan" 2>/dev/null)" = "$BEFORE" ]; then
      diagnosis="killed between the reflog append and the ref rename: logs/refs/heads/main ends with ${orphan:0:12} (a complete ${ACTION[$op]} commit on the before-tip), refs/heads/main is still the before-tip${locks_found:+, and $locks_found was left}"
    fi
    local keep="$FAILURES/run-$(printf '%04d' "$i")-${v//[:@%+]/_}"
    mkdir -p "$keep"
    cp -a "$RUN/as-killed" "$keep/as-killed"
    mkdir -p "$keep/after-checks"
    cp -a "$repo" "$keep/after-checks/repo"
    [ -d "$site" ] && cp -a "$site" "$keep/after-checks/site"
    {
      echo "operation: rollout ${CMD[*]}"
      echo "variant: $v; kill delay: $(ms "$delay") ms of a measured $(ms "${DURATION[$v]}") ms; $([ "$landed" = 1 ] && echo 'the kill landed (exit 137)' || echo "finished before the kill (exit $rc)")"
      echo "before-tip: $BEFORE; state: ${outcome:-neither}"
      echo "as-killed/: the repository (and site) right after the kill; after-checks/: after the lock was cleared and the operation re-run"
      [ -z "$diagnosis" ] || echo "diagnosis: $diagnosis"
      echo "lock files found right after the kill: ${locks_found:-none}"
      echo "temporary files right after the kill: ${temps:-none}"
      echo; echo "FAILED because:"; for w in "${why[@]}"; do echo "  - $w"; done
      echo; echo "rollout verify (right after the kill):"; echo "$vout"
      echo; echo "git fsck --strict --no-dangling (exit $frc):"; echo "$fout"
      echo; echo "killed operation's output:"; cat "$RUN/op.out"
      echo; echo "run again (exit $rrc):"; echo "$rout"
      echo; echo "reflog right after the kill (logs/refs/heads/main, newest last):"; tail -3 "$RUN/as-killed/repo/logs/refs/heads/main"
      echo; echo "refs/heads/main right after the kill: $(cat "$RUN/as-killed/repo/refs/heads/main")"
    } > "$keep/why.txt"
    for w in "${why[@]}"; do
      line+=$'\n'"      FAILURE: $w"
      bump FAILURE_KINDS "$v: $(sed -e 's/[0-9a-f]\{12,40\}/<id>/g' -e 's/ ("[^"]*")//g' -e 's|/tmp/[^ ]*|…|g' <<< "$w" | cut -c1-160)"
    done
    [ -z "$diagnosis" ] || line+=$'\n'"      diagnosis: $diagnosis"
    line+=$'\n'"      kept in $keep"
    FAILURE_LIST+=("run $i ($v, delay $(ms "$delay") ms of $(ms "${DURATION[$v]}")): $(cut -c1-220 <<< "${why[0]}")${diagnosis:+ -- $diagnosis} [$keep]")
    say "$line"
  else
    log "$line"
    [ ${#notes[@]} -eq 0 ] || [ -z "${KILL_VERBOSE:-}" ] || say "$line"
  fi
  unset ROLLOUT_REPO
}

# ---------------------------------------------------------------------------------------------
# The runs.

declare -A TURN
START=$(now_us)
for ((i = 1; i <= RUNS; i++)); do
  op="${OPS[$(( (i - 1) % ${#OPS[@]} ))]}"
  read -r -a vs <<< "${VARIANTS[$op]}"
  t=${TURN[$op]:-0}; TURN[$op]=$((t + 1))
  run_once "$i" "$op" "${vs[$((t % ${#vs[@]}))]}"
  if (( i % 50 == 0 )); then
    failed=0; for v in "${ALL_VARIANTS[@]}"; do failed=$((failed + FAILED[$v])); done
    say "  ... $i/$RUNS runs, $failed failed, $(( ($(now_us) - START) / 1000000 )) s"
  fi
done
ELAPSED=$(( ($(now_us) - START) / 1000000 ))

# ---------------------------------------------------------------------------------------------
# Summary.

say ""
say "Kill harness: $RUNS runs in ${ELAPSED} s (seed $SEED), $BIN (source $BIN_SOURCE), $(date -u +%Y-%m-%d)"
say ""
say "| operation | unkilled ms (first → last) | runs | kill landed | finished first | before | after | site: previous / complete / partial | stale locks: verify reported / cleared / the operation named it | temp files left | failures |"
say "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|"
T=(0 0 0 0 0 0 0 0 0 0 0 0 0)
for v in "${ALL_VARIANTS[@]}"; do
  site="-"
  [ "${v%%:*}" = publish ] && site="${SITE_PREV[$v]} / ${SITE_DONE[$v]} / ${SITE_PARTIAL[$v]}"
  say "| $v | $(ms "${MEASURED[$v]}") → $(ms "${DURATION[$v]}") | ${N[$v]} | ${LANDED[$v]} | ${FINISHED[$v]} | ${OUT_BEFORE[$v]} | ${OUT_AFTER[$v]} | $site | ${LOCKS[$v]} / ${CLEARED[$v]} / ${OPLOCK[$v]} | ${TEMPS[$v]} | ${FAILED[$v]} |"
  k=0
  for c in N LANDED FINISHED OUT_BEFORE OUT_AFTER SITE_PREV SITE_DONE SITE_PARTIAL LOCKS CLEARED OPLOCK TEMPS FAILED; do
    declare -n ref=$c; T[$k]=$(( T[k] + ref[$v] )); unset -n ref; k=$((k + 1))
  done
done
say "| **total** | | **${T[0]}** | **${T[1]}** | **${T[2]}** | **${T[3]}** | **${T[4]}** | ${T[5]} / ${T[6]} / ${T[7]} | ${T[8]} / ${T[9]} / ${T[10]} | ${T[11]} | **${T[12]}** |"
say ""
if [ ${#LOCK_KINDS[@]} -gt 0 ]; then
  say "Stale locks reported by rollout verify (each removed with the rm command it printed):"
  for k in "${!LOCK_KINDS[@]}"; do printf '%s\n' "$k"; done | sort | while read -r k; do say "  ${LOCK_KINDS[$k]}x $k"; done
fi
if [ ${#PARTIAL_KINDS[@]} -gt 0 ]; then
  say "Partial sites a killed publish left, and what a device would say about each (the next publish completed every one not listed under FAILURES):"
  for k in "${!PARTIAL_KINDS[@]}"; do printf '%s\n' "$k"; done | sort | while read -r k; do say "  ${PARTIAL_KINDS[$k]}x $k"; done
fi
if [ ${#TEMP_KINDS[@]} -gt 0 ]; then
  say "Temporary files left by killed runs (rollout never removes them; verify, verify-site and fsck do not mention them):"
  for k in "${!TEMP_KINDS[@]}"; do printf '%s\n' "$k"; done | sort | while read -r k; do say "  ${TEMP_KINDS[$k]}x $k"; done
fi
fsck_notes=0; for v in "${ALL_VARIANTS[@]}"; do fsck_notes=$((fsck_notes + FSCKNOTE[$v])); done
[ "$fsck_notes" -eq 0 ] || say "git fsck exited 0 but printed something in $fsck_notes run(s) (see $LOG)"
say ""
if [ "${T[12]}" -gt 0 ]; then
  say "FAILURES: ${T[12]} run(s) left a repository that fails verify or fsck, an in-between state, an unreported lock, or an unusable repository:"
  for k in "${!FAILURE_KINDS[@]}"; do printf '%s\n' "$k"; done | sort | while read -r k; do say "  ${FAILURE_KINDS[$k]}x $k"; done
  say "First failures (each kept with why.txt):"
  for f in "${FAILURE_LIST[@]:0:10}"; do say "  $f"; done
  cp "$LOG" "$FAILURES/runs.log" 2>/dev/null
  say "Evidence: $FAILURES   Log: $LOG"
  exit 1
fi
say "No failures: every killed repository passed rollout verify and git fsck and was before or after its operation.   Log: $LOG"
exit 0
