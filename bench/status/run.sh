#!/usr/bin/env bash
# bench/status: every locale at a glance against one locale at a time.
#
# LOCALES locales (default 40), each with a baseline and a pack staged to 10% of every device, and DAYS
# days of crash and fallback metrics for both packs in four segments. Measured in this run, each the
# median of RUNS:
#   status-all: `rollout status` (every locale, with its health, holds and newest metrics) against
#     `rollout status LOCALE` run once per locale, one process each, as a script looping over the
#     locales would. Goal <= 1x: the overview must cost no more than asking locale by locale.
#   status-all-health (INFO): the same `rollout status` against `rollout health LOCALE` once per
#     locale: the overview judges every locale's health, which `status LOCALE` does not.
#   report-all (INFO): `rollout report --all --out DIR` against `rollout report LOCALE` once per locale.
#
# Usage: bench/status/run.sh [ROLLOUT_BINARY]   LOCALES=40 DAYS=14 RUNS=5
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
LOCALES="${LOCALES:-40}"
DAYS="${DAYS:-14}"
RUNS="${RUNS:-5}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-status.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export ROLLOUT_ACTOR="bench <bench@example.invalid>"
export ROLLOUT_REPO="$WORK/repo.git"
NOW="2026-11-$((2 + DAYS))T09:00:00Z"
if [ "$DAYS" -gt 27 ]; then echo "$0: DAYS must be at most 27" >&2; exit 2; fi

# The locales, their packs and their metrics.
python3 - "$WORK" "$LOCALES" "$DAYS" <<'PY'
import json, os, sys
work, count, days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
languages = ("de fr es it nl pt sv da fi nb pl cs sk hu ro bg el tr ru uk ja ko zh vi th id ms hi bn ta "
             "he ar fa ca hr sl sr lt lv et af am az be bs cy eu gl gu is ka kk km kn ky lo mk ml mn mr my "
             "ne pa si sq sw te ur uz zu").split()
if count > len(languages):
    sys.exit(f"at most {len(languages)} locales")
locales = languages[:count]
os.makedirs(f"{work}/packs")
for locale in locales:
    for version in (1, 2):
        pack = {"contentVersion": version, "locale": locale, "minAppVersion": "4.0.0", "schemaVersion": 2,
                "strings": {f"key.{i}": f"{locale} text {i} v{version}" for i in range(20)}}
        with open(f"{work}/packs/{locale}@{version}.json", "w") as f:
            json.dump(pack, f)
segments = [("TR", "4.8.1"), ("TR", "4.9.0"), ("DE", "4.8.1"), ("US", "5.0.0")]
with open(f"{work}/crashes.csv", "w") as crashes, open(f"{work}/fallbacks.csv", "w") as fallbacks:
    crashes.write("date,pack,region,app_version,sessions,crashes\n")
    fallbacks.write("date,pack,region,app_version,lookups,fallbacks\n")
    for day in range(days):
        date = f"2026-11-{2 + day:02d}"
        for locale in locales:
            for region, version in segments:
                for pack, sessions in ((f"{locale}@1", 90_000), (f"{locale}@2", 10_000)):
                    crashes.write(f"{date},{pack},{region},{version},{sessions},{sessions // 500}\n")
                    fallbacks.write(f"{date},{pack},{region},{version},{sessions * 40},{sessions // 10}\n")
with open(f"{work}/locales", "w") as f:
    f.write("\n".join(locales) + "\n")
PY
mapfile -t locales <"$WORK/locales"

"$BIN" init "$ROLLOUT_REPO" >/dev/null
"$BIN" pack add "$WORK"/packs/*.json >/dev/null
for locale in "${locales[@]}"; do
  ROLLOUT_NOW=2026-11-01T00:00:00Z "$BIN" promote "$locale@1" --to 100% >/dev/null
  ROLLOUT_NOW=2026-11-01T12:00:00Z "$BIN" promote "$locale@2" --to 10% >/dev/null
done
"$BIN" metrics ingest --kind crash "$WORK/crashes.csv" >/dev/null
"$BIN" metrics ingest --kind fallback "$WORK/fallbacks.csv" >/dev/null
export ROLLOUT_NOW="$NOW"

# The overview must say what every locale's health command says.
ROLLOUT_NOW="$NOW" "$BIN" status --json >"$WORK/status.json"
python3 - "$WORK/status.json" "$LOCALES" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["locales"]
assert len(rows) == int(sys.argv[2]), f"{len(rows)} rows"
verdicts = {row["health"] for row in rows}
assert verdicts == {"healthy"}, verdicts
PY

# Milliseconds for one run of each command line (one per argument, split on spaces), run one after another.
each_ms() {
  python3 - "$RUNS" "$@" <<'PY'
import statistics, subprocess, sys, time
runs = int(sys.argv[1]); commands = [c.split(" ") for c in sys.argv[2:]]
times = []
for _ in range(runs):
    t = time.perf_counter()
    for command in commands:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append(time.perf_counter() - t)
print(f"{statistics.median(times) * 1000:.1f}")
PY
}

per_locale() { # words before the locale, words after
  for locale in "${locales[@]}"; do printf '%s\n' "$BIN $1 $locale${2:+ $2}"; done
}
mapfile -t status_each < <(per_locale status)
mapfile -t health_each < <(per_locale health)
mapfile -t report_each < <(per_locale report "--out $WORK/one.html")

all_ms="$(each_ms "$BIN status")"
each_status_ms="$(each_ms "${status_each[@]}")"
each_health_ms="$(each_ms "${health_each[@]}")"
report_all_ms="$(each_ms "$BIN report --all --out $WORK/reports")"
report_each_ms="$(each_ms "${report_each[@]}")"

ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
status_ratio="$(ratio "$all_ms" "$each_status_ms")"
health_ratio="$(ratio "$all_ms" "$each_health_ms")"
report_ratio="$(ratio "$report_all_ms" "$report_each_ms")"
echo "$LOCALES locales, $DAYS days of metrics, median of $RUNS:"
echo "  rollout status                      ${all_ms} ms"
echo "  rollout status LOCALE x $LOCALES          ${each_status_ms} ms"
echo "  rollout health LOCALE x $LOCALES          ${each_health_ms} ms"
echo "  rollout report --all                ${report_all_ms} ms"
echo "  rollout report LOCALE x $LOCALES          ${report_each_ms} ms"
pass=$(python3 -c "import sys; print('pass' if float(sys.argv[1]) <= 1 else 'FAIL')" "$status_ratio")
echo "GOAL status-all: ${status_ratio}x (goal <= 1x): $pass"
echo "INFO status-all-health: ${health_ratio}x"
echo "INFO report-all: ${report_ratio}x"
[ "$pass" = pass ]
