#!/usr/bin/env python3
"""Writes a crash CSV for `rollout metrics ingest --kind crash` (docs/metrics.md) to PATH, and the
JSON of every pack the file names into PACK_DIR (one LOCALE@VERSION.json each, as `rollout pack add
PACK_DIR/*.json` takes them), and prints what it wrote to stderr.

Usage: [SHAPE=aggregated] [DAYS=7] generate.py PATH [PACK_DIR]
       SHAPE=random [SIZE_MB=330] [GROUP_ROWS=2.7] generate.py PATH [PACK_DIR]
       SHAPE=repeated [SIZE_MB=1100] [ORDER=days|shuffled] [APPS=40] generate.py PATH [PACK_DIR]

Header: date,locale,pack,region,app_version,sessions,crashes. Three shapes:

SHAPE=aggregated (the default): the export an analytics job writes after grouping, one row per
group: every day, 8 locales x 2 packs each (16 packs: a pack at most devices and the next one staged)
x 200 regions (real ISO 3166-1 alpha-2 codes; rollout refuses others) x 40 app versions (4.10.0 to
4.19.3), 128,000 rows a day, DAYS days (default 7: 896,000 rows; DAYS=8: 1,024,000) ending
2026-11-29, in day order, and within a day by locale, pack, region and app version. Every row is a
group of its own.

SHAPE=random: rows drawn at random (independently, so in no order) from a key space of the same
128,000 keys a day over as many days as it takes, sized so that the file of SIZE_MB megabytes (10^6
bytes; default 330) holds about GROUP_ROWS rows a group (default 2.7): 330 MB is 7.69 M rows in
2.85 M groups drawn from 3.1 M keys over 25 days (issue 36's file: 7.4 M rows, 2.7 M groups). A key drawn k times is k rows; some keys are never drawn.

SHAPE=repeated: the shape bench/ingest measured before issue 36, a few keys on many rows: the keys of
an export over 60 days (2026-10-01 to 2026-11-29): the five packs of examples/packs (en-US@1, tr@1,
tr-TR@17, tr-TR@18, vi-VN@3), 30 regions and APPS app versions (default 40: 4.0.0 to 4.9.3; the
x.y.0 spellings are stored by rollout as x.y), 60 x 5 x 30 x APPS keys (360,000 by default, 1,080,000
with APPS=120), whatever SIZE_MB (default 1100) is: the size only sets how many rows repeat each key.
Each day is written as successive shards, the first with a row for every key of the day, the others
with a row for about 80% of them (small segments are missing from some shards), until the day's
share of SIZE_MB is reached (the last shard of a day is cut at a row boundary); the smallest file,
one shard a day, is about 16 MB. ORDER=shuffled writes exactly the same rows in a random order: an
export sharded by platform or hour and concatenated in no particular order. The shuffle is two
passes, so that memory stays small: each row goes to one of 64 temporary bucket files at random,
then each bucket is shuffled in memory and appended (a uniform random permutation). The bytes are
those this script wrote before it had shapes.

Sessions follow the segment's weight (pack share in the region, app-version adoption) times noise,
from 1 to ~60,000 in the repeated shape and ~100 to ~3,000,000 in the others (whose rows are a day's
group each, about 43 bytes long); crashes are ~0.1-0.6% of sessions, never more than sessions.

Deterministic: the same settings write the same bytes (Python's random with fixed seeds). Standard
library only. Rows are formatted a day (or 100,000 rows) at a time and written as one joined string,
so that 330 MB takes well under a minute.

The last line on stderr reads `PATH: N bytes, N data rows, WHAT = N keys, ORDER order`, where keys
are the distinct groups (date, locale, pack, region, app version) of the file.
"""
import datetime
import json
import math
import os
import random
import sys
import tempfile

END = datetime.date(2026, 11, 29)
VERSIONS_40 = [f"4.{10 + i // 4}.{i % 4}" for i in range(40)]  # 4.10.0 .. 4.19.3
# The assigned ISO 3166-1 alpha-2 codes (Sources/RolloutModel/Region.swift) but 49 small territories.
ASSIGNED = """AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI
FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS
IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO
MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA
RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT
TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW""".split()
LEFT_OUT = set("""AQ BV HM TF GS UM IO CC CX NF PN TK NU CK WF PM SJ BL MF SX BQ CW AX FK GI GG IM JE MS AI VG TC KY
BM FO GL MP GU AS PW MH FM NR TV KI SH EH VA SM""".split())
REGIONS_200 = [r for r in ASSIGNED if r not in LEFT_OUT]
assert len(ASSIGNED) == 249 and len(REGIONS_200) == 200
# locale -> (share of sessions, content versions: the pack at most devices, the staged one, home regions)
LOCALES_8 = {
    "en-US": (1.00, (1, 2), {"US", "GB", "CA", "AU", "IE", "IN", "NZ"}),
    "tr-TR": (0.45, (17, 18), {"TR", "CY", "DE", "NL", "AT"}),
    "vi-VN": (0.30, (3, 4), {"VN"}),
    "de-DE": (0.35, (5, 6), {"DE", "AT", "CH"}),
    "fr-FR": (0.30, (8, 9), {"FR", "BE", "CH", "CA"}),
    "es-ES": (0.30, (2, 3), {"ES", "MX", "AR", "CO"}),
    "ja-JP": (0.25, (11, 12), {"JP"}),
    "pt-BR": (0.25, (6, 7), {"BR", "PT"}),
}
HEADER = "date,locale,pack,region,app_version,sessions,crashes\n"


def dates_ending(end, count):
    return [(end - datetime.timedelta(days=count - 1 - d)).isoformat() for d in range(count)]


def grouped_keys():
    """The 128,000 keys of one day of the aggregated shape, in the export's order: (the row's text
    between the date and the counts, mean sessions, crash-rate factor)."""
    keys = []
    for locale_rank, (locale, (share, versions, home)) in enumerate(LOCALES_8.items()):
        for pack_share, risk, version in ((0.9, 1.0, versions[0]), (0.1, 1.2, versions[1])):
            for index, region in enumerate(REGIONS_200):
                regional = share * pack_share * (1.0 if region in home else 0.02 + 0.03 * ((index + locale_rank) % 3))
                for i, app in enumerate(VERSIONS_40):
                    adoption = 0.2 + (i / 40) ** 2
                    keys.append((f"{locale},{locale}@{version},{region},{app},", max(1.0, 2_000_000 * regional * adoption), risk))
    return keys


def row(rng, date, key):
    suffix, mean, risk = key
    sessions = int(mean * (0.5 + rng())) + 1
    crashes = int(sessions * 0.002 * risk * (0.5 + rng()) + rng())
    return f"{date},{suffix}{sessions},{crashes}\n"


def write_aggregated(out, days):
    random_ = random.Random(2026_12_06).random
    keys = grouped_keys()
    written, rows = len(HEADER), 0
    out.write(HEADER)
    for date in dates_ending(END, days):
        chunk = "".join([row(random_, date, key) for key in keys])
        out.write(chunk)
        written += len(chunk)
        rows += len(keys)
    return written, rows, f"{days} day{'' if days == 1 else 's'} x 8 locales x 2 packs x 200 regions x 40 app versions", rows, "day"


def random_key_space(target, group_rows, keys):
    """How many keys to draw from, so that a file of `target` bytes holds about `group_rows` rows a
    group: drawing n rows uniformly from K keys gives K(1 - e^(-n/K)) groups, so n/K = x solves
    x / (1 - e^-x) = group_rows. The row count n comes from the mean length of a sample of rows."""
    sample = random.Random(1)
    dates = dates_ending(END, 30)
    mean = sum(len(row(sample.random, sample.choice(dates), sample.choice(keys))) for _ in range(20_000)) / 20_000
    low, high = 1e-9, 100.0
    for _ in range(100):
        x = (low + high) / 2
        low, high = (x, high) if x / (1 - math.exp(-x)) < group_rows else (low, x)
    return max(1, round((target - len(HEADER)) / mean / x))


def write_random(out, target, group_rows):
    keys = grouped_keys()
    space = random_key_space(target, group_rows, keys)
    days = -(-space // len(keys))
    dates = dates_ending(END, days)
    random_ = random.Random(2026_12_07).random
    drawn = bytearray(space)
    written, rows = len(HEADER), 0
    out.write(HEADER)
    while written < target:
        picks = [int(random_() * space) for _ in range(100_000)]
        lines = [row(random_, dates[k // 128_000], keys[k % 128_000]) for k in picks]
        chunk = "".join(lines)
        if written + len(chunk) > target:  # the last chunk is cut at a row boundary, to land on the target
            kept, size = 0, written
            while kept < len(lines) and size + len(lines[kept]) <= target:
                size += len(lines[kept])
                kept += 1
            lines, picks = lines[:kept], picks[:kept]
            chunk = "".join(lines)
            if not lines:
                break
        for k in picks:
            drawn[k] = 1
        out.write(chunk)
        written += len(chunk)
        rows += len(lines)
    groups = len(drawn) - drawn.count(0)
    what = f"{rows / groups:.2f} rows a group drawn from {space:,} keys ({days} days x 128,000)"
    return written, rows, what, groups, "random"


def write_repeated(out, path, target, order, app_count):
    """The shape and bytes of this script before issue 36 (see the docstring)."""
    rng = random.Random(2026_11_30)
    start = datetime.date(2026, 10, 1)
    dates = [(start + datetime.timedelta(days=d)).isoformat() for d in range(60)]
    regions = ["US", "TR", "VN", "DE", "GB", "FR", "NL", "AT", "CY", "CA", "AU", "IN", "BR", "MX", "ES",
               "IT", "PL", "SE", "JP", "KR", "ID", "EG", "SA", "AE", "RO", "GR", "CZ", "HU", "PT", "IE"]
    home = {"en-US": {"US", "GB", "CA", "AU", "IE", "IN"}, "tr": {"TR", "CY", "DE"}, "tr-TR": {"TR", "CY", "DE", "NL", "AT"},
            "vi-VN": {"VN"}}
    versions = [f"4.{i // 4}.{i % 4}" for i in range(app_count)]
    keys = []
    for pack, locale, share, risk in REPEATED_PACKS:
        for region in regions:
            regional = share * (1.0 if region in home[locale] else 0.02 + 0.03 * (regions.index(region) % 3))
            for i, version in enumerate(versions):
                adoption = 0.2 + (i / len(versions)) ** 2
                keys.append((f"{locale},{pack},{region},{version},", max(1.0, 60_000 * regional * adoption), risk))

    per_day = target // len(dates)
    random_ = rng.random
    buckets = 64
    shuffle_rng = random.Random(2026_12_01)
    bucket_dir = tempfile.mkdtemp(prefix="generate-", dir=os.path.dirname(os.path.abspath(path))) if order == "shuffled" else None
    bucket_files = [open(os.path.join(bucket_dir, str(b)), "w", encoding="ascii", newline="\n") for b in range(buckets)] if bucket_dir else []

    def emit(shard):
        if not bucket_files:
            out.write(shard)
            return
        lines = shard.splitlines(keepends=True)
        spread = [[] for _ in range(buckets)]
        for line, b in zip(lines, shuffle_rng.choices(range(buckets), k=len(lines))):
            spread[b].append(line)
        for b, part in enumerate(spread):
            bucket_files[b].write("".join(part))

    out.write(HEADER)
    written, rows = len(HEADER), 0
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
            emit(shard)
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
    what = f"{len(dates)} dates x {len(REPEATED_PACKS)} packs x {len(regions)} regions x {len(versions)} app versions"
    return written, rows, what, len(dates) * len(keys), order


# pack -> (locale, overall share of sessions, crash-rate factor): the packs of examples/packs.
REPEATED_PACKS = [
    ("en-US@1", "en-US", 1.00, 1.0),
    ("tr@1", "tr", 0.04, 1.1),
    ("tr-TR@17", "tr-TR", 0.45, 1.0),
    ("tr-TR@18", "tr-TR", 0.05, 1.3),
    ("vi-VN@3", "vi-VN", 0.30, 0.9),
]


def write_packs(directory, shape):
    """One pack JSON per pack the file names, as bench/status/run.sh writes them: 20 strings each."""
    if shape == "repeated":
        packs = [pack for pack, *_ in REPEATED_PACKS]
    else:
        packs = [f"{locale}@{v}" for locale, (_, versions, _) in LOCALES_8.items() for v in versions]
    os.makedirs(directory, exist_ok=True)
    for pack in packs:
        locale, version = pack.split("@")
        body = {"contentVersion": int(version), "locale": locale, "minAppVersion": "4.0.0", "schemaVersion": 2,
                "strings": {f"key.{i}": f"{locale} text {i} v{version}" for i in range(20)}}
        with open(os.path.join(directory, f"{pack}.json"), "w", encoding="utf-8") as f:
            json.dump(body, f)
    return len(packs)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: [SHAPE=aggregated|random|repeated] generate.py PATH [PACK_DIR]")
    path = sys.argv[1]
    shape = os.environ.get("SHAPE", "aggregated")
    if shape not in ("aggregated", "random", "repeated"):
        sys.exit("SHAPE must be aggregated, random or repeated")
    order = os.environ.get("ORDER", "days")
    if order not in ("days", "shuffled"):
        sys.exit("ORDER must be days or shuffled")
    if shape != "repeated" and ("ORDER" in os.environ or "APPS" in os.environ):
        sys.exit("ORDER and APPS are knobs of SHAPE=repeated")
    default_mb = {"random": "330", "repeated": "1100"}.get(shape)
    target = int(float(os.environ.get("SIZE_MB", default_mb or "0")) * 1_000_000)
    with open(path, "w", encoding="ascii", newline="\n") as out:
        if shape == "aggregated":
            result = write_aggregated(out, int(os.environ.get("DAYS", "7")))
        elif shape == "random":
            result = write_random(out, target, float(os.environ.get("GROUP_ROWS", "2.7")))
        else:
            result = write_repeated(out, path, target, order, int(os.environ.get("APPS", "40")))
    written, rows, what, groups, described_order = result
    if len(sys.argv) == 3:
        count = write_packs(sys.argv[2], shape)
        print(f"{sys.argv[2]}: {count} pack files", file=sys.stderr)
    print(f"{path}: {written} bytes, {rows} data rows, {what} = {groups} keys, {described_order} order", file=sys.stderr)


main()
