#!/usr/bin/env python3
"""Writes a git fast-import stream of CHANGES rollout plan changes over 200 locales, in exactly the
form `rollout promote` commits them (plans/<locale>.json plus Rollout-* trailers, Rollout-Plans
included), on top of PARENT. LEGACY=1 leaves Rollout-Plans out, as rollout wrote before it, so the
log index reads every change from its trees.

Usage: generate.py CHANGES PARENT_COMMIT > stream
Deterministic: the same CHANGES gives the same history, and a shorter run is a prefix of a longer one.
"""
import hashlib
import json
import os
import random
import sys

changes = int(sys.argv[1])
parent = sys.argv[2]
rng = random.Random(2026)

languages = ["en", "tr", "vi", "de", "fr", "es", "it", "pt", "ja", "ko", "zh", "ar", "ru", "pl", "nl", "sv", "da", "fi", "nb", "cs"]
countries = ["US", "TR", "VN", "DE", "FR", "ES", "IT", "BR", "JP", "KR"]
locales = [f"{language}-{country}" for language in languages for country in countries]
regions = ["TR", "DE", "US", "VN", "FR", "ES", "IT", "BR", "JP", "KR", "GB", "NL", "PL", "SE", "MX",
           "IN", "ID", "EG", "SA", "CA", "AU", "AR", "CL", "CO", "PT", "RO", "GR", "CZ", "HU", "AT"]
ranges = [">=4.8", "*", ">=5", "4.9.x", ">=4.8 <5"]
assert len(locales) == 200

state = {locale: {"baseline": 1, "previous": [], "candidate": None, "rules": []} for locale in locales}
legacy = os.environ.get("LEGACY") == "1"
blobs = {}  # locale -> the blob id of its plan file, once written

# Rollout-Plans names the regions in which some device gets something else after the change
# (docs/audit.md). The generator's plans are simple enough to work that out here, point by point: a
# device resolves by the first rule naming its region whose range holds its version, else the
# baseline. One sample version inside each stretch the ranges below cut the line into.
samples = [(4, 0), (4, 8), (4, 9), (4, 10), (5, 0)]


def in_range(text, v):
    return {">=4.8": v >= (4, 8), "*": True, ">=5": v >= (5, 0), "4.9.x": (4, 9) <= v < (4, 10),
            ">=4.8 <5": (4, 8) <= v < (5, 0)}[text]


def shares(plan, region, v):
    if plan is None:
        return (("bundled", 10000),)
    for rule in plan["rules"]:
        if region in rule["regions"] and in_range(rule["range"], v):
            if rule["bp"] == 10000:
                return ((plan["candidate"], 10000),)
            return tuple(sorted([(plan["candidate"], rule["bp"]), (plan["baseline"], 10000 - rule["bp"])]))
    return ((plan["baseline"], 10000),)


def regions_changed(before, after):
    named = sorted({r for plan in (before, after) if plan for rule in plan["rules"] for r in rule["regions"]})
    changed = [r for r in named + [None] if any(shares(before, r, v) != shares(after, r, v) for v in samples)]
    return sorted("*" if r is None else r for r in changed)


breadth = {"4.9.x": 1, ">=4.8 <5": 1, ">=4.8": 2, ">=5": 2, "*": 3}


def resolution_order(rules):
    """Rules as rollout keeps them (Plan.setRules): narrower version ranges first, then by regions and
    range text; every rule here names regions."""
    rules.sort(key=lambda r: (breadth[r["range"]], ",".join(r["regions"]), r["range"]))


def snapshot(s):
    return {"baseline": s["baseline"], "candidate": s["candidate"], "rules": [dict(r) for r in s["rules"]]}


def ref(version):
    return {"contentVersion": version, "minAppVersion": "4.0"}


def plan_json(locale, s):
    rules = [{"appVersions": r["range"], "basisPoints": r["bp"], "pack": ref(s["candidate"]),
              "regions": r["regions"], "salt": s["salt"]} for r in s["rules"]]
    return json.dumps({"baseline": ref(s["baseline"]), "blocked": [], "locale": locale,
                       "previousBaselines": [ref(v) for v in s["previous"]], "rules": rules},
                      indent=2, sort_keys=True) + "\n"


out = sys.stdout.buffer
time = 1_780_000_000
for n in range(1, changes + 1):
    locale = rng.choice(locales)
    s = state[locale]
    before = snapshot(s) if locale in blobs else None
    time += rng.randint(30, 600)
    trailers = []
    if s["candidate"] is None:
        s["candidate"] = s["baseline"] + 1
        s["salt"] = "%016x" % rng.getrandbits(64)
        rule = {"regions": sorted(rng.sample(regions, rng.randint(1, 2))), "range": rng.choice(ranges), "bp": rng.choice([100, 500, 1000])}
        s["rules"] = [rule]
        action, percent = "promote", rule["bp"]
        summary = f"promote {locale}@{s['candidate']} to {percent / 100:g}% in {','.join(rule['regions'])} on {rule['range']}"
        trailers = [("Regions", ",".join(rule["regions"])), ("Versions", rule["range"])]
    else:
        roll = rng.random()
        if roll < 0.55:
            bp = min(10000, max(r["bp"] for r in s["rules"]) * 2)
            for r in s["rules"]:
                r["bp"] = bp
            action, percent = "promote", bp
            summary = f"promote {locale}@{s['candidate']} to {bp / 100:g}%"
        elif roll < 0.75:
            rule = {"regions": sorted(rng.sample(regions, 1)), "range": rng.choice(ranges), "bp": rng.choice([500, 1000, 2000])}
            if all(r["regions"] != rule["regions"] or r["range"] != rule["range"] for r in s["rules"]):
                s["rules"].append(rule)
                resolution_order(s["rules"])
            action, percent = "promote", rule["bp"]
            summary = f"promote {locale}@{s['candidate']} to {percent / 100:g}% in {','.join(rule['regions'])} on {rule['range']}"
            trailers = [("Regions", ",".join(rule["regions"])), ("Versions", rule["range"])]
        else:
            s["previous"] = [s["baseline"]] + s["previous"][:9]
            s["baseline"] = s["candidate"]
            s["candidate"] = None
            s["rules"] = []
            action, percent = "complete", 10000
            summary = f"complete {locale}@{s['baseline']}: the baseline of {locale}"
    pack = f"{locale}@{s['candidate'] or s['baseline']}"
    content = plan_json(locale, s).encode()
    blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
    if not legacy and blobs.get(locale) == blob:
        trailers.append(("Plans", "none"))  # the plan file is as it was: the commit changed no plan
    elif not legacy:
        altered = regions_changed(before, snapshot(s))
        trailers.append(("Plans", " ".join([locale, blobs.get(locale, "-"), blob] + altered)))
    blobs[locale] = blob
    lines = [summary, "", f"Rollout-Action: {action}", f"Rollout-Locale: {locale}", f"Rollout-Pack: {pack}",
             f"Rollout-Percent: {percent / 100:g}%"] + [f"Rollout-{k}: {v}" for k, v in trailers] + ["Rollout-Actor: bench <bench@example.invalid>"]
    message = ("\n".join(lines) + "\n").encode()
    out.write(b"commit refs/heads/main\n")
    out.write(f"committer bench <bench@example.invalid> {time} +0000\n".encode())
    out.write(b"data %d\n" % len(message) + message)
    if n == 1:
        out.write(f"from {parent}\n".encode())
    out.write(f"M 100644 inline plans/{locale}.json\n".encode())
    out.write(b"data %d\n" % len(content) + content + b"\n")
