#!/usr/bin/python3
"""Writes Sources/RolloutModel/Plurals/PluralRules+CLDR.swift and, from the same tables, the Android
client's android/src/main/java/dev/rollout/client/PluralRulesCldr.java: the CLDR cardinal plural
rules of every locale, from the CLDR data Python's babel package ships (Debian: python3-babel).

    scripts/generate-plural-rules.py           write the Swift and the Java file
    scripts/generate-plural-rules.py --check   print, as JSON, the Swift and the Java file it would
                                               write and babel's own category for every locale on a
                                               grid of numbers (PluralRulesTests compares the files
                                               with the committed ones, the categories with Swift's)

The Swift file holds each distinct rule set once (CLDR rule text, as babel normalises it: `in`,
`not in`, `mod`) and the rule set of every language, and of each longer tag whose rules differ
from what a device would find without it (pt-PT from pt, pt-AO from pt), so a device resolves any
tag as `PluralRules.lookupTags` does: the whole tag, a script subtag left out, then each form one
subtag shorter. CLDR's parent locales are followed, those babel has no data for included (pt_FR,
whose parent is pt_PT), and the script stops if a script would need rules of its own.
Standard library and babel only (docs/pack-format.md, "Plural forms").
"""

import decimal
import functools
import json
import os
import sys

import babel
from babel.core import get_global
from babel import localedata
from babel.plural import PluralRule

ORDER = ["zero", "one", "two", "few", "many"]
# babel does not say which CLDR release it carries; its changelog does.
CLDR_OF_BABEL = {"2.10": "41.0"}
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUTPUT = os.path.join(ROOT, "Sources", "RolloutModel", "Plurals", "PluralRules+CLDR.swift")
JAVA_OUTPUT = os.path.join(ROOT, "android", "src", "main", "java", "dev", "rollout", "client", "PluralRulesCldr.java")


def tag(identifier):
    """babel's `pt_PT` as the lowercase BCP 47 tag the Swift table looks up (`pt-pt`)."""
    return "und" if identifier == "root" else identifier.replace("_", "-").lower()


@functools.lru_cache(maxsize=None)
def plural_form(identifier):
    """babel's plural rule of a locale, inherited as babel's `localedata.load` inherits it (the
    parent is `parent_exceptions`' or the identifier one subtag shorter, then root), without
    merging all the rest of each locale's data, which takes seconds."""
    own = localedata.load(identifier, merge_inherited=False).get("plural_form") if localedata.exists(identifier) else None
    if own is not None or identifier == "root":
        return own or PluralRule({})
    parent = get_global("parent_exceptions").get(identifier) or (identifier.rpartition("_")[0] or "root")
    return plural_form(parent)


def rules_of(identifier):
    """The locale's cardinal rules in CLDR order, as (category, condition) pairs."""
    rules = plural_form(identifier).rules
    unknown = set(rules) - set(ORDER)
    if unknown:
        sys.exit("babel gives %s an unknown plural category %s" % (identifier, sorted(unknown)))
    return tuple((category, rules[category]) for category in ORDER if category in rules)


def all_identifiers():
    """Every locale babel has data for, and CLDR's parent locales it has none for (pt_FR, whose
    parent is pt_PT): each takes the rules of its parent."""
    orphans = [i for i, parent in get_global("parent_exceptions").items() if parent != "root" and not localedata.exists(i)]
    return set(localedata.locale_identifiers()) | set(orphans)


def lookup_tags(t):
    """PluralRules.lookupTags (Swift) and PluralRules.lookupTags (Java): the tags a device looks a
    locale up by, longest first; a script subtag is left out."""
    subtags = t.split("-")
    if len(subtags) > 1 and len(subtags[1]) == 4 and subtags[1].isalpha() and subtags[1].isascii():
        del subtags[1]
    return ["-".join(subtags[:n]) for n in range(len(subtags), 0, -1)]


def table():
    """(rule sets, {tag: rule set index}): every language CLDR has (so a device can tell a language
    it has no rules for from one whose only form is `other`), its legacy codes (`iw`, `in`, `tl`,
    `sh`), and the longer tags whose rules differ from the tag one subtag shorter."""
    identifiers = sorted(all_identifiers(), key=lambda i: (i.count("_"), i))
    sets = [()]
    index = {(): 0}
    locales = {}

    def resolved(tags):
        return next((locales[t] for t in tags if t in locales), 0)

    def number(identifier):
        rules = rules_of(identifier)
        if rules not in index:
            index[rules] = len(sets)
            sets.append(rules)
        return index[rules]

    for identifier in identifiers:
        if identifier == "root":
            continue
        t = tag(identifier)
        tags = lookup_tags(t)
        if "-" not in t:
            locales[t] = number(identifier)
        elif tags[0] != t:
            if number(identifier) != resolved(tags):
                sys.exit("CLDR gives %s rules of its own, which a device never looks up: PluralRules.lookupTags "
                         "(Swift and Java) must stop leaving its script out" % identifier)
        elif number(identifier) != resolved(tags[1:]):
            locales[t] = number(identifier)
    for alias, target in sorted(get_global("language_aliases").items()):
        if "_" not in alias and tag(alias) not in locales and localedata.exists(target):
            locales[tag(alias)] = number(target)
    return sets, locales


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cldr_version():
    return CLDR_OF_BABEL.get(".".join(babel.__version__.split(".")[:2]), "(release not known to the generator)")


def swift():
    sets, locales = table()
    version = babel.__version__
    cldr = cldr_version()
    lines = [
        "// Generated by scripts/generate-plural-rules.py from CLDR %s, as babel %s ships it. Do not edit:" % (cldr, version),
        "// run the script (python3-babel installed) and commit what it writes.",
        "// The generator's layout is the format (docs/architecture.md, \"Code layout\"):",
        "// swift-format-ignore-file",
        "",
        "extension PluralRules {",
        "    /// CLDR's version of the rules below.",
        "    public static let cldrVersion = %s" % swift_string(cldr),
        "",
        "    /// Each distinct CLDR cardinal rule set: a condition per category; `other` is what meets none.",
        "    static let cldrRuleSets: [[PluralCategory: String]] = [",
    ]
    for number, rules in enumerate(sets):
        if not rules:
            lines += ["        // %d" % number, "        [:],"]
            continue
        lines += ["        // %d" % number, "        ["]
        for category, condition in rules:
            lines.append("            .%s: %s," % (category, swift_string(condition)))
        lines.append("        ],")
    lines += [
        "    ]",
        "",
        "    /// Locale (lowercase BCP 47) -> its rule set in `cldrRuleSets`: every language CLDR has, and a",
        "    /// longer tag where its rules differ from the tag one subtag shorter.",
        "    static let cldrLocales: [String: Int] = [",
    ]
    entries = ['%s: %d' % (swift_string(t), locales[t]) for t in sorted(locales)]
    for start in range(0, len(entries), 8):
        lines.append("        " + ", ".join(entries[start:start + 8]) + ",")
    lines += ["    ]", "}", ""]
    return "\n".join(lines)


def java():
    """The same tables for the Android client (PluralRules.java reads them); Java string literals
    escape as Swift's do for this text (ASCII conditions and tags)."""
    sets, locales = table()
    lines = [
        "// Generated by scripts/generate-plural-rules.py from CLDR %s, as babel %s ships it. Do not edit:" % (cldr_version(), babel.__version__),
        "// run the script (python3-babel installed) and commit what it writes. The same tables as",
        "// Sources/RolloutModel/Plurals/PluralRules+CLDR.swift, so both clients choose the same forms.",
        "package dev.rollout.client;",
        "",
        "/** CLDR's cardinal plural rules, as PluralRules reads them. */",
        "final class PluralRulesCldr {",
        "    private PluralRulesCldr() {}",
        "",
        "    /** CLDR's version of the rules below. */",
        "    static final String CLDR_VERSION = %s;" % swift_string(cldr_version()),
        "",
        "    /**",
        "     * Each distinct CLDR cardinal rule set: {category, condition} pairs in CLDR order; {@code other}",
        "     * is what meets none. Never modified.",
        "     */",
        "    static final String[][][] RULE_SETS = {",
    ]
    for number, rules in enumerate(sets):
        if not rules:
            lines += ["        // %d" % number, "        {},"]
            continue
        lines += ["        // %d" % number, "        {"]
        for category, condition in rules:
            lines.append("            {%s, %s}," % (swift_string(category), swift_string(condition)))
        lines.append("        },")
    lines += [
        "    };",
        "",
        "    /**",
        "     * Locales (lowercase BCP 47), each with its rule set in {@link #RULE_SETS} at the same index of",
        "     * {@link #LOCALE_RULE_SETS}: every language CLDR has, and a longer tag where its rules differ",
        "     * from the tag one subtag shorter. Never modified.",
        "     */",
        "    static final String[] LOCALE_TAGS = {",
    ]
    tags = sorted(locales)
    quoted = [swift_string(t) for t in tags]
    for start in range(0, len(quoted), 10):
        lines.append("        " + ", ".join(quoted[start:start + 10]) + ",")
    lines += ["    };", "", "    static final int[] LOCALE_RULE_SETS = {"]
    numbers = [str(locales[t]) for t in tags]
    for start in range(0, len(numbers), 20):
        lines.append("        " + ", ".join(numbers[start:start + 20]) + ",")
    lines += ["    };", "}", ""]
    return "\n".join(lines)


def grid():
    """Numbers as a device gets them: whole numbers, and decimals with 1 to 3 visible fraction digits."""
    numbers = [str(n) for n in range(0, 201)]
    numbers += ["1000", "1001", "10000", "100000", "1000000", "1000001", "2000000", "10000000", "100000000", "1000000000"]
    for tenths in range(0, 31):
        numbers.append("%d.%d" % divmod(tenths, 10))
        numbers.append("%d.%d0" % divmod(tenths, 10))
    for hundredths in list(range(0, 30)) + [101, 111, 121, 150, 201, 211, 1011, 2111]:
        numbers.append("%d.%02d" % divmod(hundredths, 100))
    numbers += ["0.000", "1.000", "1.500", "2.010", "21.0", "11.1", "1000000.0", "1000000.5"]
    return numbers


def check():
    numbers = grid()
    categories = {}
    evaluated = {}
    for identifier in sorted(all_identifiers()):
        rules = rules_of(identifier)
        if rules not in evaluated:
            rule = PluralRule(dict(rules))
            evaluated[rules] = " ".join(rule(decimal.Decimal(n)) for n in numbers)
        categories[tag(identifier)] = evaluated[rules]
    report = {
        "babel": babel.__version__,
        "swift": swift(),
        "java": java(),
        "numbers": numbers,
        "categories": categories,
    }
    json.dump(report, sys.stdout, sort_keys=True)


def main(arguments):
    if arguments == ["--check"]:
        check()
    elif arguments == []:
        for path, text in ((OUTPUT, swift()), (JAVA_OUTPUT, java())):
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
    else:
        sys.exit("usage: generate-plural-rules.py [--check]")


if __name__ == "__main__":
    main(sys.argv[1:])
