#!/usr/bin/env bash
# bench/pack-add: VERSIONS successive versions of a KEYS-key tr-TR pack, about CHANGE of the values
# changed each time, each stored by its own `rollout pack add` process, as users run it.
#
# Usage: bench/pack-add/run.sh [ROLLOUT_BINARY]
#   ROLLOUT_BINARY  default: a release build (swift build -c release $SWIFT_BUILD_FLAGS)
#   VERSIONS=1000 KEYS=5000 CHANGE=0.01   size of the run (smaller for a quick check)
#
# The peer, run in the same invocation and interleaved version by version, is plain git storing the
# same file at the same path in a second bare repository: hash-object -w, update-index, write-tree,
# commit-tree, update-ref. Every figure is reported next to the peer's, because machines are noisy.
#
# Goals (one GOAL line each at the end): the repository as rollout leaves it, with no git run by
# anyone, is at most 1.5x its size after `git gc --aggressive` on a copy (rollout packs on its own);
# the mean of the last 100 rollout adds is at most 1.5x the mean of the first 100 (time per add stays
# flat as history grows, automatic packs included). At full size (VERSIONS >= 1000) exits 1 when a
# goal fails; smaller runs (make bench: VERSIONS=100) only print. Exits 2 when something failed outright.
# Writes bench/out/pack-add-<date>.txt (summary and every per-version time, with the raw .meta.tsv and
# .times.tsv beside it) and prints the summary.
set -euo pipefail
export LC_ALL=C   # EPOCHREALTIME with a '.' decimal point

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VERSIONS="${VERSIONS:-1000}"
KEYS="${KEYS:-5000}"
CHANGE="${CHANGE:-0.01}"

if [ $# -ge 1 ] && [ -n "$1" ]; then
  BIN="$1"
else
  # shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags, as in the Makefile
  (cd "$ROOT" && swift build -c release ${SWIFT_BUILD_FLAGS:-} >&2)
  # shellcheck disable=SC2086
  BIN="$(cd "$ROOT" && swift build -c release ${SWIFT_BUILD_FLAGS:-} --show-bin-path)/rollout"
fi
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
[ -x "$BIN" ] || { echo "run.sh: $BIN is not an executable rollout binary" >&2; exit 2; }
for tool in git python3 du; do
  command -v "$tool" >/dev/null || { echo "run.sh: needs $tool" >&2; exit 2; }
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-pack-add.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PACKS="$WORK/packs"
REPO="$WORK/rollout.git"
PEER="$WORK/peer.git"
TIMES="$WORK/times.tsv"
META="$WORK/meta.tsv"

# Who acts, for rollout and for git: no user config is needed.
export ROLLOUT_ACTOR="bench <bench@example.invalid>"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
unset ROLLOUT_REPO ROLLOUT_NOW GIT_DIR GIT_INDEX_FILE

now_us() { local t="$EPOCHREALTIME"; echo "${t//[^0-9]/}"; }
meta() { printf '%s\t%s\n' "$1" "$2" >>"$META"; }
fail() { echo "run.sh: $*" >&2; exit 2; }

: >"$META"
meta date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
meta command "bench/pack-add/run.sh $BIN (VERSIONS=$VERSIONS KEYS=$KEYS CHANGE=$CHANGE)"
meta versions "$VERSIONS"
meta keys "$KEYS"
meta change "$CHANGE"
meta nproc "$(nproc)"
meta cpu "$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//')"
meta memory "$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
meta kernel "$(uname -sr)"
meta rollout "$("$BIN" version 2>/dev/null | head -1)"
meta git "$(git --version)"
meta python "$(python3 --version 2>&1)"
meta commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- Sources 2>/dev/null || echo ' (Sources/ has uncommitted changes)')"

echo "generating en-US@1 and tr-TR@1..$VERSIONS ($KEYS keys, $CHANGE changed per version)" >&2
python3 "$HERE/generate.py" "$PACKS" --versions "$VERSIONS" --keys "$KEYS" --change "$CHANGE" >&2
meta pack_bytes "$(wc -c <"$PACKS/tr-TR@$VERSIONS.json")"

# rollout: a new repository, then the en-US pack every tr-TR pack falls back to (not part of the series).
"$BIN" init "$REPO" >/dev/null || fail "rollout init failed"
t0=$(now_us)
"$BIN" pack add --repo "$REPO" "$PACKS/en-US@1.json" >/dev/null || fail "rollout pack add en-US@1 failed"
t1=$(now_us)
meta rollout_en_us_add_us "$((t1 - t0))"

# The peer: a bare repository holding the same first state (template files and en-US@1), its own index.
git init -q --bare "$PEER"
git -C "$PEER" config core.logAllRefUpdates always   # as rollout init sets it: a reflog entry per commit
export GIT_INDEX_FILE="$WORK/peer.index"
for file in README.md policy.json; do
  blob=$(git --git-dir="$PEER" hash-object -w "$ROOT/repo-template/$file")
  git --git-dir="$PEER" update-index --add --cacheinfo "100644,$blob,$file"
done
blob=$(git --git-dir="$PEER" hash-object -w "$PACKS/en-US@1.json")
git --git-dir="$PEER" update-index --add --cacheinfo "100644,$blob,packs/en-US/1.json"
parent=$(git --git-dir="$PEER" commit-tree "$(git --git-dir="$PEER" write-tree)" -m "seed")
git --git-dir="$PEER" update-ref refs/heads/main "$parent"

echo "timing $VERSIONS rollout pack add runs, each followed by the git plumbing peer" >&2
printf 'version\trollout_us\tgit_us\n' >"$TIMES"
for ((v = 1; v <= VERSIONS; v++)); do
  file="$PACKS/tr-TR@$v.json"

  t0=$(now_us)
  if ! "$BIN" pack add --repo "$REPO" "$file" >"$WORK/add.out" 2>"$WORK/add.err"; then
    cat "$WORK/add.out" "$WORK/add.err" >&2
    fail "rollout pack add tr-TR@$v failed"
  fi
  t1=$(now_us)

  g0=$(now_us)
  blob=$(git --git-dir="$PEER" hash-object -w "$file")
  git --git-dir="$PEER" update-index --add --cacheinfo "100644,$blob,packs/tr-TR/$v.json"
  tree=$(git --git-dir="$PEER" write-tree)
  commit=$(git --git-dir="$PEER" commit-tree "$tree" -p "$parent" -m "pack add tr-TR@$v")
  git --git-dir="$PEER" update-ref -m "pack add tr-TR@$v" refs/heads/main "$commit" "$parent"
  g1=$(now_us)
  parent=$commit

  printf '%d\t%d\t%d\n' "$v" "$((t1 - t0))" "$((g1 - g0))" >>"$TIMES"
  if ((v % 50 == 0)); then echo "  $v/$VERSIONS  rollout $(((t1 - t0) / 1000)) ms  git $(((g1 - g0) / 1000)) ms" >&2; fi
done
unset GIT_INDEX_FILE

# Both repositories must hold the same bytes at the same path, and rollout one commit per add.
# rollout shards by content version (docs/pack-format.md): packs/tr-TR/<version / 1000>/<version>.json.
[ "$(git -C "$REPO" rev-parse "main:packs/tr-TR/$((VERSIONS / 1000))/$VERSIONS.json")" = "$(git -C "$PEER" rev-parse "main:packs/tr-TR/$VERSIONS.json")" ] ||
  fail "rollout stored tr-TR@$VERSIONS with other bytes than the file"
commits=$(git -C "$REPO" rev-list --count main)
[ "$commits" -eq $((VERSIONS + 2)) ] || fail "rollout repository has $commits commits, expected $((VERSIONS + 2))"
meta rollout_commits "$commits"
# Where the bytes are: size on disk by object type (loose: zlib alone; packed: after deltas); and the
# tree that grows with history (rollout's shard packs/tr-TR/0, two entries per version up to 999:
# N.json and N.meta.json; the peer's packs/tr-TR, one entry per version, unbounded).
by_type() {
  git --git-dir="$1" cat-file --batch-all-objects --batch-check='%(objecttype) %(objectsize:disk)' |
    awk '{bytes[$1] += $2; count[$1]++} END {printf "blob %d %d, tree %d %d, commit %d %d", count["blob"], bytes["blob"], count["tree"], bytes["tree"], count["commit"], bytes["commit"]}'
}
meta rollout_loose_by_type "$(by_type "$REPO")"
meta peer_loose_by_type "$(by_type "$PEER")"
meta rollout_locale_tree_bytes "$(git -C "$REPO" cat-file -s "main:packs/tr-TR/0")"
meta peer_locale_tree_bytes "$(git -C "$PEER" cat-file -s "main:packs/tr-TR")"

echo "measuring repository sizes (git gc --aggressive on copies)" >&2
meta rollout_repo_bytes "$(du -sb "$REPO" | cut -f1)"
meta rollout_repo_loose_objects "$(git -C "$REPO" count-objects -v | awk '/^count:/ {print $2}')"
meta rollout_repo_loose_bytes "$(git -C "$REPO" count-objects -v | awk '/^size:/ {print $2 * 1024}')"
meta rollout_repo_packs "$(git -C "$REPO" count-objects -v | awk '/^packs:/ {print $2}')"
meta rollout_repo_pack_bytes "$(git -C "$REPO" count-objects -v | awk '/^size-pack:/ {print $2 * 1024}')"
meta peer_repo_bytes "$(du -sb "$PEER" | cut -f1)"
cp -a "$REPO" "$WORK/rollout-gc.git"
g0=$(now_us)
git -C "$WORK/rollout-gc.git" gc --aggressive --prune=now --quiet
g1=$(now_us)
meta rollout_gc_seconds "$(((g1 - g0) / 1000000))"
meta rollout_gc_bytes "$(du -sb "$WORK/rollout-gc.git" | cut -f1)"
rm -rf "$WORK/rollout-gc.git"
cp -a "$PEER" "$WORK/peer-gc.git"
git -C "$WORK/peer-gc.git" gc --aggressive --prune=now --quiet
meta peer_gc_bytes "$(du -sb "$WORK/peer-gc.git" | cut -f1)"
rm -rf "$WORK/peer-gc.git"

mkdir -p "$ROOT/bench/out"
BASE="$ROOT/bench/out/pack-add-$(date +%Y%m%d-%H%M%S)"
RESULT="$BASE.txt"
# The raw measurements, kept so the summary can be made again: summarize.py BASE.meta.tsv BASE.times.tsv OUT
cp "$META" "$BASE.meta.tsv"
cp "$TIMES" "$BASE.times.tsv"
echo "results: $RESULT" >&2
status=0
python3 "$HERE/summarize.py" "$META" "$TIMES" "$RESULT" || status=$?
exit "$status"
