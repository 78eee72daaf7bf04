#!/usr/bin/env python3
"""Writes a crash CSV for `rollout metrics ingest --kind crash` (docs/metrics.md) of about SIZE_MB
megabytes (10^6 bytes; default 1100) to PATH, and prints what it wrote to stderr.

Usage: SIZE_MB=1100 generate.py PATH

Header: date,locale,pack,region,app_version,sessions,crashes. The keys are those of a realistic
export over 60 days (2026-10-01 to 2026-11-29): the five packs that `rollout pack add
examples/packs/*.json` stores (en-US@1, tr@1, tr-TR@17, tr-TR@18, vi-VN@3), 30 regions and 40 app
versions (4.0.0 to 4.9.3; the x.y.0 spellings are stored by rollout as x.y). Every date holds every
pack x region x app version (360,000 distinct keys in all), so the number of sums is the same
whatever SIZE_MB is; the size only sets how many rows repeat each key. Rows repeat keys the way an
export sharded by hour and platform does: each day is written as successive shards, the first with
a row for every key of the day, the others with a row for about 80% of them (small segments are
missing from some shards), until the day's share of SIZE_MB is reached (the last shard of a day is
cut at a row boundary). The smallest file, one shard a day, is about 16 MB. The sums over repeated rows are what ingest has to get right.

Sessions follow the segment's weight (pack share in the region, app-version adoption) times noise,
from 1 to ~60,000; crashes are ~0.1-0.6% of sessions, never more than sessions.

Deterministic: the same SIZE_MB writes the same bytes (Python's random with a fixed seed).
Standard library only.
"""
import datetime
import os
import random
import sys

if len(sys.argv) != 2:
    sys.exit("usage: SIZE_MB=1100 generate.py PATH")
path = sys.argv[1]
target = int(float(os.environ.get("SIZE_MB", "1100")) * 1_000_000)
rng = random.Random(2026_11_30)

start = datetime.date(2026, 10, 1)
dates = [(start + datetime.timedelta(days=d)).isoformat() for d in range(60)]
# pack -> (locale, overall share of sessions, crash-rate factor)
packs = [
    ("en-US@1", "en-US", 1.00, 1.0),
    ("tr@1", "tr", 0.04, 1.1),
    ("tr-TR@17", "tr-TR", 0.45, 1.0),
    ("tr-TR@18", "tr-TR", 0.05, 1.3),
    ("vi-VN@3", "vi-VN", 0.30, 0.9),
]
regions = ["US", "TR", "VN", "DE", "GB", "FR", "NL", "AT", "CY", "CA", "AU", "IN", "BR", "MX", "ES",
           "IT", "PL", "SE", "JP", "KR", "ID", "EG", "SA", "AE", "RO", "GR", "CZ", "HU", "PT", "IE"]
home = {"en-US": {"US", "GB", "CA", "AU", "IE", "IN"}, "tr": {"TR", "CY", "DE"}, "tr-TR": {"TR", "CY", "DE", "NL", "AT"},
        "vi-VN": {"VN"}}
versions = [f"4.{minor}.{patch}" for minor in range(10) for patch in range(4)]  # 40: 4.0.0 .. 4.9.3
assert len(dates) == 60 and len(packs) == 5 and len(regions) == 30 and len(versions) == 40

# One weight per pack x region x app version; newer versions are more common.
keys = []
for pack, locale, share, risk in packs:
    for region in regions:
        regional = share * (1.0 if region in home[locale] else 0.02 + 0.03 * (regions.index(region) % 3))
        for i, version in enumerate(versions):
            adoption = 0.2 + (i / len(versions)) ** 2
            keys.append((f"{locale},{pack},{region},{version},", max(1.0, 60_000 * regional * adoption), risk))

per_day = target // len(dates)
random_ = rng.random
written = 0
rows = 0
with open(path, "w", encoding="ascii", newline="\n") as out:
    header = "date,locale,pack,region,app_version,sessions,crashes\n"
    out.write(header)
    written += len(header)
    for day_index, date in enumerate(dates):
        day_end = min(target, written + per_day) if day_index < len(dates) - 1 else target
        shards = 0
        while written < day_end or not shards:
            lines = []
            for suffix, mean, risk in keys:
                if shards and random_() < 0.2:
                    continue
                sessions = int(mean * (0.5 + random_())) + 1
                crashes = int(sessions * 0.002 * risk * (0.5 + random_()) + random_())
                lines.append(f"{date},{suffix}{sessions},{crashes}\n")
            shard = "".join(lines)
            # The last shard of a day may be cut short, at a row boundary, to land on the target.
            if written + len(shard) > day_end and shards > 0:
                keep = day_end - written
                cut = shard.rfind("\n", 0, keep) + 1
                shard = shard[:cut]
                if not shard:
                    break
            out.write(shard)
            written += len(shard)
            rows += shard.count("\n")
            shards += 1

print(f"{path}: {written} bytes, {rows} data rows, {len(dates)} dates x {len(packs)} packs x {len(regions)} regions x "
      f"{len(versions)} app versions = {len(dates) * len(keys)} keys", file=sys.stderr)
