#!/usr/bin/env bash
# Proof that the docs' console blocks are checked (docs/architecture.md, "Docs are tests"): in a copy of
# the pages, one word of one output line is changed in every page that has console blocks (a different
# line each run, from SEED), and `transcripts check` must report every page. Prints one line per page.
# Usage: scripts/docs-mutations.sh [SEED]   (builds first: make build)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SEED="${1:-1}"
BIN="$ROOT/.build/debug"
COPY="$(mktemp -d "${TMPDIR:-/tmp}/docs-mutations.XXXXXX")"
trap 'rm -rf "$COPY"' EXIT
mkdir -p "$COPY/docs"
cp "$ROOT/README.md" "$COPY/"
cp "$ROOT"/docs/*.md "$COPY/docs/"
cp -R "$ROOT/examples" "$COPY/examples"
ln -s "$ROOT/scripts" "$COPY/scripts"
# scripts/android-device finds its jar and sources from where it is called.
ln -s "$ROOT/.build" "$COPY/.build"
ln -s "$ROOT/android" "$COPY/android"
# One output line per page (not a command, not a placeholder-only line), its first word of letters
# replaced by "mutated".
python3 - "$COPY" "$SEED" <<'PY'
import glob, random, re, sys
root, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
for path in sorted(glob.glob(root + "/docs/*.md")) + [root + "/README.md"]:
    lines = open(path, encoding="utf-8").read().split("\n")
    candidates, inside = [], False
    for i, line in enumerate(lines):
        if line.strip().startswith("```"):
            inside = line.strip() == "```console"
            continue
        if inside and not line.startswith("$ ") and re.search(r"[A-Za-z]{3,}", line):
            candidates.append(i)
    if not candidates:
        continue
    i = rng.choice(candidates)
    lines[i] = re.sub(r"[A-Za-z]{3,}", "mutated", lines[i], count=1)
    open(path, "w", encoding="utf-8").write("\n".join(lines))
    print(f"{path[len(root) + 1:]}:{i + 1}: changed one word", file=sys.stderr)
PY
cd "$COPY"
"$BIN/transcripts" check --bin "$BIN" > report.txt || true
cp report.txt "${DOCS_MUTATIONS_REPORT:-/dev/null}"
missed=0
for page in README.md docs/*.md; do
  grep -q '^```console' "$page" || continue
  if grep -q "^$page:[0-9]*: " report.txt; then echo "$page: caught"; else echo "$page: MISSED"; missed=$((missed + 1)); fi
done
tail -1 report.txt
[ "$missed" -eq 0 ] || cat report.txt
[ "$missed" -eq 0 ]
