#!/usr/bin/env bash
# bench/ingest-outcome: `rollout metrics ingest --kind outcome` of an outcome CSV (issue 37; docs/metrics.md,
# "Outcome CSVs") written by generate.py, against peers run in the same invocation:
#   crash        rollout's own `metrics ingest --kind crash` of a crash CSV with the same rows: the same
#                dates, locales, packs, regions and app versions, as many rows as the outcome CSV has
#                per metric (bench/ingest/generate.py's aggregated shape, which generate.py runs);
#   outcome-one  `metrics ingest --kind outcome-checkout` of the same outcome CSV: one metric's rows
#                ingested, the other metrics' rows read and left out.
# --kind outcome reads its file once for the metric names, then once per metric, and commits every
# metric's rollups in one commit: with two metrics it reads three times a file of twice the crash
# file's rows, and writes twice the rollups. No goal is stated; the script reports the ratios
# (docs/performance.md, "Outcome ingest"). Shape: an analytics job's grouped export, one row per group
# and metric: every day 8 locales x 2 packs x 200 regions x 40 app versions (128,000 groups) x the
# METRICS (default checkout,signup), DAYS days (default 4: 1,024,000 outcome rows, 512,000 crash rows);
# conversions never more than exposures.
#
# Each of crash, outcome and outcome-one runs RUNS times, interleaved round by round (the order rotates
# every round); each ingest goes into a fresh copy (cp -a) of one repository, initialized by the binary
# under test and holding every pack the files name (generate.py writes their JSON), so "already
# ingested" never short-circuits; one untimed ingest of each comes first (a warm-up: at the small size,
# without it, the first ingest of a run took about twice its CPU time in wall time). Wall time is measured with time.perf_counter around the process
# (start-up included), CPU time and peak RSS with /usr/bin/time -v. The files are read from the page
# cache (they were just written). The load average is printed at the start, every round and the end.
# Checks (of the first round's repositories): each command reports the rows it should (outcome: every
# metric's rows; outcome-one: checkout's, and the other metrics' rows left out); the outcome ingest is
# one commit with a Rollout-Metrics-Kind trailer per metric; every rollup of every outcome-<metric>
# kind, read back from the repository and parsed as JSON, equals the file's exposures and conversions
# group by group, and `rollout metrics show LOCALE --json` summed over the locales equals the file's
# totals per metric (outcome-one: checkout only, no other metric stored); the crash ingest's
# `metrics show` totals equal the crash file's sessions and crashes.
# The output ends with `INFO ingest-outcome ...` lines: outcome / crash (wall, and CPU), the same per
# row (the outcome file has a row per metric for each crash row), outcome-one / crash, and peak RSS.
#
# Usage: bench/ingest-outcome/run.sh [ROLLOUT_BINARY]      DAYS=4 RUNS=3 METRICS=checkout,signup
#        DAYS=1 RUNS=1 bench/ingest-outcome/run.sh    the small size `make bench` runs (256,000 outcome rows)
# Exits 0 (no goal is stated, so never 1), 2 on a bad knob, 3 if a check fails or a command fails.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
export DAYS="${DAYS:-4}" RUNS="${RUNS:-3}" METRICS="${METRICS:-checkout,signup}"
[[ "$DAYS" =~ ^[1-9][0-9]*$ ]] || { echo "$0: DAYS must be a whole number, 1 or more" >&2; exit 2; }
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "$0: RUNS must be a whole number, 1 or more" >&2; exit 2; }
[[ "$METRICS" =~ ^checkout(,[a-z][a-z0-9_]*)*$ ]] || {
  echo "$0: METRICS must start with checkout (the metric ingested alone), then other metric names, comma-separated" >&2; exit 2; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-ingest-outcome.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export ROLLOUT_ACTOR="bench <bench@example.invalid>"
unset ROLLOUT_REPO ROLLOUT_NOW
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/ingest-outcome-$(date -u +%Y%m%dT%H%M%SZ).txt"
cd "$WORK"   # no .rollout above a mktemp directory

if [ ! -x /usr/bin/time ]; then
  echo "installing Debian's time package for /usr/bin/time -v" >&2
  { apt-get update -qq && apt-get install -y -qq time; } >&2
fi

python3 - "$BIN" "$WORK" "$HERE/generate.py" "$ROOT" <<'PY' | tee "$OUT"
import datetime, glob, json, os, re, statistics, subprocess, sys, time
BIN, WORK, GENERATE, ROOT = sys.argv[1:5]
RUNS, DAYS = int(os.environ["RUNS"]), int(os.environ["DAYS"])
METRICS = os.environ["METRICS"].split(",")
ONE = METRICS[0]
sys.stdout.reconfigure(line_buffering=True)
failures = []

def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])

def sh(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout

def timed(cmd, stdout_path):
    """Runs cmd under /usr/bin/time -v; returns wall ms (perf_counter), CPU ms (user+sys) and peak RSS KiB."""
    tfile = os.path.join(WORK, "time.txt")
    with open(stdout_path, "wb") as out, open(stdout_path + ".err", "wb") as err:
        t = time.perf_counter()
        code = subprocess.run(["/usr/bin/time", "-v", "-o", tfile] + cmd, stdout=out, stderr=err).returncode
        wall = (time.perf_counter() - t) * 1000
    text = open(tfile).read()
    if code != 0:
        sys.stdout.write(open(stdout_path).read() + open(stdout_path + ".err").read())
        print(f"FAIL: exit {code}: {' '.join(cmd)}")
        sys.exit(3)
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", text)[1])
    system = float(re.search(r"System time \(seconds\): ([\d.]+)", text)[1])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)[1])
    return {"wall": wall, "cpu": (user + system) * 1000, "rss": rss}

print(f"bench/ingest-outcome  {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}  {sh(BIN, '--version').strip()}  "
      f"tree {sh('git', '-C', ROOT, 'describe', '--always', '--dirty').strip()}")
cpu = re.search(r"model name\s*: (.*)", open("/proc/cpuinfo").read())[1]
mem = int(re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read())[1]) / 2**20
print(f"machine: {os.cpu_count()} cores, {cpu}, {mem:.1f} GiB; load average at start {loadavg()}")
print(f"binary: {BIN} (built {datetime.datetime.fromtimestamp(os.path.getmtime(BIN), datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ})")

outcome, crash = os.path.join(WORK, "outcomes.csv"), os.path.join(WORK, "crashes.csv")
t = time.perf_counter()
err = subprocess.run([sys.executable, GENERATE, outcome, crash, os.path.join(WORK, "packs")],
                     check=True, capture_output=True, text=True).stderr
m = re.search(r": (\d+) bytes, (\d+) data rows, (\d+) metrics x (\d+) groups \(.*: (\d+) bytes, (\d+) data rows\)", err.splitlines()[-1])
outcome_bytes, outcome_rows, groups, crash_bytes, crash_rows = int(m[1]), int(m[2]), int(m[4]), int(m[5]), int(m[6])
print(f"generated outcomes.csv: {outcome_bytes:,} bytes, {outcome_rows:,} rows ({len(METRICS)} metrics: {', '.join(METRICS)}; "
      f"x {groups:,} groups, {DAYS} day{'s' if DAYS > 1 else ''} x 8 locales x 2 packs x 200 regions x 40 app versions); "
      f"crashes.csv: {crash_bytes:,} bytes, {crash_rows:,} rows, the same groups ({time.perf_counter() - t:.0f} s)")

# What the files hold, read here independently of the generator: per metric, each group's exposures
# and conversions (keyed as the rollups are: LOCALE \t DATE \t VERSION|REGION|APP, x.y.0 spelled x.y).
spelled = {}
def normalized(version):
    if version not in spelled:
        parts = [int(p) for p in version.split(".")]
        while len(parts) > 1 and parts[-1] == 0:
            parts.pop()
        spelled[version] = ".".join(map(str, parts))
    return spelled[version]
expected = {metric: {} for metric in METRICS}
with open(outcome) as f:
    assert f.readline() == "date,locale,pack,region,app_version,metric,exposures,conversions\n"
    for line in f:
        date, locale, pack, region, app, metric, exposures, conversions = line.rstrip("\n").split(",")
        exposures, conversions = int(exposures), int(conversions)
        if conversions > exposures:
            failures.append(f"the file has more conversions than exposures: {line.strip()}")
        expected[metric][f"{locale}\t{date}\t{int(pack.split('@')[1])}|{region}|{normalized(app)}"] = (exposures, conversions)
crash_keys, crash_totals = set(), [0, 0]
with open(crash) as f:
    f.readline()
    for line in f:
        date, locale, pack, region, app, sessions, crashes = line.rstrip("\n").split(",")
        crash_keys.add(f"{locale}\t{date}\t{int(pack.split('@')[1])}|{region}|{normalized(app)}")
        crash_totals[0] += int(sessions)
        crash_totals[1] += int(crashes)
for metric in METRICS:
    if expected[metric].keys() != crash_keys or len(expected[metric]) != crash_rows:
        failures.append(f"{metric}'s groups are not the crash file's")
locales = sorted({k.split("\t", 1)[0] for k in crash_keys})
totals = {metric: [sum(v[0] for v in expected[metric].values()), sum(v[1] for v in expected[metric].values())] for metric in METRICS}
print("file totals: " + "; ".join(f"{metric} exposures {e:,}, conversions {c:,}" for metric, (e, c) in totals.items())
      + f"; crash sessions {crash_totals[0]:,}, crashes {crash_totals[1]:,}")

packs = sorted(glob.glob(os.path.join(WORK, "packs", "*.json")))
base = os.path.join(WORK, "base.git")
sh(BIN, "init", base)
sh(BIN, "--repo", base, "pack", "add", *packs)
base_commits = int(sh("git", "--git-dir", base, "rev-list", "--count", "main"))

steps = {"crash": ("crash", crash), "outcome": ("outcome", outcome), "outcome_one": (f"outcome-{ONE}", outcome)}
names = {"crash": f"crash, {crash_rows:,} rows", "outcome": f"outcome, {len(METRICS)} metrics, {outcome_rows:,} rows",
         "outcome_one": f"outcome-{ONE} alone (same file)"}
results = {s: [] for s in steps}
said = {}

def ingest(step, repo, stdout):
    kind, path = steps[step]
    subprocess.run(["rm", "-rf", repo], check=True)
    subprocess.run(["cp", "-a", base, repo], check=True)   # a fresh repository each time
    return timed([BIN, "--repo", repo, "metrics", "ingest", "--kind", kind, path], stdout)

order = list(steps)
for step in order:   # warm-up, untimed: the binary and both files in the page cache, whoever goes first
    ingest(step, os.path.join(WORK, "repo.git"), os.path.join(WORK, f"warm-up.{step}"))
for r in range(1, RUNS + 1):
    load = loadavg()
    rotated = order[(r - 1) % len(order):] + order[:(r - 1) % len(order)]
    for step in rotated:
        repo = os.path.join(WORK, f"check-{step}.git" if r == 1 else "repo.git")
        results[step].append(ingest(step, repo, os.path.join(WORK, f"out-{r}.{step}")))
        if r == 1:
            said[step] = open(os.path.join(WORK, f"out-1.{step}")).read().strip()
    line = f"round {r} (order {', '.join(rotated)}; load {load} -> {loadavg()}):"
    for step in steps:
        x = results[step][-1]
        line += f"  {step} {x['wall']:,.0f} ms cpu {x['cpu']:,.0f} rss {x['rss'] / 1024:,.1f} MiB;"
    print(line.rstrip(";"))
    if r == 1:
        for step in steps:
            print("  " + said[step].replace("\n", "\n  "))

# Checks on the first round's repositories.
if not re.search(rf": {crash_rows} rows ingested", said["crash"]):
    failures.append(f"crash did not report {crash_rows} rows ingested")
for metric in METRICS:
    if not re.search(rf"\(outcome-{metric}\): {crash_rows} rows ingested", said["outcome"]):
        failures.append(f"outcome did not report {crash_rows} rows ingested for {metric}")
if not re.search(rf"\(outcome-{ONE}\): {crash_rows} rows ingested", said["outcome_one"]) or \
        (len(METRICS) > 1 and not re.search(rf"left out {outcome_rows - crash_rows} row\(s\) of other metrics", said["outcome_one"])):
    failures.append(f"outcome-{ONE} did not report {crash_rows} rows ingested and {outcome_rows - crash_rows} left out")

def rollups(repo, kind):
    """Every rollup of `kind` in `repo`, parsed as JSON: {LOCALE \t DATE \t KEY: (exposures, conversions)}, and the entry count."""
    listing = sh("git", "--git-dir", repo, "ls-tree", "-r", "main", f"metrics/{kind}")
    blobs = [l.split()[2] for l in listing.splitlines()]
    if not blobs:
        return {}, 0, 0
    batch = subprocess.run(["git", "--git-dir", repo, "cat-file", "--batch"], input=("\n".join(blobs) + "\n").encode(),
                           capture_output=True, check=True).stdout
    found, entries, at = {}, 0, 0
    for _ in blobs:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        rollup = json.loads(batch[header_end + 1:header_end + 1 + size])
        at = header_end + 1 + size + 1
        assert rollup["kind"] == kind and rollup["columns"] == ["exposures", "conversions"], (rollup["kind"], rollup["columns"])
        prefix = f"{rollup['locale']}\t{rollup['date']}\t"
        for k, (exposures, conversions, _source) in rollup["counts"].items():
            found[prefix + k] = (exposures, conversions)
            entries += 1
    return found, entries, len(blobs)

def shown_outcomes(repo):
    shown = {}
    for locale in locales:
        for row in json.loads(sh(BIN, "--repo", repo, "metrics", "show", locale, "--json")).get("outcomes", []):
            e, c = shown.setdefault(row["metric"], [0, 0])
            shown[row["metric"]] = [e + row["exposures"], c + row["conversions"]]
    return shown

for step, stored in (("outcome", METRICS), ("outcome_one", [ONE])):
    repo = os.path.join(WORK, f"check-{step}.git")
    commits = int(sh("git", "--git-dir", repo, "rev-list", "--count", "main")) - base_commits
    trailers = re.findall(r"^Rollout-Metrics-Kind: (.*)$", sh("git", "--git-dir", repo, "log", "-1", "--format=%B", "main"), re.M)
    if commits != 1 or sorted(trailers) != sorted(f"outcome-{m}" for m in stored):
        failures.append(f"{step}: {commits} commits with kinds {trailers}, not one commit of {stored}")
    shown = shown_outcomes(repo)
    report = []
    for metric in METRICS:
        found, entries, blobs = rollups(repo, f"outcome-{metric}")
        if metric not in stored:
            if found or metric in shown:
                failures.append(f"{step} stored outcome-{metric}")
            continue
        want = expected[metric]
        differ = [k for k in want.keys() | found.keys() if want.get(k) != found.get(k)]
        if entries != len(found):
            differ.append(f"{entries - len(found)} keys stored twice")
        equal = shown.get(metric) == totals[metric]
        report.append(f"{metric}: {entries:,} rollup entries in {blobs} rollups against {len(want):,} groups of the file: "
                      f"{'all equal' if not differ else f'{len(differ):,} differ, e.g. {sorted(differ)[:3]}'}; metrics show totals "
                      f"{shown.get(metric, [0, 0])[0]:,}, {shown.get(metric, [0, 0])[1]:,}: {'equal' if equal else 'DIFFERENT'}")
        if differ or not equal:
            failures.append(f"{step}'s {metric} sums differ from the file's")
    print(f"check {step}: {commits} commit, kinds {', '.join(trailers)}; " + "; ".join(report))
shown = [0, 0]
for locale in locales:
    for row in json.loads(sh(BIN, "--repo", os.path.join(WORK, "check-crash.git"), "metrics", "show", locale, "--json"))["rows"]:
        shown[0] += row["sessions"]
        shown[1] += row["crashes"]
print(f"check crash: metrics show totals sessions {shown[0]:,}, crashes {shown[1]:,}: {'equal' if shown == crash_totals else 'DIFFERENT'}")
if shown != crash_totals:
    failures.append("crash's sums differ from the file's")

med = {s: {m: statistics.median(x[m] for x in results[s]) for m in ("wall", "cpu", "rss")} for s in steps}
mib = lambda kib: kib / 1024
print(f"medians of {RUNS}:")
for s in steps:
    m = med[s]
    rows = outcome_rows if s == "outcome" else crash_rows
    size = crash_bytes if s == "crash" else outcome_bytes
    print(f"  {names[s]:<40} wall {m['wall']:>8,.0f} ms  cpu {m['cpu']:>8,.0f} ms  peak RSS {mib(m['rss']):>6,.1f} MiB  "
          f"{rows / m['wall'] * 1000 / 1e6:>5.2f} M rows ingested/s  {size / 1e6 / (m['wall'] / 1000):>5.1f} MB/s")
print(f"load average at end: {loadavg()}")
for f in failures:
    print(f"FAIL: {f}")

def ratio(a, b, per=1.0):
    return f"{med[a]['wall'] / med[b]['wall'] / per:.2f}x (cpu {med[a]['cpu'] / med[b]['cpu'] / per:.2f}x)"

n = len(METRICS)
rounds = ", ".join(f"{a['wall'] / b['wall']:.2f}" for a, b in zip(results["outcome"], results["crash"]))
print(f"INFO ingest-outcome outcome ({n} metrics, {outcome_rows:,} rows)/crash ({crash_rows:,} rows, the same groups): "
      f"{ratio('outcome', 'crash')}; wall by round {rounds}")
print(f"INFO ingest-outcome outcome per row/crash per row: {ratio('outcome', 'crash', n)}")
print(f"INFO ingest-outcome outcome-{ONE} alone/crash: {ratio('outcome_one', 'crash')}")
print(f"INFO ingest-outcome outcome peak RSS/crash peak RSS: {med['outcome']['rss'] / med['crash']['rss']:.2f}x "
      f"({mib(med['outcome']['rss']):.1f} MiB against {mib(med['crash']['rss']):.1f} MiB)")
sys.exit(3 if failures else 0)
PY
