#!/usr/bin/env python3
"""Writes an outcome CSV for `rollout metrics ingest --kind outcome` (docs/metrics.md, "Outcome CSVs")
to OUTCOME_PATH and the crash CSV of the same groups to CRASH_PATH, and the JSON of every pack they
name into PACK_DIR, and prints what it wrote to stderr.

Usage: [DAYS=4] [METRICS=checkout,signup] generate.py OUTCOME_PATH CRASH_PATH [PACK_DIR]

The crash CSV is bench/ingest/generate.py's aggregated shape, written by running that script
unchanged (SHAPE=aggregated DAYS=DAYS): an analytics job's grouped export, one row per group, every
day 8 locales x 2 packs x 200 regions x 40 app versions (128,000 rows), DAYS days ending 2026-11-29,
in day order. The outcome CSV (header date,locale,pack,region,app_version,metric,exposures,
conversions) has, for every row of the crash CSV and in the same order, one row per metric of
METRICS (default checkout,signup), one after the other: the same export grouped by metric last. So
each metric has exactly the crash CSV's rows (dates, locales, packs, regions, app versions), and the
file has len(METRICS) times as many. Exposures follow the row's sessions (checkout about 55% of them,
signup about 20%, the metrics after those about 10%) times noise; conversions are about 8%, 3% and
5% of the exposures times noise, never more than the exposures.

Deterministic (Python's random with a fixed seed); standard library only. The last line on stderr
reads `OUTCOME_PATH: N bytes, N data rows, M metrics x N groups (CRASH_PATH: N bytes, N data rows)`.
"""
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = "date,locale,pack,region,app_version,metric,exposures,conversions\n"
# metric -> (share of sessions exposed, conversion rate); metrics past these two get the default.
RATES = {"checkout": (0.55, 0.08), "signup": (0.20, 0.03)}
DEFAULT_RATE = (0.10, 0.05)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: [DAYS=4] [METRICS=checkout,signup] generate.py OUTCOME_PATH CRASH_PATH [PACK_DIR]")
    outcome_path, crash_path = sys.argv[1], sys.argv[2]
    days = os.environ.get("DAYS", "4")
    metrics = os.environ.get("METRICS", "checkout,signup").split(",")
    if not days.isdigit() or int(days) < 1:
        sys.exit("DAYS must be a whole number, 1 or more")
    if not metrics or any(not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", m) for m in metrics) or len(set(metrics)) != len(metrics):
        sys.exit("METRICS must be distinct metric names (a lowercase letter, then lowercase letters, digits and _), comma-separated")
    env = {k: v for k, v in os.environ.items() if k not in ("SIZE_MB", "ORDER", "APPS", "GROUP_ROWS")}
    env.update(SHAPE="aggregated", DAYS=days)
    crash = subprocess.run([sys.executable, os.path.join(HERE, "..", "ingest", "generate.py"), crash_path] + sys.argv[3:4],
                           env=env, check=True, capture_output=True, text=True).stderr
    m = re.search(r": (\d+) bytes, (\d+) data rows", crash.splitlines()[-1])
    crash_bytes, crash_rows = int(m[1]), int(m[2])

    rng = random.Random(2026_12_08).random
    rates = [(metric, *RATES.get(metric, DEFAULT_RATE)) for metric in metrics]
    written, rows = len(HEADER), 0
    with open(crash_path, encoding="ascii") as src, open(outcome_path, "w", encoding="ascii", newline="\n") as out:
        if src.readline() != "date,locale,pack,region,app_version,sessions,crashes\n":
            sys.exit(f"{crash_path}: not the crash CSV bench/ingest/generate.py writes")
        out.write(HEADER)
        while True:
            lines = src.readlines(4 << 20)
            if not lines:
                break
            chunk = []
            for line in lines:
                key, sessions, _crashes = line.rsplit(",", 2)
                sessions = int(sessions)
                for metric, exposed, converted in rates:
                    exposures = int(sessions * exposed * (0.5 + rng()))
                    conversions = min(exposures, int(exposures * converted * (0.5 + rng()) + rng()))
                    chunk.append(f"{key},{metric},{exposures},{conversions}\n")
            text = "".join(chunk)
            out.write(text)
            written += len(text)
            rows += len(chunk)
    for line in crash.splitlines()[:-1]:
        print(line, file=sys.stderr)
    print(f"{outcome_path}: {written} bytes, {rows} data rows, {len(metrics)} metrics x {crash_rows} groups "
          f"({crash_path}: {crash_bytes} bytes, {crash_rows} data rows)", file=sys.stderr)


main()
