#!/usr/bin/env python3
"""Writes a git fast-import stream for bench/publish, on top of PARENT (the init commit of a
`rollout init` repository): LOCALES locales (default 200: 20 languages x 10 countries), each with
VERSIONS pack versions (default 50), in exactly the form rollout commits them.

Usage: generate.py PARENT_COMMIT [LOCALES] [VERSIONS] > stream

For every version, round by round over the locales, two commits, as `rollout pack add` and
`rollout promote LOCALE@V --to 100%` make them:
  - "pack add L@V": packs/L/V.json (the stored form Pack.storedBytes writes: members sorted by
    UTF-16 code units, two-space indentation, `checksum` = sha256 of the RFC 8785 canonical form
    without `checksum`) and packs/L/V.meta.json (the PackRecord, pretty JSON);
  - "complete L@V: the baseline of L": plans/L.json with baseline V, previousBaselines V-1..1
    (newest first), sequence V and lastChange, pretty JSON as PlanOperations writes it.
So at the tip every locale's plan names all VERSIONS versions, and `rollout publish` publishes them all.

Packs: ~300 keys (`screen.section.item`, the same keys in every locale), values of 20-80 characters
in the locale's script (Latin with diacritics, Cyrillic, Arabic, Hangul, kana/kanji, hanzi), some
with placeholders ({name}, %d, {{version}}, {amount}, ICU plurals) that a key keeps in every locale
and version, as placeholder parity requires. Each later version changes 3 values (never a protected
checkout.*/legal.* key) and every tenth adds one key. Deterministic: the content of a locale does
not depend on how many locales or versions are generated. Standard library only.

Blobs are written first, each locale's packs in version order, so fast-import can delta them
against each other (the repository is one packfile, as after `git gc`); commits follow.
"""

import hashlib
import json.encoder
import random
import sys

PARENT = sys.argv[1]
LOCALE_COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 200
VERSIONS = int(sys.argv[3]) if len(sys.argv) > 3 else 50
ACTOR_NAME, ACTOR_EMAIL = "bench", "bench@example.invalid"
ACTOR = f"{ACTOR_NAME} <{ACTOR_EMAIL}>"
T0 = 1_780_000_000
CHANGES_PER_VERSION = 3

LANGUAGES = ["en", "tr", "vi", "de", "fr", "es", "it", "pt", "ja", "ko", "zh", "ar", "ru", "pl", "nl", "sv", "da", "fi", "nb", "cs"]
COUNTRIES = ["US", "TR", "VN", "DE", "FR", "ES", "IT", "BR", "JP", "KR"]
# Country by country, so a smaller run (LOCALES=20) still has every language and script.
ALL_LOCALES = [f"{language}-{country}" for country in COUNTRIES for language in LANGUAGES]
assert len(ALL_LOCALES) == 200 and ALL_LOCALES[0] == "en-US"
LOCALES = ALL_LOCALES[:LOCALE_COUNT]

SCREENS = ["home", "search", "library", "player", "profile", "settings", "onboarding", "paywall", "share", "downloads",
           "notifications", "reader", "catalog", "offers", "support", "account", "friends", "history", "update", "error",
           "checkout", "legal"]
SECTIONS = ["header", "banner", "list", "empty", "toolbar", "dialog", "toast", "footer", "card", "menu", "tabs", "form",
            "hint", "badge", "sheet"]
ITEMS = ["title", "subtitle", "body", "action", "cancel", "confirm", "placeholder", "caption", "label", "description",
         "error", "success", "more", "retry"]
PROTECTED_PREFIXES = ("checkout.", "legal.")

# Letters per language, weighted by repetition; words are drawn from them. Precomposed (NFC) only.
LATIN = "aaaaeeeeeiiiioooouuunnnrrrsssttllmmkkdgbpvhcyz"
ALPHABETS = {
    "en": None,  # English words below
    "tr": LATIN + "ğşıçöüı",
    "vi": "aaaeeiioouunnhhttcgmdđươăâêôạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ",
    "de": LATIN + "äöüßeenn",
    "fr": LATIN + "éèêàçùûîô",
    "es": LATIN + "ñáéíóú",
    "it": LATIN + "àèéìòù",
    "pt": LATIN + "ãõçáéâêó",
    "pl": LATIN + "ąęłńóśźżcz",
    "nl": LATIN + "ijeeoo",
    "sv": LATIN + "åäö",
    "da": LATIN + "æøå",
    "fi": LATIN + "äöaaii",
    "nb": LATIN + "æøå",
    "cs": LATIN + "čřšžýáíéůě",
    "ru": "аааоооеееииннттссррвлкмдпуяыьзбгчйхжшюцщэфъё",
    "ar": "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "ko": None,  # Hangul syllables
    "ja": None,  # kana and kanji
    "zh": None,  # hanzi
}
EN_WORDS = ("library account settings download share listen read update notification friend history file version "
            "connection offline sync new feature fix cart payment offer subscription help support password sign in out "
            "profile view edit save delete cancel confirm continue back next done suggestion list queue playback music "
            "book chapter page font dark light theme language region daily weekly monthly yearly free trial start finish "
            "choose search not found please try again now later always never personal privacy terms accept quick secure").split()
KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテトナニヌネノ"
KANJI = "日本語設定更新保存削除表示検索音楽書籍章頁通知友達履歴接続同期新機能修正支払購入確認続行戻次完了言語地域無料開始終了選択"
HANZI = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明"
MARKS = ".!?。？！"


# Escapes only '"', '\\' and controls (\b \t \n \f \r, else \u00xx), nothing else: what JSONWriter does.
ESCAPE = json.encoder.encode_basestring


def utf16_key(s):
    return s.encode("utf-16-be")


def write_json(value, pretty, level=0):
    """JSONWriter.canonical (pretty=False) or JSONWriter.pretty without the final newline (pretty=True)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return ESCAPE(value)
    inner = "\n" + "  " * (level + 1) if pretty else ""
    outer = "\n" + "  " * level if pretty else ""
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[" + ",".join(inner + write_json(item, pretty, level + 1) for item in value) + outer + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        colon = ": " if pretty else ":"
        members = [inner + ESCAPE(k) + colon + write_json(value[k], pretty, level + 1)
                   for k in sorted(value, key=utf16_key)]
        return "{" + ",".join(members) + outer + "}"
    raise TypeError(type(value))


def pretty(value):
    return (write_json(value, True) + "\n").encode()


def canonical(value):
    return write_json(value, False).encode()


def timestamp(seconds):
    import datetime
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def min_app(version):
    return "4.0.0" if version <= 20 else ("4.5.0" if version <= 40 else "4.8.0")


def make_keys():
    rng = random.Random(7)
    keys = set()
    while len(keys) < 300:
        keys.add(f"{rng.choice(SCREENS)}.{rng.choice(SECTIONS)}.{rng.choice(ITEMS)}")
    ordered = sorted(keys)
    rng.shuffle(ordered)
    return ordered


# Placeholder kind per key: the same in every locale and version.
PLACEHOLDER_KINDS = [None] * 6 + ["name", "count_printf", "version", "plural", "amount"]


def placeholder_kind(key):
    return PLACEHOLDER_KINDS[int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(PLACEHOLDER_KINDS)]


def word(rng, language):
    if language == "en":
        return rng.choice(EN_WORDS)
    if language == "ko":
        return "".join(chr(0xAC00 + rng.randrange(11172)) for _ in range(rng.randint(1, 4)))
    if language == "ja":
        return "".join(rng.choice(KANJI if rng.random() < 0.3 else KANA) for _ in range(rng.randint(2, 6)))
    if language == "zh":
        return "".join(rng.choice(HANZI) for _ in range(rng.randint(1, 4)))
    return "".join(rng.choice(ALPHABETS[language]) for _ in range(rng.randint(2, 9)))


def value(rng, language, kind):
    spaced = language not in ("ja", "zh")
    target = rng.randint(20, 80)
    parts = []
    length = 0
    placeholder = {None: None, "name": "{name}", "count_printf": "%d", "version": "{{version}}", "amount": "{amount}",
                   "plural": None}[kind]
    if kind == "plural":
        noun = word(rng, language)
        placeholder = "{count, plural, one {# %s} other {# %s}}" % (noun, noun + ("s" if language == "en" and not noun.endswith("s") else ""))
    at = rng.randint(0, 3) if placeholder else -1
    while length < target:
        w = placeholder if len(parts) == at else word(rng, language)
        parts.append(w)
        length += len(w) + (1 if spaced else 0)
    if placeholder and placeholder not in parts:
        parts.append(placeholder)
    text = (" " if spaced else "").join(parts)
    if text[0].isalpha():
        text = text[0].upper() + text[1:]
    return text + rng.choice(MARKS[3:] if not spaced else MARKS[:3])


KEYS = make_keys()
out = sys.stdout.buffer
mark = 0


def blob(data):
    global mark
    mark += 1
    out.write(b"blob\nmark :%d\ndata %d\n" % (mark, len(data)))
    out.write(data)
    out.write(b"\n")
    return mark


def commit_time(version, index, kind):
    return T0 + (((version - 1) * len(LOCALES) + index) * 2 + kind) * 43


pack_marks = {}
meta_marks = {}
plan_marks = {}
for index, locale in enumerate(LOCALES):
    language = locale.split("-")[0]
    rng = random.Random("bench/publish " + locale)
    keys = list(KEYS[:296])
    strings = {key: value(rng, language, placeholder_kind(key)) for key in keys}
    packs = []
    for version in range(1, VERSIONS + 1):
        if version > 1:
            changeable = [k for k in keys if not k.startswith(PROTECTED_PREFIXES)]
            for key in rng.sample(changeable, CHANGES_PER_VERSION):
                strings[key] = value(rng, language, placeholder_kind(key))
            if version % 10 == 0:
                key = f"whatsnew.v{version}.title"
                keys.append(key)
                strings[key] = value(rng, language, placeholder_kind(key))
        pack = {"locale": locale, "schemaVersion": 2, "contentVersion": version, "minAppVersion": min_app(version),
                "strings": dict(strings)}
        checksum = "sha256:" + hashlib.sha256(canonical(pack)).hexdigest()
        pack["checksum"] = checksum
        stored = pretty(pack)
        pack_marks[locale, version] = blob(stored)
        packs.append((version, checksum, len(stored), len(strings)))
    for version, checksum, size, count in packs:
        record = {"pack": f"{locale}@{version}", "locale": locale, "contentVersion": version, "checksum": checksum,
                  "minAppVersion": min_app(version), "keys": count, "bytes": size, "addedBy": ACTOR,
                  "addedAt": timestamp(commit_time(version, index, 0))}
        meta_marks[locale, version] = blob(pretty(record))
    for version in range(1, VERSIONS + 1):
        ref = lambda v: {"contentVersion": v, "minAppVersion": min_app(v)}
        plan = {"locale": locale, "baseline": ref(version), "previousBaselines": [ref(v) for v in range(version - 1, 0, -1)],
                "rules": [], "blocked": [], "withdrawn": [], "bundledOnly": False, "sequence": version,
                "lastChange": {"action": "complete", "actor": ACTOR, "time": timestamp(commit_time(version, index, 1))}}
        plan_marks[locale, version] = blob(pretty(plan))


def commit(time, summary, trailers, files, first):
    message = "\n".join([summary, ""] + [f"Rollout-{name}: {value}" for name, value in trailers + [("Actor", ACTOR)]]) + "\n"
    message = message.encode()
    out.write(b"commit refs/heads/main\n")
    out.write(f"author {ACTOR} {time} +0000\ncommitter {ACTOR} {time} +0000\n".encode())
    out.write(b"data %d\n" % len(message) + message)
    if first:
        out.write(f"from {PARENT}\n".encode())
    for path, m in files:
        out.write(f"M 100644 :{m} {path}\n".encode())
    out.write(b"\n")


first = True
for version in range(1, VERSIONS + 1):
    for index, locale in enumerate(LOCALES):
        pack = f"{locale}@{version}"
        commit(commit_time(version, index, 0), f"pack add {pack}",
               [("Action", "pack-add"), ("Locale", locale), ("Pack", pack)],
               [(f"packs/{locale}/{version}.json", pack_marks[locale, version]),
                (f"packs/{locale}/{version}.meta.json", meta_marks[locale, version])], first)
        first = False
        commit(commit_time(version, index, 1), f"complete {pack}: the baseline of {locale}",
               [("Action", "complete"), ("Locale", locale), ("Pack", pack), ("Percent", "100%")],
               [(f"plans/{locale}.json", plan_marks[locale, version])], False)
