#!/usr/bin/env python3
"""Writes a git fast-import stream of CHANGES rollout plan changes over 200 locales, in exactly the
form `rollout promote` commits them (plans/<locale>.json plus Rollout-* trailers), on top of PARENT.

Usage: generate.py CHANGES PARENT_COMMIT > stream
Deterministic: the same CHANGES gives the same history, and a shorter run is a prefix of a longer one.
"""
import json
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
    lines = [summary, "", f"Rollout-Action: {action}", f"Rollout-Locale: {locale}", f"Rollout-Pack: {pack}",
             f"Rollout-Percent: {percent / 100:g}%"] + [f"Rollout-{k}: {v}" for k, v in trailers] + ["Rollout-Actor: bench <bench@example.invalid>"]
    message = ("\n".join(lines) + "\n").encode()
    content = plan_json(locale, s).encode()
    out.write(b"commit refs/heads/main\n")
    out.write(f"committer bench <bench@example.invalid> {time} +0000\n".encode())
    out.write(b"data %d\n" % len(message) + message)
    if n == 1:
        out.write(f"from {parent}\n".encode())
    out.write(f"M 100644 inline plans/{locale}.json\n".encode())
    out.write(b"data %d\n" % len(content) + content + b"\n")
