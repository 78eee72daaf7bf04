#!/usr/bin/env python3
"""Writes a crash CSV for `rollout metrics ingest --kind crash` (docs/metrics.md) of about SIZE_MB
megabytes (10^6 bytes; default 1100) to PATH, and prints what it wrote to stderr.

Usage: SIZE_MB=1100 [ORDER=days|shuffled] [APPS=40] generate.py PATH

ORDER=shuffled writes exactly the same rows in a random order (a fixed seed): an export sharded by
platform or hour and concatenated in no particular order. The shuffle is two passes, so that memory
stays small: each row goes to one of 64 temporary bucket files at random, then each bucket is
shuffled in memory and appended (a uniform random permutation).

APPS sets the number of app versions (default 40): 4.0.0, 4.0.1, 4.0.2, 4.0.3, 4.1.0, ... The keys
are 60 dates x 5 packs x 30 regions x APPS, so APPS=120 makes 1,080,000 distinct keys.

Header: date,locale,pack,region,app_version,sessions,crashes. The keys are those of a realistic
export over 60 days (2026-10-01 to 2026-11-29): the five packs that `rollout pack add
examples/packs/*.json` stores (en-US@1, tr@1, tr-TR@17, tr-TR@18, vi-VN@3), 30 regions and 40 app
versions (4.0.0 to 4.9.3, or APPS of them; the x.y.0 spellings are stored by rollout as x.y). Every date holds every
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
import tempfile

if len(sys.argv) != 2:
    sys.exit("usage: SIZE_MB=1100 generate.py PATH")
path = sys.argv[1]
target = int(float(os.environ.get("SIZE_MB", "1100")) * 1_000_000)
order = os.environ.get("ORDER", "days")
if order not in ("days", "shuffled"):
    sys.exit("ORDER must be days or shuffled")
app_count = int(os.environ.get("APPS", "40"))
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
versions = [f"4.{i // 4}.{i % 4}" for i in range(app_count)]  # by default 40: 4.0.0 .. 4.9.3
assert len(dates) == 60 and len(packs) == 5 and len(regions) == 30

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
buckets = 64
shuffle_rng = random.Random(2026_12_01)
bucket_dir = tempfile.mkdtemp(prefix="generate-", dir=os.path.dirname(os.path.abspath(path))) if order == "shuffled" else None
bucket_files = [open(os.path.join(bucket_dir, str(b)), "w", encoding="ascii", newline="\n") for b in range(buckets)] if bucket_dir else []


def emit(out, shard):
    if not bucket_files:
        out.write(shard)
        return
    lines = shard.splitlines(keepends=True)
    spread = [[] for _ in range(buckets)]
    for line, b in zip(lines, shuffle_rng.choices(range(buckets), k=len(lines))):
        spread[b].append(line)
    for b, part in enumerate(spread):
        bucket_files[b].write("".join(part))


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
            emit(out, shard)
            written += len(shard)
            rows += shard.count("\n")
            shards += 1

    for b, f in enumerate(bucket_files):
        f.close()
        with open(os.path.join(bucket_dir, str(b)), encoding="ascii", newline="\n") as bucket:
            lines = bucket.readlines()
        os.unlink(os.path.join(bucket_dir, str(b)))
        shuffle_rng.shuffle(lines)
        out.write("".join(lines))
if bucket_dir:
    os.rmdir(bucket_dir)

print(f"{path}: {written} bytes, {rows} data rows, {len(dates)} dates x {len(packs)} packs x {len(regions)} regions x "
      f"{len(versions)} app versions = {len(dates) * len(keys)} keys, {order} order", file=sys.stderr)
