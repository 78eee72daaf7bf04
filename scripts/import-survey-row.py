#!/usr/bin/env python3
"""One markdown table row of scripts/import-survey.sh from one import's outputs.

usage: import-survey-row.py FORMAT APP MODE EXIT CATALOG BASE
BASE.json is the import's stdout (--json), BASE.err its stderr, BASE.time the
/usr/bin/time -v report. Strings in the source are counted from the files:
Android <string>, <plurals> and <string-array> of every values* folder; String
Catalog localizations; every string leaf of i18next JSON; every non-@ ARB key.
"""

import collections
import json
import os
import re
import sys


def count_android(path):
    total, locales = 0, 0
    for root, _, files in os.walk(path, followlinks=True):
        if not os.path.basename(root).startswith("values"):
            continue
        found = 0
        for name in files:
            if name.endswith(".xml"):
                with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                found += len(re.findall(r"<(string|plurals|string-array)[\s>]", text))
        total += found
        locales += found > 0
    return f"{locales} / {total}"


def count_xcstrings(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    locales = {loc for v in doc.get("strings", {}).values() for loc in v.get("localizations", {})}
    total = sum(len(v.get("localizations", {})) for v in doc.get("strings", {}).values())
    return f"{len(locales | {doc.get('sourceLanguage')})} / {total}"


def leaves(value):
    if isinstance(value, str):
        return 1
    if isinstance(value, dict):
        return sum(leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(leaves(v) for v in value)
    return 0


def count_i18next(path):
    total = 0
    locales = sum(1 for n in os.listdir(path) if os.path.isdir(os.path.join(path, n)) or n.endswith(".json"))
    for root, _, files in os.walk(path, followlinks=True):
        for name in files:
            if name.endswith(".json"):
                try:
                    with open(os.path.join(root, name), encoding="utf-8") as f:
                        total += leaves(json.load(f))
                except ValueError:
                    pass
    return f"{locales} / {total}"


def count_arb(path):
    total, locales = 0, 0
    names = [path] if os.path.isfile(path) else [
        os.path.join(path, n) for n in os.listdir(path) if n.endswith(".arb")]
    for name in names:
        try:
            with open(name, encoding="utf-8") as f:
                doc = json.load(f)
        except ValueError:
            continue
        found = sum(1 for k in doc if not k.startswith("@"))
        total += found
        locales += found > 0
    return f"{locales} / {total}"


COUNTERS = {"android": count_android, "xcstrings": count_xcstrings,
            "i18next": count_i18next, "arb": count_arb}


def reason_class(reason):
    """The reason without the string's own text: up to the first ':' (after a printf
    conversion, the part that follows it), with names, formatters and quotes elided."""
    reason = re.sub(r"\{\{[^}]*\}\}", "{{…}}", reason)
    head, _, rest = reason.partition(":")
    if head.startswith("%") and rest:
        head = "printf: " + rest.split(":", 1)[0].strip()
    head = re.sub(r"@\w+/[\w.]+", "@…/…", head.strip())
    head = re.sub(r"\([\w./-]+_(zero|one|two|few|many|other)\)", r"(…_\1)", head)
    return re.sub(r"(`[^`]*`|\"[^\"]*\"|'[^']*')", "…", head)


def refusal(base):
    """The refusal's first line and the number of problems it lists."""
    try:
        with open(base + ".err", encoding="utf-8", errors="replace") as f:
            text = f.read()
        message = json.loads(text)["error"]["message"]
    except (OSError, ValueError, KeyError, TypeError):
        message = text if "text" in locals() else ""
    lines = message.splitlines() or [""]
    problems = sum(1 for line in lines[1:] if line.startswith("  "))
    first = lines[0][:140].replace("|", "\\|")
    return f"{first} ({problems} listed)"


def time_report(base):
    wall, rss = "?", "?"
    try:
        with open(base + ".time", encoding="utf-8") as f:
            for line in f:
                if "Elapsed (wall clock)" in line:
                    clock = line.rsplit(" ", 1)[1].strip().split(":")
                    seconds = sum(float(p) * 60 ** i for i, p in enumerate(reversed(clock)))
                    wall = f"{seconds:.1f} s"
                elif "Maximum resident set size" in line:
                    rss = f"{int(line.rsplit(' ', 1)[1]) // 1024} MB"
    except OSError:
        pass
    return wall, rss


def main():
    fmt, app, mode, code, catalog, base = sys.argv[1:7]
    try:
        source = COUNTERS[fmt](catalog)
    except (OSError, ValueError) as error:
        source = f"? ({error.__class__.__name__})"
    try:
        with open(base + ".json", encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        doc = {}
    packs = doc.get("added", []) + doc.get("unchanged", []) if doc else []
    keys = sum(p.get("keys", 0) for p in packs if isinstance(p, dict))
    skipped = doc.get("skipped", [])
    classes = collections.Counter(reason_class(s.get("reason", "")) for s in skipped)
    by_class = ", ".join(f"{c} {n}" for c, n in sorted(classes.items(), key=lambda x: (-x[1], x[0])))
    files = doc.get("skippedFiles", [])
    wall, rss = time_report(base)
    if doc:
        imported = f"{len(packs)}, {keys}"
    else:
        imported = "none: " + refusal(base)
    try:
        with open(base + ".check", encoding="utf-8") as f:
            lines = f.read().splitlines()
        summary = re.search(r"(\d+) strings compared", lines[-1]) if lines else None
        changed = f"{sum(1 for line in lines if not line.startswith('#'))}"
        changed += f" of {summary.group(1)}" if summary else " (check failed)"
        icu = next((line for line in lines if line.startswith("# i18next-icu:")), None)
        changed += f"; ICU catalog read as i18next ({icu.split()[2]} values)" if icu else ""
    except OSError:
        changed = "-"
    print(f"| {fmt} | {app} | {mode} | {code} | {source} | {imported} | {len(skipped)} | "
          f"{by_class or '-'} | {len(files)} | {wall} | {rss} | {changed} |")


if __name__ == "__main__":
    main()
