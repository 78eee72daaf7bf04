#!/usr/bin/env python3
"""An independent check of the conformance vectors (docs/conformance.md), without any Swift code.

usage: check.py [DIR]   (DIR defaults to this script's folder)

Re-derives, from the rules written in docs/targeting.md, docs/manifest.md and docs/keys.md: every
bucket (hashlib), every version and range (its own parser), every resolution and every chain, every
signature verdict (the exact .sig form, then `openssl pkeyutl -verify -rawin`), and every trust
decision (key lists, root changes, publishing keys, index freshness); and every plural category
from CLDR's rules as babel evaluates them. Python's standard library, the openssl command and
python3-babel only. Prints one line per file and exits 1 on any disagreement.
"""
import base64, calendar, decimal, hashlib, json, os, re, subprocess, sys, tempfile

# Plural categories come from CLDR's data as babel ships it (Debian: python3-babel, installed for
# /usr/bin/python3); a python3 that lacks it (a pyenv one first on PATH) hands the run to one that has it.
try:
    import babel.core
except ImportError:
    for python in ("/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"):
        if os.access(python, os.X_OK) and os.path.realpath(python) != os.path.realpath(sys.executable) \
                and subprocess.run([python, "-c", "import babel"], capture_output=True).returncode == 0:
            os.execv(python, [python] + sys.argv)
    babel = None

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

    def tester(t):
        digest = hashlib.sha256(t["salt"].encode() + b"\x00" + install_id.encode()).hexdigest()
        return digest in t["members"]

    if not any(withdrawn(w) for w in plan["withdrawn"]):
        # Testers first (docs/targeting.md, Testers first): a member gets the pack whatever its bucket.
        group = next((t for t in sorted(plan.get("testers", []), key=lambda t: t["group"]) if tester(t)), None)
        if group:
            pack = group["pack"]
            if pack["contentVersion"] not in blocked and compare(app, version(pack["minAppVersion"])) >= 0:
                return pack["contentVersion"]
        variant = experiment_variant(plan, region, app, install_id, blocked)
        if variant is not None:
            return variant
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


# Step 4, the experiment (docs/experiments.md): the variant's content version, or None to go on.
def experiment_variant(plan, region, app, install_id, blocked):
    e = plan.get("experiment")
    if not e:
        return None
    bounds = parse_range(e["appVersions"])
    if bounds is None or (e["regions"] and region not in e["regions"]) or not in_range(bounds, app):
        return None
    b = bucket(install_id, e["salt"])
    v = next((v for v in e["variants"] if v["from"] <= b < v["to"]), None)
    if v is None or v["pack"]["contentVersion"] in blocked or compare(app, version(v["pack"]["minAppVersion"])) < 0:
        return None
    return v["pack"]["contentVersion"]


# The variant a device is in: the one step 4 gives it, when resolution gets that far.
def in_experiment(plan, region, app_text, install_id):
    app = version(app_text)
    if app is None or plan["bundledOnly"]:
        return None
    if any(w["region"] in ("*", region) and (parse_range(w["appVersions"]) is None or in_range(parse_range(w["appVersions"]), app))
           for w in plan["withdrawn"]):
        return None
    blocked = set(plan["blocked"])
    for t in sorted(plan.get("testers", []), key=lambda t: t["group"]):
        if hashlib.sha256(t["salt"].encode() + b"\x00" + install_id.encode()).hexdigest() in t["members"]:
            pack = t["pack"]
            if pack["contentVersion"] not in blocked and compare(app, version(pack["minAppVersion"])) >= 0:
                return None
            break
    return experiment_variant(plan, region, app, install_id, blocked)


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


# Ed25519 through openssl: the raw 32-byte key as DER, the raw 64-byte signature
verified = {}


def ed25519_ok(raw_key, data, raw_sig, scratch):
    memo = (raw_key, hashlib.sha256(data).digest(), raw_sig)
    if memo not in verified:
        der = bytes.fromhex("302a300506032b6570032100") + raw_key
        paths = {name: os.path.join(scratch, name) for name in ("key.der", "data", "sig")}
        for name, content in (("key.der", der), ("data", data), ("sig", raw_sig)):
            with open(paths[name], "wb") as f:
                f.write(content)
        result = subprocess.run(
            ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", paths["key.der"], "-keyform", "DER", "-rawin",
             "-in", paths["data"], "-sigfile", paths["sig"]], capture_output=True)
        verified[memo] = result.returncode == 0
    return verified[memo]


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
    return ed25519_ok(base64.b64decode(public_key.removeprefix("ed25519:"), validate=True), data, raw, scratch)


# Trust (docs/keys.md): what a device on a key list accepts. Every refusal is a code.
class Refused(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def strict_json(data):
    def no_duplicates(pairs):
        names = [name for name, _ in pairs]
        if len(set(names)) != len(names):
            raise ValueError("duplicate member")
        return dict(pairs)
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=no_duplicates)
    except (UnicodeDecodeError, ValueError):
        raise Refused("damaged")


def damaged_unless(condition):
    if not condition:
        raise Refused("damaged")


def is_int(value, minimum):
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def seconds(text):
    """ISO 8601 as a key list or an index writes it: a date, or a time with Z or an offset."""
    m = isinstance(text, str) and re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(Z|([+-])(\d{2}):(\d{2})))?", text, re.ASCII)
    damaged_unless(m)
    y, mo, d = int(m[1]), int(m[2]), int(m[3])
    damaged_unless(1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1])
    total = calendar.timegm((y, mo, d, int(m[4] or 0), int(m[5] or 0), int(m[6] or 0)))
    if m[8]:
        total -= (1 if m[8] == "+" else -1) * (int(m[9]) * 3600 + int(m[10]) * 60)
    return total


def key_id(raw):
    return hashlib.sha256(raw).hexdigest()[:16]


def is_key_id(text):
    return isinstance(text, str) and re.fullmatch(r"[0-9a-f]{16}", text) is not None


def public_key(text, listed_as):
    damaged_unless(isinstance(text, str) and text.startswith("ed25519:"))
    try:
        raw = base64.b64decode(text[len("ed25519:"):], validate=True)
    except ValueError:
        raise Refused("damaged")
    damaged_unless(len(raw) == 32 and "ed25519:" + base64.b64encode(raw).decode() == text and key_id(raw) == listed_as)
    return raw


def parse_key_list(data):
    """keys.json, format rollout-keys/1: as a comparable dict, or Refused("damaged")."""
    o = strict_json(data)
    damaged_unless(isinstance(o, dict) and o.get("format") == "rollout-keys/1")
    roots, publishing, revoked = o.get("roots"), o.get("publishing"), o.get("revoked")
    damaged_unless(is_int(o.get("version"), 1) and isinstance(roots, dict) and is_int(roots.get("threshold"), 1)
                   and isinstance(roots.get("keys"), dict) and isinstance(publishing, dict) and isinstance(revoked, dict)
                   and isinstance(o.get("rootChanges"), list) and all(is_int(v, 1) for v in o["rootChanges"]))
    damaged_unless(len(roots["keys"]) <= 16 and len(roots["keys"]) + len(publishing) + len(revoked) <= 256 and len(o["rootChanges"]) <= 64)
    keys = {"version": o["version"], "time": seconds(o.get("time")), "threshold": roots["threshold"], "rootChanges": o["rootChanges"]}
    keys["roots"] = {kid: public_key(text, kid) for kid, text in roots["keys"].items()}
    keys["publishing"] = {}
    for kid, p in publishing.items():
        damaged_unless(isinstance(p, dict))
        created, expires = seconds(p.get("created")), seconds(p.get("expires"))
        damaged_unless(expires >= created)
        keys["publishing"][kid] = (public_key(p.get("publicKey"), kid), created, expires)
    keys["revoked"] = {}
    for kid, r in revoked.items():
        damaged_unless(is_key_id(kid) and isinstance(r, dict) and isinstance(r.get("reason"), str))
        keys["revoked"][kid] = (seconds(r.get("time")), r["reason"])
    # One role per key, a reachable threshold, root changes from 1, growing, not past the version.
    damaged_unless(keys["roots"] and keys["threshold"] <= len(keys["roots"]))
    damaged_unless(not set(keys["roots"]) & set(keys["publishing"]))
    damaged_unless(not set(keys["revoked"]) & (set(keys["roots"]) | set(keys["publishing"])))
    changes = keys["rootChanges"]
    damaged_unless(changes and changes[0] == 1 and all(a < b for a, b in zip(changes, changes[1:])) and changes[-1] <= keys["version"])
    return keys


def parse_signatures(data):
    """FILE.sigs, format rollout-signatures/1: [(keyid, raw signature)], at most 16, each signature
    the canonical base64 (padding, zero padding bits) of 64 bytes."""
    o = strict_json(data)
    damaged_unless(isinstance(o, dict) and o.get("format") == "rollout-signatures/1" and isinstance(o.get("signatures"), list))
    damaged_unless(len(o["signatures"]) <= 16)
    entries = []
    for e in o["signatures"]:
        damaged_unless(isinstance(e, dict) and is_key_id(e.get("keyid")) and isinstance(e.get("sig"), str))
        try:
            raw = base64.b64decode(e["sig"], validate=True)
        except ValueError:
            raise Refused("damaged")
        damaged_unless(len(raw) == 64 and base64.b64encode(raw).decode() == e["sig"])
        entries.append((e["keyid"], raw))
    return entries


def signers(entries, data, keys, scratch):
    """The ids of `keys` ({id: raw}) with a signature over data that verifies; each id once."""
    return {kid for kid, sig in entries if kid in keys and ed25519_ok(keys[kid], data, sig, scratch)}


def accept_key_list(site, roots, threshold, held, minimum, walk_after, scratch):
    """The key list a device trusting (roots, threshold), holding `held` and built with the minimum
    key list version `minimum` accepts from the site; root changes are walked after `walk_after`
    (the held list's version, or 0 when the built-in roots count over the held list's)."""
    latest = parse_key_list(site.get("keys.json", b""))
    if held and latest["version"] < held["version"]:
        raise Refused("keys-replayed")
    if latest["version"] < minimum:
        raise Refused("below-minimum-keys-version")
    if held and latest["version"] == held["version"]:
        if latest != held:
            raise Refused("keys-conflict")
        if walk_after == held["version"]:
            return held
    # The list each later one is compared with: the held one, unless the built-in roots count.
    previous = held if held and walk_after == held["version"] else None
    entries = parse_signatures(site.get("keys.json.sigs", b""))
    if len(signers(entries, site["keys.json"], roots, scratch)) < threshold:
        # Root changes, oldest first; one this device cannot check is skipped.
        for version in (v for v in latest["rootChanges"] if walk_after < v < latest["version"]):
            path = f"keys/{version}.json"
            try:
                step = parse_key_list(site[path])
                step_entries = parse_signatures(site[path + ".sigs"])
            except (KeyError, Refused):
                continue
            if (step["version"] == version and step["rootChanges"][-1] == version
                    and len(signers(step_entries, site[path], roots, scratch)) >= threshold
                    and len(signers(step_entries, site[path], step["roots"], scratch)) >= step["threshold"]):
                keeps_revocations(step, previous)
                records_root_changes(step, previous)
                previous = step
                roots, threshold = step["roots"], step["threshold"]
    trusted = signers(entries, site["keys.json"], roots, scratch)
    if len(trusted) < threshold:
        publishing = {kid: entry[0] for kid, entry in latest["publishing"].items() if kid not in roots}
        if not trusted and signers(entries, site["keys.json"], publishing, scratch):
            raise Refused("wrong-role")
        raise Refused("not-signed-by-trusted-roots")
    if len(signers(entries, site["keys.json"], latest["roots"], scratch)) < latest["threshold"]:
        raise Refused("not-signed-by-own-roots")
    for earlier in (previous, held):
        keeps_revocations(latest, earlier)
        records_root_changes(latest, earlier)
    return latest


def records_root_changes(later, earlier):
    """A later list starts its rootChanges with the earlier one's, and names a version after the
    earlier one there when its roots (keys or threshold) differ."""
    if not earlier:
        return
    kept = later["rootChanges"][:len(earlier["rootChanges"])] == earlier["rootChanges"]
    same_roots = (later["roots"], later["threshold"]) == (earlier["roots"], earlier["threshold"])
    if not kept or not (same_roots or any(v > earlier["version"] for v in later["rootChanges"])):
        raise Refused("root-change-unrecorded")


def keeps_revocations(later, earlier):
    if earlier and not set(earlier["revoked"]) <= set(later["revoked"]):
        raise Refused("revocation-dropped")


def publishing_key(site, path, keys, now, scratch):
    """The publishing key vouching for `path`. A revoked key is the reason given before any other;
    otherwise the first of a root key's valid signature (wrong role) and an expired key's; else none
    of the list's keys signed it."""
    reason = None
    for kid, sig in parse_signatures(site.get(path + ".sigs", b"")):
        if kid in keys["revoked"]:
            reason = "revoked-key"
        elif kid in keys["roots"]:
            if reason is None and ed25519_ok(keys["roots"][kid], site[path], sig, scratch):
                reason = "wrong-role"
        elif kid in keys["publishing"] and ed25519_ok(keys["publishing"][kid][0], site[path], sig, scratch):
            if keys["publishing"][kid][2] > now:
                return kid
            reason = reason or "expired-key"
    raise Refused(reason or "unknown-key")


def trust_decision(device, site, now, scratch):
    def raw_keys(texts):
        return {key_id(raw): raw for raw in (base64.b64decode(k.removeprefix("ed25519:")) for k in texts)}
    roots, threshold = raw_keys(device["rootKeys"]), device["threshold"]
    held = parse_key_list(base64.b64decode(device["keyList"])) if device["keyList"] is not None else None
    anchored = device["anchoredTo"]
    walk_after = 0
    # The held list's roots count while the app's roots are those that accepted it (or unrecorded).
    if held and (anchored is None or (raw_keys(anchored["keys"].values()), anchored["threshold"]) == (roots, threshold)):
        roots, threshold, walk_after = held["roots"], held["threshold"], held["version"]
    holds = held["version"] if held else None
    try:
        keys = accept_key_list(site, roots, threshold, held, device["minimumKeysVersion"], walk_after, scratch)
        holds = keys["version"]
        publishing_key(site, "index.json", keys, now, scratch)
        index = strict_json(site.get("index.json", b""))
        damaged_unless(isinstance(index, dict) and index.get("format") == "rollout-index/1" and is_int(index.get("sequence"), 0))
        if index["sequence"] < device["acceptedIndexSequence"]:
            raise Refused("index-replayed")
        if index["sequence"] < device["minimumIndexSequence"]:
            raise Refused("below-minimum-sequence")
        if "expires" not in index:
            raise Refused("index-without-expiry")
        if seconds(index["expires"]) <= now:
            raise Refused("index-expired")
        return {"accepted": {"keysVersion": keys["version"], "indexSequence": index["sequence"]}}
    except Refused as refused:
        return {"refused": refused.code, "keysVersion": holds}


# Plural categories (docs/pack-format.md, Plural forms): CLDR's rules through babel's own evaluator
def babel_locale(tag):
    """babel's locale for a tag of the vectors; a legacy code babel has no data for (sh, prs) as CLDR's alias says,
    and a locale it has no data for (pt-FR) as its CLDR parent locale (pt_PT)."""
    try:
        return babel.core.Locale.parse(tag, sep="-")
    except (babel.core.UnknownLocaleError, ValueError):
        parent = babel.core.get_global("parent_exceptions").get(tag.replace("-", "_"))
        return babel.core.Locale.parse(parent or babel.core.get_global("language_aliases")[tag], sep="_")


def check_plurals(data):
    numbers = set(data["numbers"])
    count = 0
    for tag, groups in sorted(data["languages"].items()):
        rule = babel_locale(tag).plural_form
        listed = []
        for category, text in groups.items():
            for number in text.split():
                listed.append(number)
                count += 1
                expect("plurals.json", f"{tag} {number}", rule(decimal.Decimal(number)), category)
        expect("plurals.json", f"{tag}: the numbers listed", sorted(listed), sorted(numbers))
    return count


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
        got = in_experiment(data["plans"][c["plan"]], c["region"], c["appVersion"], c["installId"])
        expect("resolution.json", f"{c['plan']} {c['region']} {c['appVersion']} {c['installId']} in experiment", got, c["experimentVariant"])
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

    data = load("trust.json")
    with tempfile.TemporaryDirectory() as scratch:
        for c in data["cases"]:
            site = {path: base64.b64decode(text) for path, text in c["site"].items()}
            expect("trust.json", c["name"], trust_decision(c["device"], site, seconds(c["now"]), scratch), c["expected"])
    print(f"trust.json: {len(data['cases'])} cases (openssl)")

    if babel is None:
        failures.append("plurals.json: not checked: python3-babel is not installed (apt-get install python3-babel)")
    else:
        print(f"plurals.json: {check_plurals(load('plurals.json'))} categories (babel {babel.__version__})")

    for failure in failures:
        print(failure)
    print("ok" if not failures else f"{len(failures)} disagreement(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
