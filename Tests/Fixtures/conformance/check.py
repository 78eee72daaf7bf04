#!/usr/bin/env python3
"""An independent check of the conformance vectors (docs/conformance.md), without any Swift code.

usage: check.py [DIR]   (DIR defaults to this script's folder)

Re-derives, from the rules written in docs/targeting.md and docs/manifest.md: every bucket
(hashlib), every version and range (its own parser), every resolution and every chain, and every
signature verdict (the exact .sig form, then `openssl pkeyutl -verify -rawin`). Python's standard
library and the openssl command only. Prints one line per file and exits 1 on any disagreement.
"""
import base64, hashlib, json, os, re, subprocess, sys, tempfile

DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
failures = []


def load(name):
    with open(os.path.join(DIR, name), encoding="utf-8") as f:
        return json.load(f)


def expect(file, what, got, wanted):
    if got != wanted:
        failures.append(f"{file}: {what}: got {got!r}, the vector says {wanted!r}")


# Bucketing (docs/targeting.md, Bucketing)
def bucket(install_id, salt):
    digest = hashlib.sha256(salt.encode("utf-8") + b"\x00" + install_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % 10000


# Versions and ranges (docs/targeting.md, App versions and App-version ranges)
def version(text):
    if not isinstance(text, str) or len(text.encode()) > 80 or not re.fullmatch(r"[0-9]+(\.[0-9]+)*", text, re.ASCII):
        return None
    parts = [int(p) for p in text.split(".")]
    if len(parts) > 8 or max(parts) > 999_999_999:
        return None
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def compare(a, b):
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a > b) - (a < b)


def parse_range(text):
    """A list of (op, version) bounds, or None. Forms: *, V.x, =V, >=V, >V, <V, <=V, 'LOWER UPPER'."""
    if text == "*":
        return []
    if re.fullmatch(r"[0-9]+(\.[0-9]+)*\.x", text, re.ASCII):
        base = version(text[:-2])
        if base is None:
            return None
        raw = [int(p) for p in text[:-2].split(".")]
        return [(">=", base), ("<", tuple(raw[:-1] + [raw[-1] + 1]))]
    parts = text.split(" ")
    if not 1 <= len(parts) <= 2:
        return None
    bounds = []
    for part in parts:
        m = re.fullmatch(r"(>=|>|<=|<|=)([0-9.]+)", part, re.ASCII)
        if not m or version(m.group(2)) is None:
            return None
        bounds.append((m.group(1), version(m.group(2))))
    ops = [op for op, _ in bounds]
    if len(bounds) == 2:
        if "=" in ops or not (ops[0] in (">=", ">") and ops[1] in ("<=", "<")):
            return None
        (lo_op, lo), (hi_op, hi) = bounds
        c = compare(lo, hi)
        if c > 0 or (c == 0 and not (lo_op == ">=" and hi_op == "<=")):
            return None
    return bounds


def in_range(bounds, v):
    tests = {">=": lambda c: c >= 0, ">": lambda c: c > 0, "<=": lambda c: c <= 0, "<": lambda c: c < 0, "=": lambda c: c == 0}
    return all(tests[op](compare(v, bound)) for op, bound in bounds)


# Resolution (docs/targeting.md, Resolution), with the rule for ranges a device cannot parse
def resolve(plan, region, app_text, install_id):
    app = version(app_text)
    if app is None or plan["bundledOnly"]:
        return None
    blocked = set(plan["blocked"])

    def withdrawn(w):
        bounds = parse_range(w["appVersions"])
        return w["region"] in ("*", region) and (bounds is None or in_range(bounds, app))

    def matches(r):
        bounds = parse_range(r["appVersions"])
        return bounds is not None and (not r["regions"] or region in r["regions"]) and in_range(bounds, app)

    if not any(withdrawn(w) for w in plan["withdrawn"]):
        rule = next((r for r in plan["rules"] if matches(r)), None)
        if rule:
            pack = rule["pack"]
            if (pack["contentVersion"] not in blocked and compare(app, version(pack["minAppVersion"])) >= 0
                    and bucket(install_id, rule["salt"]) < rule["basisPoints"]):
                return pack["contentVersion"]
    for pack in ([plan["baseline"]] if plan["baseline"] else []) + plan["previousBaselines"]:
        if pack["contentVersion"] not in blocked and compare(app, version(pack["minAppVersion"])) >= 0:
            return pack["contentVersion"]
    return None


# The chain of a device (docs/manifest.md)
def chain(index, locale):
    locales = index["locales"]
    if locale in locales:
        return locales[locale]["chain"]
    shorter = locale
    while "-" in shorter:
        shorter = shorter.rsplit("-", 1)[0]
        if shorter in locales:
            entry = locales[shorter]
            return entry.get("fallbackChain", entry["chain"])
    return [index["defaultLocale"]] if index["defaultLocale"] in locales else []


# Signatures (docs/manifest.md, Signatures): the exact form first, then openssl
def signature_ok(public_key, data, sig_file, scratch):
    if len(sig_file) != 89 or not sig_file.endswith(b"\n"):
        return False
    try:
        raw = base64.b64decode(sig_file[:-1], validate=True)
    except ValueError:
        return False
    if len(raw) != 64 or base64.b64encode(raw) + b"\n" != sig_file:
        return False
    der = bytes.fromhex("302a300506032b6570032100") + base64.b64decode(public_key.removeprefix("ed25519:"), validate=True)
    paths = {name: os.path.join(scratch, name) for name in ("key.der", "data", "sig")}
    for name, content in (("key.der", der), ("data", data), ("sig", raw)):
        with open(paths[name], "wb") as f:
            f.write(content)
    result = subprocess.run(
        ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", paths["key.der"], "-keyform", "DER", "-rawin",
         "-in", paths["data"], "-sigfile", paths["sig"]], capture_output=True)
    return result.returncode == 0


def main():
    data = load("bucketing.json")
    for v in data["vectors"]:
        expect("bucketing.json", f"{v['salt']!r} {v['installId']!r}", bucket(v["installId"], v["salt"]), v["bucket"])
    print(f"bucketing.json: {len(data['vectors'])} buckets")

    data = load("version-ranges.json")
    for v in data["versions"]:
        parsed = version(v["text"])
        expect("version-ranges.json", f"version {v['text']!r} valid", parsed is not None, v["valid"])
        if parsed is not None:
            expect("version-ranges.json", f"version {v['text']!r} normalized", ".".join(map(str, parsed)), v["normalized"])
    for v in data["compare"]:
        expect("version-ranges.json", f"{v['a']} vs {v['b']}", compare(version(v["a"]), version(v["b"])), v["order"])
    for v in data["ranges"]:
        bounds = parse_range(v["text"])
        expect("version-ranges.json", f"range {v['text']!r} valid", bounds is not None, v["valid"])
        if bounds is not None:
            for probe in v["contains"]:
                expect("version-ranges.json", f"{v['text']!r} contains {probe}", in_range(bounds, version(probe)), True)
            for probe in v["excludes"]:
                expect("version-ranges.json", f"{v['text']!r} contains {probe}", in_range(bounds, version(probe)), False)
    print(f"version-ranges.json: {len(data['versions'])} versions, {len(data['compare'])} comparisons, {len(data['ranges'])} ranges")

    data = load("resolution.json")
    for c in data["cases"]:
        got = resolve(data["plans"][c["plan"]], c["region"], c["appVersion"], c["installId"])
        expect("resolution.json", f"{c['plan']} {c['region']} {c['appVersion']} {c['installId']}", got, c["contentVersion"])
    print(f"resolution.json: {len(data['cases'])} resolutions")

    data = load("chains.json")
    for c in data["cases"]:
        expect("chains.json", f"{c['index']} {c['locale']}", chain(data["indexes"][c["index"]], c["locale"]), c["chain"])
    print(f"chains.json: {len(data['cases'])} chains")

    data = load("signatures.json")
    with tempfile.TemporaryDirectory() as scratch:
        for c in data["cases"]:
            got = signature_ok(data["publicKey"], base64.b64decode(c["file"]), base64.b64decode(c["sig"]), scratch)
            expect("signatures.json", c["name"], got, c["valid"])
        # The good signature must fail under the other key, through openssl itself.
        for good in (c for c in data["cases"] if c["name"] == "good"):
            expect("signatures.json", "the good case under otherPublicKey",
                   signature_ok(data["otherPublicKey"], base64.b64decode(good["file"]), base64.b64decode(good["sig"]), scratch), False)
    print(f"signatures.json: {len(data['cases'])} signatures (openssl)")

    for failure in failures:
        print(failure)
    print("ok" if not failures else f"{len(failures)} disagreement(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
