#!/usr/bin/env bash
# Import real catalogs into fresh repositories and print one markdown table row per
# catalog and mode (plain, --skip-invalid): exit code, strings counted in the source,
# packs and strings imported, strings left out by reason class, files left out,
# wall time and peak RSS (from /usr/bin/time -v), and after --skip-invalid the number of
# stored strings whose text (or, for plurals and variations, whose non-ASCII spaces, format
# characters or combining marks) differs from what the platform shows for the source's
# (scripts/import-survey-check.py; details in OUT/*.check, with a note when an i18next
# catalog looks written for i18next-icu, which the check cannot compare).
#
# usage: scripts/import-survey.sh CATALOGS [ROLLOUT] [OUT]
#   CATALOGS  a folder laid out as CATALOGS/<format>/<app>/<catalog path>, format one of
#             android, xcstrings, i18next, arb. CATALOGS/<format>/<app>/.source may hold
#             "owner/repo COMMIT PATH"; PATH is then the catalog, else it is found:
#             android the shallowest res/ folder, xcstrings the .xcstrings file, i18next
#             the shallowest locales/ folder, arb the folder holding the most .arb files.
#   ROLLOUT   the rollout binary (default .build/debug/rollout)
#   OUT       where each run's stdout, stderr and time report are kept (default a temp dir)
#
# The catalogs are third-party files: keep them out of the repository.
set -euo pipefail

catalogs=${1:?usage: scripts/import-survey.sh CATALOGS [ROLLOUT] [OUT]}
rollout=$(realpath "${2:-.build/debug/rollout}")
out=${3:-$(mktemp -d /tmp/import-survey.XXXXXX)}
mkdir -p "$out"
[ -x /usr/bin/time ] || { echo "install GNU time: apt-get install time" >&2; exit 69; }
here=$(cd "$(dirname "$0")" && pwd)

catalog_path() { # format app-dir
  local format=$1 dir=$2
  if [ -f "$dir/.source" ]; then
    echo "$dir/$(awk '{print $3}' "$dir/.source")"
    return
  fi
  case $format in
    android) find "$dir" -type d -name res | awk '{print length, $0}' | sort -n | head -1 | cut -d' ' -f2- ;;
    xcstrings) find "$dir" -name '*.xcstrings' | head -1 ;;
    i18next) find "$dir" -type d -name locales | awk '{print length, $0}' | sort -n | head -1 | cut -d' ' -f2- ;;
    arb) find "$dir" -name '*.arb' -printf '%h\n' | sort | uniq -c | sort -rn | head -1 | awk '{print $2}' ;;
  esac
}

echo "| format | app | mode | exit | locales / strings in the source | packs, strings in | left out | left out by class | files left out | time | peak RSS | text changed (of compared) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for formatdir in "$catalogs"/*/; do
  format=$(basename "$formatdir")
  for appdir in "$formatdir"*/; do
    app=$(basename "$appdir")
    path=$(catalog_path "$format" "${appdir%/}")
    [ -n "$path" ] && [ -e "$path" ] || { echo "| $format | $app | - | no catalog found | | | | | | | |"; continue; }
    for mode in plain skip-invalid; do
      repo=$(mktemp -d /tmp/import-survey-repo.XXXXXX)
      "$rollout" init "$repo" >/dev/null
      flags=(--content-version 1 --min-app-version 1.0 --json)
      [ "$mode" = skip-invalid ] && flags+=(--skip-invalid)
      base="$out/$format.$app.$mode"
      set +e
      (cd "$repo" && /usr/bin/time -v -o "$base.time" \
        "$rollout" --repo "$repo" --offline pack import "$path" "${flags[@]}" >"$base.json" 2>"$base.err")
      code=$?
      set -e
      if [ "$mode" = skip-invalid ] && [ "$code" = 0 ]; then
        python3 "$here/import-survey-check.py" "$format" "$path" "$repo" "$rollout" >"$base.check" 2>/dev/null || true
      fi
      rm -rf "$repo"
      python3 "$here/import-survey-row.py" "$format" "$app" "$mode" "$code" "$path" "$base"
    done
  done
done
echo "outputs: $out" >&2
