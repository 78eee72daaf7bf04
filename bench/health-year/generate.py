#!/usr/bin/env python3
"""Writes a `git fast-import` stream of DAYS daily metrics ingests (docs/metrics.md, "What is
committed") for bench/health-year/run.sh, on top of PARENT (the commit of the plans).

Usage: DAYS=365 LOCALES=8 generate.py PARENT END_DATE >stream

Each day is one commit, as if an aggregated export of that day had been ingested once as crash and
once as fallback: for each of the LOCALES locales (LOCALE_LIST below, in order) a crash and a
fallback rollup of 2 packs x 200 regions x 40 app versions (16,000 entries), plus the two
provenance records. Rollups are written in the compact form (one entry per line, issue 36), records
in the form ingest writes them. The packs follow release cycles of CYCLE days (30): on day d of
the history (0 = the oldest) the baseline is content version d // CYCLE + 1 and the candidate the
next one, each with its planned share of sessions (10% for the candidate), as run.sh promotes them.

Deterministic (no randomness: the counts are a fixed function of the key and the day). Standard
library only.
"""
import datetime
import hashlib
import os
import re
import sys

LOCALE_LIST = ["tr-TR", "en-US", "de-DE", "fr-FR", "es-ES", "ja-JP", "pt-BR", "vi-VN"]
CYCLE = 30

if len(sys.argv) != 3:
    sys.exit("usage: DAYS=365 LOCALES=8 generate.py PARENT END_DATE")
parent, end = sys.argv[1], datetime.date.fromisoformat(sys.argv[2])
days = int(os.environ.get("DAYS", "365"))
locales = LOCALE_LIST[: int(os.environ.get("LOCALES", "8"))]
here = os.path.dirname(os.path.abspath(__file__))
swift = open(os.path.join(here, "../../Sources/RolloutModel/Region.swift")).read()
regions = sorted(set(re.findall(r'"([A-Z]{2})"', swift.split("assigned: Set<String> = [")[1].split("]")[0])))[:200]
# 4.0.0 .. 4.9.3, stored in their one spelling (x.y.0 is x.y).
apps = [f"4.{minor}" if patch == 0 else f"4.{minor}.{patch}" for minor in range(10) for patch in range(4)]
start = end - datetime.timedelta(days=days - 1)
out = sys.stdout.buffer
# A cell's weight: regions and app versions of very different sizes, as real traffic is.
weight = {(r, a): 40 + ((ri * 7919 + ai * 104729) % 997) * (1 + (ri % 5)) for ri, r in enumerate(regions)
          for ai, a in enumerate(apps)}


def packs(d):
    base = d // CYCLE + 1
    return base, base + 1


def rollup(kind, locale, date, d, source):
    base, cand = packs(d)
    li = locales.index(locale)
    lines = []
    rate = 3 if kind == "crash" else 20  # events per 1000 exposures
    for region in regions:
        for app in apps:
            w = weight[(region, app)] * (3 if kind == "fallback" else 1)
            total = w + (w * ((d * 31 + li * 13 + ord(region[1])) % 17)) // 40
            c = total // 10
            b = total - c
            for version, n in ((base, b), (cand, c)):
                events = (n * rate + (n * 7919 + d * 104729 + li) % 1000) // 1000
                lines.append((f"{version}|{region}|{app}", f'[{n},{min(events, n)},"{source}"]'))
    lines.sort()
    columns = '"sessions","crashes"' if kind == "crash" else '"lookups","fallbacks"'
    body = ",\n".join(f'"{k}":{v}' for k, v in lines)
    return (f'{{"columns":[{columns}],"counts":{{\n{body}\n}},"date":"{date}","kind":"{kind}",'
            f'"locale":"{locale}"}}\n').encode()


def record(kind, date, digest):
    rows = len(locales) * len(regions) * len(apps) * 2
    dates = f'\n    "{date}"\n  '
    names = ",".join(f'\n    "{loc}"' for loc in locales)
    return (f'{{\n  "actor": "bench <bench@example.invalid>",\n  "bytes": {rows * 48},\n  "dates": [{dates}],\n'
            f'  "digest": "sha256:{digest}",\n  "file": "export-{date}.{kind}.csv",\n  "kind": "{kind}",\n'
            f'  "locales": [{names}\n  ],\n  "rows": {rows},\n  "skippedRows": 0,\n'
            f'  "time": "{date}T23:00:00Z"\n}}\n').encode()


def data(blob):
    out.write(b"data %d\n" % len(blob))
    out.write(blob)
    out.write(b"\n")


for d in range(days):
    date = (start + datetime.timedelta(days=d)).isoformat()
    stamp = int(datetime.datetime.fromisoformat(date + "T23:00:00+00:00").timestamp())
    digests = {k: hashlib.sha256(f"export-{date}.{k}.csv".encode()).hexdigest() for k in ("crash", "fallback")}
    files = []
    for kind in ("crash", "fallback"):
        for locale in locales:
            files.append((f"metrics/{kind}/{locale}/{date}.json", rollup(kind, locale, date, d, digests[kind][:12])))
        files.append((f"metrics/ingests/{digests[kind]}.{kind}.json", record(kind, date, digests[kind])))
    message = (f"metrics ingest crash export-{date}.csv ({len(locales) * 16000} rows)\n\n"
               "Rollout-Action: metrics-ingest\n" + "".join(f"Rollout-Locale: {loc}\n" for loc in locales)
               + f"Rollout-Metrics-Kind: crash\nRollout-Metrics-File: export-{date}.csv\n"
               f"Rollout-Metrics-Digest: sha256:{digests['crash']}\nRollout-Metrics-Rows: {len(locales) * 16000}\n"
               "Rollout-Actor: bench <bench@example.invalid>\n").encode()
    out.write(b"commit refs/heads/main\n")
    out.write(b"committer bench <bench@example.invalid> %d +0000\n" % stamp)
    data(message)
    if d == 0:
        out.write(f"from {parent}\n".encode())
    for path, blob in files:
        out.write(f"M 100644 inline {path}\n".encode())
        data(blob)
    out.write(b"\n")
