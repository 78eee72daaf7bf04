#!/usr/bin/env python3
"""Check an import against its catalog for characters the importer must keep.

usage: import-survey-check.py FORMAT CATALOG REPO ROLLOUT

For every string stored in REPO (rollout pack show LOCALE@N --strings --json) the
string of the same locale and key in CATALOG is found, and the characters every
platform shows as they are, which whitespace handling must not touch, are compared:
non-ASCII spaces (U+00A0, U+202F, U+2009, U+3000, ...), format characters (ZWNJ,
ZWJ, bidi marks) and combining marks. And for a string without plural, select or
markup, its whole text: the platform's (aapt2's escapes, quotes and whitespace;
a String Catalog's or ARB's text as written; i18next's) against the stored ICU
message's as a device shows it, with each argument as one marker. A key whose stored text lacks one the source
has, or has one the source lacks, is printed (locale, key, source, stored). Plural
forms and variations are compared as a set of characters over all forms.
An i18next catalog whose values mostly write ICU arguments ({name}) rather than {{name}}
is likely for i18next-icu, which this reading (and the importer's) cannot judge: a note says so.
"""

import json
import os
import re
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET

PLURAL_SUFFIXES = ("_zero", "_one", "_two", "_few", "_many", "_other")
ARG = "\u0000"  # where an argument goes, in both renderings
PLATFORM = {}  # (locale, key) -> the text the platform shows, arguments as ARG, when known
PRINTF = re.compile(r"%(?:\d+\$)?[-+#0,]*\d*(?:\.\d+)?(?:hh|h|ll|l|q|z|t|j|L)?[@dDiuUxXoOfFeEgGcCsSpaA]")


def printf_text(text, java):
    """A printf format as the platform shows it, each conversion as ARG."""
    if java:
        text = text.replace("%n", "\n")
    parts = re.split(r"(%%)", text)
    return "".join("%" if part == "%%" else PRINTF.sub(ARG, part) for part in parts)


def aapt2_text(raw):
    """A span-free <string>'s text as aapt2 compiles it: the raw text loses its ASCII
    whitespace at both ends first (before quotes and escapes are read, so `a \\ ` is
    `a ` and an unclosed quote keeps nothing at the end), then escapes (a `\\` ending
    the text is nothing), double quotes keep whitespace, runs of ASCII whitespace
    elsewhere become one space."""
    raw = raw.strip(" \t\n\r\v\f")
    out, pending, quoted, i, started = [], False, False, 0, False
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 == len(raw):  # a lone `\` at the end: aapt2 emits nothing for it
            out.append(" " if pending and started else "")
            break
        if c == "\\" and i + 1 < len(raw):
            n = raw[i + 1]
            if n == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", raw[i + 2:i + 6]):
                c, i = chr(int(raw[i + 2:i + 6], 16)), i + 6
            else:
                c, i = {"n": "\n", "t": "\t"}.get(n, n), i + 2
            if pending and started:
                out.append(" ")
            pending, started = False, True
            out.append(c)
            continue
        i += 1
        if c == '"':
            quoted = not quoted
            continue
        if not quoted and c in " \t\n\r":
            pending = True
            continue
        if pending and started:
            out.append(" ")
        pending, started = False, True
        out.append(c)
    return "".join(out)


def icu_text(s):
    """A stored ICU message without plural or select as a device shows it, arguments as ARG."""
    if "%%" in s and not re.search(r"(?<!')\{\s*[\w.-]", s.replace("{{", "")):
        s = s.replace("%%", "%")  # PackPrintf: in a string without ICU arguments %% is one percent sign
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "'":
            if s[i + 1:i + 2] == "'":
                out.append("'")
                i += 2
                continue
            if s[i + 1:i + 2] in ("{", "}"):
                j = i + 1
                while j < len(s):
                    if s[j] == "'":
                        if s[j + 1:j + 2] == "'":
                            out.append("'")
                            j += 2
                            continue
                        break
                    out.append(s[j])
                    j += 1
                i = j + 1
                continue
        if c == "{":
            depth, j = 1, i + 1
            while j < len(s) and depth:
                depth += (s[j] == "{") - (s[j] == "}")
                j += 1
            out.append(ARG)
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def special(text):
    return {c for c in text if ord(c) > 127 and (
        unicodedata.category(c) in ("Zs", "Cf", "Mn", "Me") or c in "\u2028\u2029")}


def android_locale(folder):
    q = folder[len("values"):].lstrip("-")
    if not q:
        return None
    if q.startswith("b+"):
        return "-".join(q[2:].split("+"))
    parts = q.split("-")
    legacy = {"iw": "he", "in": "id", "ji": "yi"}
    parts[0] = legacy.get(parts[0], parts[0])
    if len(parts) == 2 and parts[1].startswith("r"):
        return f"{parts[0]}-{parts[1][1:]}"
    return parts[0] if len(parts) == 1 and re.fullmatch(r"[a-z]{2,3}", q) else "?" + q


def element_text(element):
    return "".join(element.itertext())


def android_strings(res):
    out = {}
    for folder in os.listdir(res):
        if not folder.startswith("values"):
            continue
        locale = android_locale(folder)
        for name in os.listdir(os.path.join(res, folder)):
            if not name.endswith(".xml"):
                continue
            try:
                root = ET.parse(os.path.join(res, folder, name)).getroot()
            except ET.ParseError:
                continue
            for el in root:
                key = el.get("name")
                if el.tag == "string":
                    out.setdefault(locale, {})[key] = element_text(el)
                    if len(el) == 0 and el.get("formatted") != "false":
                        PLATFORM[(locale, key)] = printf_text(aapt2_text(el.text or ""), java=True)
                elif el.tag == "plurals":
                    out.setdefault(locale, {})[key] = "\n".join(element_text(i) for i in el)
    return out


def xcstrings_strings(path):
    doc = json.load(open(path, encoding="utf-8"))
    out = {}

    def units(node):
        if isinstance(node, dict):
            if "stringUnit" in node:
                yield node["stringUnit"].get("value", "")
            for value in node.values():
                if isinstance(value, (dict, list)) and value is not node.get("stringUnit"):
                    yield from units(value)

    for key, entry in doc.get("strings", {}).items():
        for locale, loc in entry.get("localizations", {}).items():
            out.setdefault(locale, {})[key] = "\n".join(units(loc))
            value = loc.get("stringUnit", {}).get("value")
            if value is not None and "variations" not in loc and PRINTF.search(value):
                PLATFORM[(locale, key)] = printf_text(value, java=False)
            elif value is not None and "variations" not in loc and "%" not in value:
                PLATFORM[(locale, key)] = value
    return out


def flatten(node, prefix, out):
    for key, value in node.items():
        if isinstance(value, dict):
            flatten(value, f"{prefix}{key}.", out)
        elif isinstance(value, str):
            base = key
            for suffix in PLURAL_SUFFIXES:
                if key.endswith(suffix):
                    base = key[: -len(suffix)]
            name = prefix + base
            if name not in out and base == key and "$t(" not in value:
                PLATFORM[(LOCALE[0], name)] = re.sub(r"\{\{[^}]*\}\}", ARG, value)
            elif base != key:
                PLATFORM.pop((LOCALE[0], name), None)
            out[name] = out[name] + "\n" + value if name in out else value
            outside = re.sub(r"\{\{[^}]*\}\}", "", value)
            STYLE["icu"] += bool(re.search(r"\{\s*[\w.-]+\s*(\}|,\s*(plural|select|number|date))", outside))
            STYLE["i18next"] += "{{" in value


# i18next values written as ICU ({name}, {n, plural, ...}) and as i18next ({{name}}): a catalog
# with mostly the first is for i18next-icu, which the importer does not read (it stores such braces
# as text, and the comparison above shares that reading, so it is reported apart).
STYLE = {"icu": 0, "i18next": 0}


LOCALE = [None]


def i18next_strings(path):
    out = {}
    for entry in sorted(os.listdir(path)):
        full = os.path.join(path, entry)
        if os.path.isdir(full):
            locale = entry.replace("_", "-")
            LOCALE[0] = locale
            for root, _, files in os.walk(full):
                for name in files:
                    if not name.endswith(".json"):
                        continue
                    ns = os.path.relpath(os.path.join(root, name[:-5]), full)
                    prefix = "" if ns == "translation" else ns.replace(os.sep, "/") + "."
                    try:
                        flatten(json.load(open(os.path.join(root, name), encoding="utf-8")),
                                prefix, out.setdefault(locale, {}))
                    except ValueError:
                        pass
        elif entry.endswith(".json"):
            LOCALE[0] = entry[:-5].replace("_", "-")
            try:
                flatten(json.load(open(full, encoding="utf-8")), "",
                        out.setdefault(entry[:-5].replace("_", "-"), {}))
            except ValueError:
                pass
    return out


def arb_strings(path):
    out = {}
    for name in os.listdir(path):
        if not name.endswith(".arb"):
            continue
        try:
            doc = json.load(open(os.path.join(path, name), encoding="utf-8"))
        except ValueError:
            continue
        locale = doc.get("@@locale") or re.sub(r"^[a-z]+_", "", name[:-4], count=1)
        locale = locale.replace("_", "-")
        strings = {k: v for k, v in doc.items() if not k.startswith("@") and isinstance(v, str)}
        out.setdefault(locale, {}).update(strings)
        for key, value in strings.items():
            if not re.search(r"\{\s*\w+\s*,\s*(plural|select)", value):
                PLATFORM[(locale, key)] = re.sub(r"\{\s*\w+\s*\}", ARG, value)
    return out


READERS = {"android": android_strings, "xcstrings": xcstrings_strings,
           "i18next": i18next_strings, "arb": arb_strings}


def stored(repo, rollout):
    listing = json.loads(subprocess.run(
        [rollout, "--repo", repo, "pack", "list", "--json"],
        capture_output=True, text=True, check=True).stdout)
    packs = listing.get("packs", listing) if isinstance(listing, dict) else listing
    for pack in packs:
        ident = pack.get("pack") or f"{pack['locale']}@{pack['contentVersion']}"
        shown = json.loads(subprocess.run(
            [rollout, "--repo", repo, "pack", "show", ident, "--strings", "--json"],
            capture_output=True, text=True, check=True).stdout)
        yield shown["locale"], shown["strings"]


def source_for(sources, locale, key):
    """The catalog's string for a stored locale and key: the folder, file or localization
    of that locale (in any spelling), or for Android's source locale values/ itself."""
    for name, table in sources.items():
        if name is not None and name.replace("_", "-").lower() == locale.lower():
            if key in table:
                return table[key]
    if locale == "en-US":
        return sources.get(None, {}).get(key)
    return None


def main():
    fmt, catalog, repo, rollout = sys.argv[1:5]
    sources = READERS[fmt](catalog)
    changed = checked = 0
    for locale, strings in stored(repo, rollout):
        for key, value in strings.items():
            text = source_for(sources, locale, key)
            if text is None:
                continue
            checked += 1
            lost, added = special(text) - special(value), special(value) - special(text)
            platform = PLATFORM.get((locale, key))
            if platform is None and locale == "en-US":
                platform = PLATFORM.get((None, key))
            shown = None
            if platform is not None and not re.search(r", (plural|select|selectordinal),", value):
                shown = icu_text(value)
                if shown == platform:
                    shown = None
            if lost or added or shown is not None:
                changed += 1
                names = lambda cs: ",".join(f"U+{ord(c):04X}" for c in sorted(cs))
                what = []
                if lost or added:
                    what.append(f"lost {names(lost) or '-'} added {names(added) or '-'}")
                if shown is not None:
                    at = next((i for i, (x, y) in enumerate(zip(platform, shown)) if x != y),
                              min(len(platform), len(shown)))
                    what.append(f"text differs at {at}: platform {ascii(platform[max(0, at - 25):at + 25])}"
                                f" device {ascii(shown[max(0, at - 25):at + 25])}")
                print(f"{locale}\t{key[:60]}\t{'; '.join(what)}\tsource {ascii(text)[:100]}"
                      f"\tstored {ascii(value)[:100]}")
    if fmt == "i18next" and STYLE["icu"] > STYLE["i18next"]:
        print(f"# i18next-icu: {STYLE['icu']} source values write ICU arguments, {STYLE['i18next']}"
              " {{name}}: the app likely uses i18next-icu; their braces were stored as text")
    print(f"# {fmt} {catalog}: {checked} strings compared, {changed} differ")


if __name__ == "__main__":
    main()
