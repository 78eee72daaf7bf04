#!/usr/bin/env bash
# bench/ingest: `rollout metrics ingest --kind crash` of a crash CSV written by generate.py in one of
# three shapes (SHAPE), against peers run in the same invocation on the same file:
#   DuckDB   (Python package, `SET threads=1`) reading the file with read_csv, columns typed
#            VARCHAR x5 + BIGINT x2, and computing SUM(sessions), SUM(crashes) and COUNT(*)
#            GROUP BY date, locale, pack, region, app_version into a table: the same sums, grouped
#            the same way (rollout's keys are the same, with x.y.0 app versions spelled x.y);
#   wc -l    on the same file: the floor (reading the bytes and finding the line ends);
#   BEFORE   (optional) a second rollout binary, the one before a change, on the same file in the
#            same rounds, checked the same way: the before-and-after comparison of one run.
# Goals: rollout at least as fast as DuckDB on one thread (rollout/DuckDB <= 1.0), and rollout's
# peak RSS under 100 MB (10^8 bytes) whatever the shape and the file size; rollout also ingests a
# file of half the size (SHAPE=aggregated: half the days) to show whether memory follows the file.
#
# Shapes (generate.py says how each is made):
#   SHAPE=aggregated  (default) one row per group, as an analytics job's grouped export writes: a day
#                     is 8 locales x 2 packs x 200 regions x 40 app versions, 128,000 rows; DAYS days
#                     (default 8: 1,024,000 rows, the size of the goal; DAYS=7 is issue 36's table row,
#                     896,000 rows), in day order;
#   SHAPE=random      rows drawn at random from a key space sized for about 2.7 rows a group in a file
#                     of SIZE_MB (default 330: about 7.7 M rows in 2.8 M groups);
#   SHAPE=repeated    the shape measured before issue 36: 360,000 keys repeated on many rows, SIZE_MB
#                     default 1100 (at least 1 GB); ORDER=shuffled writes the same rows in a random
#                     order (no two rows of a key need be near each other, as in shards concatenated
#                     in any order); APPS=N app versions instead of 40 (keys = 60 x 5 x 30 x N;
#                     APPS=120 is 1,080,000). ORDER and APPS are refused with the other shapes.
#   GZIP=1            with any shape: the file is gzipped (gzip -6); rollout and DuckDB read the same
#                     .gz, and the floor is `gzip -dc FILE | wc -l`. Goal: rollout / DuckDB <= 1.3.
#
# Each of wc -l, DuckDB, rollout (and BEFORE) on the full file and rollout on the half file runs
# RUNS times, interleaved round by round (rollout and BEFORE swap places every round); each rollout
# ingests into a fresh copy (cp -a) of a repository that binary initialized, holding every pack the
# file names (generate.py writes their JSON), so "already ingested" never short-circuits. Wall time is
# measured with time.perf_counter around the process (start-up included for every tool); CPU time and
# peak RSS come from /usr/bin/time -v. sha256sum of the file is timed too, for information only
# (ingest must hash the file for its provenance record; DuckDB and wc do not). The files are read
# from the page cache (they were just written, and wc -l reads the file first in every round).
# Checks: the sums of each binary's first ingest are compared with DuckDB's, group by group (every
# rollup read back from the repository and parsed as JSON, so pretty and compact rollups both pass)
# and in total (`rollout metrics show LOCALE --json` summed over the locales).
# The output ends with one line per goal, `GOAL ingest MODE <what>: <ratio>x (goal <= <limit>x):
# pass|FAIL`, MODE being the shape (aggregated, random) or for SHAPE=repeated the order (days,
# shuffled), with -gzip after it for GZIP=1; with BEFORE, `INFO ingest MODE before/DuckDB ...` and
# `INFO ingest MODE after/before ...` lines too, and a `table:` line per binary shaped as issue 36's.
#
# Usage: bench/ingest/run.sh [ROLLOUT_BINARY]      SHAPE=aggregated|random|repeated RUNS=3 GZIP=0|1
#          BEFORE=OTHER_ROLLOUT_BINARY  DAYS=8 (aggregated)  SIZE_MB=330|1100 (random|repeated)
#          ORDER=days|shuffled APPS=40 (repeated)
#        SHAPE=aggregated DAYS=2 RUNS=1 bench/ingest/run.sh    a small size `make bench` runs
# Exits 1 if a goal fails at the full size (aggregated: at least 1,000,000 rows; random: SIZE_MB >=
# 330; repeated: SIZE_MB >= 1000; below, the GOAL lines only report), 2 on a bad knob, 3 if the sums
# differ or a command fails.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=bench/rollout-binary.sh
source "$ROOT/bench/rollout-binary.sh"
export SHAPE="${SHAPE:-aggregated}"
case "$SHAPE" in
  aggregated)
    [ -z "${SIZE_MB+x}" ] || { echo "$0: SHAPE=aggregated is sized by DAYS, not SIZE_MB" >&2; exit 2; }
    export DAYS="${DAYS:-8}" SIZE_MB=0 ;;
  random) export SIZE_MB="${SIZE_MB:-330}" ;;
  repeated) export SIZE_MB="${SIZE_MB:-1100}" ORDER="${ORDER:-days}" APPS="${APPS:-40}" ;;
  *) echo "$0: SHAPE must be aggregated, random or repeated" >&2; exit 2 ;;
esac
if [ "$SHAPE" != repeated ] && [ -n "${ORDER+x}${APPS+x}" ]; then
  echo "$0: ORDER and APPS are knobs of SHAPE=repeated, the many-rows-a-group workload (SHAPE is aggregated by default)" >&2; exit 2
fi
export RUNS="${RUNS:-3}"
export BEFORE
# gzip itself reads options from $GZIP: the mode moves to GZIP_MODE before anything runs gzip.
export GZIP_MODE="${GZIP:-0}"
unset GZIP
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rollout-bench-ingest.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export ROLLOUT_ACTOR="bench <bench@example.invalid>"
unset ROLLOUT_REPO ROLLOUT_NOW
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/ingest-$(date -u +%Y%m%dT%H%M%SZ).txt"
cd "$WORK"   # no .rollout above a mktemp directory

if [ ! -x /usr/bin/time ]; then
  echo "installing Debian's time package for /usr/bin/time -v" >&2
  { apt-get update -qq && apt-get install -y -qq time; } >&2
fi
if ! python3 -c 'import duckdb' 2>/dev/null; then
  echo "installing duckdb (pip)" >&2
  python3 -m pip install --quiet duckdb >&2
fi

# The DuckDB peer, one process per run. argv: CSV [GROUPS_OUT]; prints JSON facts on stdout.
cat >"$WORK/duck.py" <<'PY'
import json, sys, time
import duckdb
path = sys.argv[1]
con = duckdb.connect()
con.execute("SET threads=1")
quoted = "'" + path.replace("'", "''") + "'"
t = time.perf_counter()
con.execute(f"""
CREATE TABLE g AS
SELECT date, locale, pack, region, app_version, SUM(sessions) AS sessions, SUM(crashes) AS crashes, COUNT(*) AS n
FROM read_csv({quoted}, header = true, delim = ',', quote = '"', auto_detect = false,
    columns = {{'date': 'VARCHAR', 'locale': 'VARCHAR', 'pack': 'VARCHAR', 'region': 'VARCHAR',
               'app_version': 'VARCHAR', 'sessions': 'BIGINT', 'crashes': 'BIGINT'}})
GROUP BY date, locale, pack, region, app_version""")
query = time.perf_counter() - t
groups, rows, sessions, crashes = con.execute("SELECT count(*), sum(n), sum(sessions), sum(crashes) FROM g").fetchone()
if len(sys.argv) > 2:
    con.execute(f"COPY g TO '{sys.argv[2]}' (HEADER, DELIMITER ',')")
print(json.dumps({"query_ms": query * 1000, "groups": groups, "rows": int(rows), "sessions": int(sessions), "crashes": int(crashes),
                  "version": duckdb.__version__}))
PY

python3 - "$BIN" "$WORK" "$HERE/generate.py" "$ROOT" <<'PY' | tee "$OUT"
import csv, datetime, glob, json, os, re, shutil, statistics, subprocess, sys, time
BIN, WORK, GENERATE, ROOT = sys.argv[1:5]
BEFORE = os.environ["BEFORE"]
SHAPE, RUNS, SIZE_MB = os.environ["SHAPE"], int(os.environ["RUNS"]), float(os.environ["SIZE_MB"])
GZIP = os.environ["GZIP_MODE"] == "1"
ORDER = os.environ.get("ORDER", "days")
sys.stdout.reconfigure(line_buffering=True)
failures = []

def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])

def sh(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout

def generate(name, half):
    """Writes the file (and the packs it names, into WORK/packs) with the shape's knobs, halved for the half file."""
    path = os.path.join(WORK, name)
    env = {k: v for k, v in os.environ.items() if k not in ("SIZE_MB", "DAYS")}
    if SHAPE == "aggregated":
        days = int(os.environ["DAYS"])
        env["DAYS"] = str(max(1, days // 2) if half else days)
        knobs = f"DAYS={env['DAYS']}"
    else:
        env["SIZE_MB"] = f"{SIZE_MB / 2 if half else SIZE_MB:g}"
        knobs = f"SIZE_MB={env['SIZE_MB']}" + (f", APPS={os.environ['APPS']}" if SHAPE == "repeated" else "")
    t = time.perf_counter()
    err = subprocess.run([sys.executable, GENERATE, path, os.path.join(WORK, "packs")], env=env,
                         check=True, capture_output=True, text=True).stderr
    m = re.search(r": (\d+) bytes, (\d+) data rows, (.*) = (\d+) keys, (\w+) order", err)
    size = int(m[1])
    if GZIP:
        subprocess.run(["gzip", "-6", path], check=True)
        path += ".gz"
        size = os.path.getsize(path)
    print(f"generated {os.path.basename(path)}: {size:,} bytes{f' ({int(m[1]):,} uncompressed)' if GZIP else ''}, {int(m[2]):,} data rows, "
          f"{int(m[4]):,} distinct keys ({m[3]}), {m[5]} order (SHAPE={SHAPE}, {knobs}, {time.perf_counter() - t:.0f} s)")
    return path, size, int(m[2]), int(m[4]), m[3]

def timed(cmd, stdout_path):
    """Runs cmd under /usr/bin/time -v; returns wall ms (perf_counter), CPU ms (user+sys) and peak RSS KiB."""
    tfile = os.path.join(WORK, "time.txt")
    with open(stdout_path, "wb") as out, open(stdout_path + ".err", "wb") as err:
        t = time.perf_counter()
        code = subprocess.run(["/usr/bin/time", "-v", "-o", tfile] + cmd, stdout=out, stderr=err).returncode
        wall = (time.perf_counter() - t) * 1000
    text = open(tfile).read()
    if code != 0:
        sys.stdout.write(open(stdout_path + ".err").read())
        print(f"FAIL: exit {code}: {' '.join(cmd)}")
        sys.exit(3)
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", text)[1])
    system = float(re.search(r"System time \(seconds\): ([\d.]+)", text)[1])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)[1])
    return {"wall": wall, "cpu": (user + system) * 1000, "rss": rss}

def describe(binary):
    return f"{binary} ({sh(binary, '--version').strip()}, built {datetime.datetime.fromtimestamp(os.path.getmtime(binary), datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ})"

print(f"bench/ingest  {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}  {sh(BIN, '--version').strip()}  "
      f"tree {sh('git', '-C', ROOT, 'describe', '--always', '--dirty').strip()}")
cpu = re.search(r"model name\s*: (.*)", open("/proc/cpuinfo").read())[1]
mem = int(re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read())[1]) / 2**20
print(f"machine: {os.cpu_count()} cores, {cpu}, {mem:.1f} GiB; load average at start {loadavg()}")
print(f"binary: {describe(BIN)}")
if BEFORE:
    print(f"before: {describe(BEFORE)}")
full, full_bytes, full_rows, keys, full_what = generate("crashes.csv", half=False)
half, half_bytes, half_rows, half_keys, _ = generate("crashes-half.csv", half=True)
duck_script = os.path.join(WORK, "duck.py")
packs = sorted(glob.glob(os.path.join(WORK, "packs", "*.json")))

def base_for(binary, name):
    """The repository every ingest by `binary` starts from: its own init, plus every pack the files name."""
    base = os.path.join(WORK, name)
    sh(binary, "init", base)
    sh(binary, "--repo", base, "pack", "add", *packs)
    return base

# (step, binary, base repository, repository of its first ingest, which the check reads)
runners = [("rollout", BIN, base_for(BIN, "base.git"), os.path.join(WORK, "check.git"))]
if BEFORE:
    runners.append(("before", BEFORE, base_for(BEFORE, "base-before.git"), os.path.join(WORK, "check-before.git")))

def ingest(binary, base, path, repo, stdout):
    if os.path.exists(repo):
        shutil.rmtree(repo)
    shutil.copytree(base, repo, symlinks=True)   # cp -a: a fresh repository each time
    return timed([binary, "--repo", repo, "metrics", "ingest", "--kind", "crash", path], stdout)

steps = ["wc", "sha256sum", "duckdb"] + [name for name, *_ in runners] + ["rollout_half"]
results = {s: [] for s in steps}
duck_facts = None
for r in range(1, RUNS + 1):
    load = loadavg()
    out = os.path.join(WORK, f"out-{r}")
    floor = ["sh", "-c", 'gzip -dc "$1" | wc -l', "sh", full] if GZIP else ["wc", "-l", full]
    results["wc"].append(timed(floor, out + ".wc"))
    wc_lines = int(open(out + ".wc").read().split()[0])
    results["sha256sum"].append(timed(["sha256sum", full], out + ".sha"))
    results["duckdb"].append(timed([sys.executable, duck_script, full], out + ".duck"))
    duck_facts = json.loads(open(out + ".duck").read())
    said = {}
    for name, binary, base, check in (runners if r % 2 else runners[::-1]):   # who goes first alternates
        repo = check if r == 1 else os.path.join(WORK, "repo.git")
        results[name].append(ingest(binary, base, full, repo, f"{out}.{name}"))
        said[name] = open(f"{out}.{name}").read().strip()
    results["rollout_half"].append(ingest(BIN, runners[0][2], half, os.path.join(WORK, "half.git"), out + ".half"))
    said_half = open(out + ".half").read().strip()
    line = f"round {r} (load {load} -> {loadavg()}):"
    for s in steps:
        x = results[s][-1]
        extra = f" (query {duck_facts['query_ms']:,.0f})" if s == "duckdb" else ""
        line += f"  {s} {x['wall']:,.0f} ms{extra} cpu {x['cpu']:,.0f} rss {x['rss'] / 1024:,.1f} MiB;"
    print(line.rstrip(";"))
    if r == 1:
        print(f"  wc -l: {wc_lines:,} lines; DuckDB {duck_facts['version']}: {duck_facts['groups']:,} groups over {duck_facts['rows']:,} rows, "
              f"sessions {duck_facts['sessions']:,}, crashes {duck_facts['crashes']:,}")
        for name in said:
            print(f"  {name}: {said[name]}")
        print(f"  rollout, half file: {said_half}")
    for text, rows in [(t, full_rows) for t in said.values()] + [(said_half, half_rows)]:
        if not re.search(rf": {rows} rows ingested", text):
            failures.append(f"rollout did not report {rows} rows ingested: {text}")
    if wc_lines != full_rows + 1 or duck_facts["rows"] != full_rows:
        failures.append(f"row counts disagree: wc -l {wc_lines}, DuckDB {duck_facts['rows']}, generated {full_rows} + header")

# Check: the same sums, group by group and in total, for each binary's first ingest.
groups_csv = os.path.join(WORK, "groups.csv")
subprocess.run([sys.executable, duck_script, full, groups_csv], check=True, stdout=subprocess.DEVNULL)
spelled = {}
def normalized(version):
    if version not in spelled:
        parts = [int(p) for p in version.split(".")]
        while len(parts) > 1 and parts[-1] == 0:
            parts.pop()
        spelled[version] = ".".join(map(str, parts))
    return spelled[version]
expected = {}
with open(groups_csv, newline="") as f:
    for row in csv.DictReader(f):
        locale, version = row["pack"].split("@")
        assert locale == row["locale"]
        key = f"{locale}\t{row['date']}\t{int(version)}|{row['region'].upper()}|{normalized(row['app_version'])}"
        expected[key] = (int(row["sessions"]), int(row["crashes"]))
locales = sorted({k.split("\t", 1)[0] for k in expected})

def check(name, binary, repo):
    """Reads every rollup of `repo` back (any valid JSON of the rollup schema) and compares it with DuckDB's groups."""
    found = {}
    listing = sh("git", "--git-dir", repo, "ls-tree", "-r", "main", "metrics/crash")
    blobs = [(l.split()[2], l.split("\t")[1]) for l in listing.splitlines()]
    batch = subprocess.run(["git", "--git-dir", repo, "cat-file", "--batch"], input=("\n".join(b for b, _ in blobs) + "\n").encode(),
                           capture_output=True, check=True).stdout
    at = 0
    entries = 0
    for blob, path in blobs:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        rollup = json.loads(batch[header_end + 1:header_end + 1 + size])
        at = header_end + 1 + size + 1
        prefix = f"{rollup['locale']}\t{rollup['date']}\t"
        for k, (sessions, crashes, _source) in rollup["counts"].items():
            found[prefix + k] = (sessions, crashes)
            entries += 1
    differ = [k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k)]
    if entries != len(found):
        differ.append(f"{entries - len(found)} keys stored twice")
    shown = {"sessions": 0, "crashes": 0}
    for locale in locales:
        for row in json.loads(sh(binary, "--repo", repo, "metrics", "show", locale, "--json"))["rows"]:
            shown["sessions"] += row["sessions"]
            shown["crashes"] += row["crashes"]
    totals_equal = (shown["sessions"], shown["crashes"]) == (duck_facts["sessions"], duck_facts["crashes"])
    print(f"check {name}: {entries:,} rollup entries in {len(blobs)} rollups against {len(expected):,} DuckDB groups: "
          f"{'all equal' if not differ else f'{len(differ):,} differ, e.g. {sorted(differ)[:3]}'}; metrics show totals "
          f"sessions {shown['sessions']:,}, crashes {shown['crashes']:,} against DuckDB {duck_facts['sessions']:,}, {duck_facts['crashes']:,}: "
          f"{'equal' if totals_equal else 'DIFFERENT'}")
    if differ or not totals_equal:
        failures.append(f"{name}'s sums differ from DuckDB's")

for name, binary, _base, repo in runners:
    check(name, binary, repo)

med = {s: {m: statistics.median(x[m] for x in results[s]) for m in ("wall", "cpu", "rss")} for s in steps}
mib = lambda kib: kib / 1024
print(f"medians of {RUNS} ({full_bytes / 1e6:,.0f} MB file, {full_rows:,} rows, {keys:,} keys; half file {half_bytes / 1e6:,.0f} MB, {half_rows:,} rows, {half_keys:,} keys):")
names = {"wc": "gzip -dc | wc -l" if GZIP else "wc -l", "sha256sum": "sha256sum (information)", "duckdb": "DuckDB, 1 thread", "rollout": "rollout metrics ingest",
         "before": "the same, BEFORE binary", "rollout_half": "rollout metrics ingest, half file"}
for s in steps:
    m = med[s]
    size = half_bytes if s == "rollout_half" else full_bytes
    print(f"  {names[s]:<34} wall {m['wall']:>10,.0f} ms  cpu {m['cpu']:>10,.0f} ms  peak RSS {mib(m['rss']):>7,.1f} MiB  "
          f"{size / 1e6 / (m['wall'] / 1000):>7,.1f} MB/s")

def ratio(a, b):
    return f"{med[a]['wall'] / med[b]['wall']:.2f}x (cpu {med[a]['cpu'] / med[b]['cpu']:.2f}x)"

ratio_duck = med["rollout"]["wall"] / med["duckdb"]["wall"]
print(f"ratio rollout / DuckDB (wall): {ratio_duck:.2f}x (cpu {med['rollout']['cpu'] / med['duckdb']['cpu']:.2f}x)")
wc_cpu = f" (cpu {med['rollout']['cpu'] / med['wc']['cpu']:.1f}x)" if med["wc"]["cpu"] > 0 else ""
print(f"ratio rollout / wc -l (wall): {med['rollout']['wall'] / med['wc']['wall']:.1f}x{wc_cpu}")
print(f"ratio DuckDB / wc -l (wall): {med['duckdb']['wall'] / med['wc']['wall']:.1f}x")
print(f"ratio rollout half file / full file: wall {med['rollout_half']['wall'] / med['rollout']['wall']:.2f}x, "
      f"peak RSS {med['rollout_half']['rss'] / med['rollout']['rss']:.2f}x")
if BEFORE:
    print(f"ratio BEFORE / DuckDB (wall): {ratio('before', 'duckdb')}; rollout / BEFORE (wall): {ratio('rollout', 'before')}")
speed_limit = 1.3 if GZIP else 1.0
goal_speed = ratio_duck <= speed_limit
peak = max(x["rss"] for s in ("rollout", "rollout_half") for x in results[s]) * 1024
goal_memory = peak < 100_000_000
print(f"rollout peak RSS, largest of {2 * RUNS} runs: {peak / 1e6:,.1f} MB = {peak / 2**20:,.1f} MiB (DuckDB {mib(med['duckdb']['rss']):,.1f} MiB)")
what = {"aggregated": f"aggregated export, {full_what}", "random": f"{full_bytes / 1e6:,.0f} MB, random rows",
        "repeated": f"{full_bytes / 1e6:,.0f} MB, {ORDER} order"}[SHAPE] + (", gzip" if GZIP else "")
for name, *_ in runners:   # a row of issue 36's table for each binary
    m = med[name]
    print(f"table {name}: | {what} | {full_rows:,} | {keys:,} | {m['wall'] / 1000:.1f} s (CPU {m['cpu'] / 1000:.1f} s) | "
          f"{med['duckdb']['wall'] / 1000:.2f} s (CPU {med['duckdb']['cpu'] / 1000:.2f} s) | **{m['wall'] / med['duckdb']['wall']:.2f}x** | {mib(m['rss']):.1f} MiB |")
print(f"load average at end: {loadavg()}")
for f in failures:
    print(f"FAIL: {f}")
mode = f"{ORDER if SHAPE == 'repeated' else SHAPE}{'-gzip' if GZIP else ''}"
if BEFORE:
    before_peak = max(x["rss"] for x in results["before"]) * 1024
    print(f"INFO ingest {mode} before/DuckDB one thread: {ratio('before', 'duckdb')}")
    rounds = ", ".join(f"{a['wall'] / b['wall']:.2f}" for a, b in zip(results["rollout"], results["before"]))
    print(f"INFO ingest {mode} after/before: {ratio('rollout', 'before')}; wall by round {rounds}")
    print(f"INFO ingest {mode} before peak RSS/100 MB: {before_peak / 100_000_000:.2f}x")
print(f"GOAL ingest {mode} rollout/DuckDB one thread: {ratio_duck:.2f}x (goal <= {speed_limit}x): {'pass' if goal_speed else 'FAIL'}")
print(f"GOAL ingest {mode} peak RSS/100 MB: {peak / 100_000_000:.2f}x (goal <= 1.0x): {'pass' if goal_memory else 'FAIL'}")
full_size = {"aggregated": full_rows >= 1_000_000, "random": SIZE_MB >= 330, "repeated": SIZE_MB >= 1000}[SHAPE]
sys.exit(3 if failures else (0 if (goal_speed and goal_memory) or not full_size else 1))
PY
