#!/usr/bin/env python3
"""Generates the packs for bench/pack-add: one en-US pack, then VERSIONS successive tr-TR packs.

Usage: generate.py OUTDIR [--versions N] [--keys N] [--change FRACTION] [--seed N]

Writes OUTDIR/en-US@1.json (the default locale: every tr-TR pack's placeholders are checked
against it) and OUTDIR/tr-TR@1.json .. tr-TR@N.json. tr-TR@1 is a full pack; each later version
changes round(KEYS * CHANGE) values (at least one) of the version before it and nothing else.
Keys look like `screen.section.item_N`, values are 30-80 characters of Turkish mixed with English
product words, some with placeholders ({name}, %d, {{version}}, ICU plurals) that stay the same for
a key across locales and versions, as the linter requires. Keys under the policy's protectedKeys
(checkout.*, legal.*) exist but are never changed, since changing them needs --approved-by.

Every file carries its checksum (sha256 of the RFC 8785 canonical form without `checksum`) and is
laid out the way rollout stores packs (members sorted, two-space indentation), so the blob the
git peer stores is the same size as the one rollout stores. Standard library only; the output is a
pure function of the arguments.
"""

import argparse
import hashlib
import json
import os
import random
import sys

SCREENS = [
    "home", "search", "library", "player", "profile", "settings", "onboarding", "paywall", "share",
    "downloads", "notifications", "reader", "catalog", "offers", "support", "account", "friends",
    "history", "update", "error", "checkout", "legal",
]
SECTIONS = [
    "header", "banner", "list", "empty", "toolbar", "dialog", "toast", "footer", "card", "menu", "tabs",
    "form", "hint", "badge", "sheet",
]
PROTECTED_PREFIXES = ("checkout.", "legal.")

TR_WORDS = (
    "kitaplık hesap ayarlar indir paylaş dinle oku güncelle bildirim arkadaş geçmiş dosya sürüm "
    "bağlantı çevrimdışı eşitle yeni özellik hata düzeltme sepet ödeme teklif abonelik yardım destek "
    "şifre giriş çıkış profil görüntüle düzenle kaydet sil iptal onayla devam geri ileri tamam "
    "öneri liste sıra çalma müzik kitap bölüm sayfa yazı tipi karanlık açık tema dil bölge saat "
    "günlük haftalık aylık yıllık ücretsiz deneme başlat bitir seç ara bulunamadı lütfen tekrar dene "
    "şimdi sonra her zaman asla kişisel gizlilik koşullar kabul ediyorum çok güzel hızlı güvenli"
).split()
EN_WORDS = (
    "library account settings download share listen read update notification friend history file "
    "version connection offline sync new feature fix cart payment offer subscription help support "
    "password sign in out profile view edit save delete cancel confirm continue back next done "
    "suggestion list queue playback music book chapter page font dark light theme language region "
    "daily weekly monthly yearly free trial start finish choose search not found please try again "
    "now later always never personal privacy terms accept quick secure"
).split()
# Product and UI words that stay English inside Turkish text, as they do in real apps.
LOANWORDS = ["Premium", "Wi-Fi", "Bluetooth", "podcast", "playlist", "e-posta", "QR", "PDF", "Pro", "AirPlay", "Chromecast"]

# Placeholder sets a key may use; each key keeps its set for ever (and in both locales).
PLACEHOLDER_KINDS = [None, None, None, None, None, "name", "count_printf", "version", "plural", "amount"]


def placeholder_text(kind, locale, rng):
    if kind is None:
        return ""
    if kind == "name":
        return "{name}"
    if kind == "count_printf":
        return "%d"
    if kind == "version":
        return "{{version}}"
    if kind == "amount":
        return "{amount}"
    if kind == "plural":
        if locale == "en-US":
            return "{count, plural, one {# item} other {# items}}"
        noun = rng.choice(["öğe", "dosya", "kitap", "şarkı", "bölüm"])
        return "{count, plural, one {# %s} other {# %s}}" % (noun, noun)
    raise ValueError(kind)


def sentence(rng, locale, kind, low=30, high=80):
    """One value of low..high characters (placeholders included), ending in a full stop or similar."""
    words = EN_WORDS if locale == "en-US" else TR_WORDS
    target = rng.randint(low, high)
    placeholder = placeholder_text(kind, locale, rng)
    parts = []
    length = len(placeholder) + (1 if placeholder else 0)
    while True:
        word = rng.choice(LOANWORDS) if (locale != "en-US" and rng.random() < 0.08) else rng.choice(words)
        if parts and length + 1 + len(word) > target - 1 and length >= low - 1:
            break
        parts.append(word)
        length += len(word) + 1
        if length >= target - 1:
            break
    if placeholder:
        parts.insert(rng.randint(0, len(parts)), placeholder)
    text = " ".join(parts)
    if text[0].isalpha():
        # Turkish capitalises the dotted i as İ, not I.
        first = "\u0130" if (text[0] == "i" and locale != "en-US") else text[0].upper()
        text = first + text[1:]
    return text + rng.choice([".", ".", ".", "!", "?", ""])


def make_keys(count, rng):
    keys = []
    seen = set()
    n = 0
    while len(keys) < count:
        n += 1
        key = "%s.%s.item_%d" % (rng.choice(SCREENS), rng.choice(SECTIONS), n)
        if key not in seen:
            seen.add(key)
            keys.append(key)
    return keys


def checksum(pack):
    # RFC 8785 for this content (ASCII keys, strings and small integers): sorted members, no
    # whitespace, strings escaped as JSON.stringify does (which json.dumps matches for these values).
    canonical = json.dumps(pack, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def write_pack(directory, pack):
    document = dict(pack)
    document["checksum"] = checksum(pack)
    path = os.path.join(directory, "%s@%d.json" % (pack["locale"], pack["contentVersion"]))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(document, sort_keys=True, ensure_ascii=False, indent=2))
        handle.write("\n")
    return path


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--versions", type=int, default=1000)
    parser.add_argument("--keys", type=int, default=5000)
    parser.add_argument("--change", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)
    if args.versions < 1 or args.keys < 1 or not (0 < args.change <= 1):
        parser.error("need versions >= 1, keys >= 1, 0 < change <= 1")

    rng = random.Random(args.seed)
    os.makedirs(args.outdir, exist_ok=True)
    keys = make_keys(args.keys, rng)
    kinds = {key: rng.choice(PLACEHOLDER_KINDS) for key in keys}
    changeable = [key for key in keys if not key.startswith(PROTECTED_PREFIXES)]
    per_version = max(1, round(args.keys * args.change))
    per_version = min(per_version, len(changeable))

    english = {key: sentence(rng, "en-US", kinds[key]) for key in keys}
    write_pack(args.outdir, {
        "locale": "en-US", "schemaVersion": 2, "contentVersion": 1, "minAppVersion": "4.0.0", "strings": english,
    })

    strings = {key: sentence(rng, "tr-TR", kinds[key]) for key in keys}
    changed_total = 0
    for version in range(1, args.versions + 1):
        if version > 1:
            for key in rng.sample(changeable, per_version):
                old = strings[key]
                new = old
                while new == old:
                    new = sentence(rng, "tr-TR", kinds[key])
                strings[key] = new
            changed_total += per_version
        write_pack(args.outdir, {
            "locale": "tr-TR", "schemaVersion": 2, "contentVersion": version, "minAppVersion": "4.8.0",
            "strings": dict(strings),
        })
    print("generated en-US@1 and tr-TR@1..%d: %d keys, %d values changed per version (%d in all)"
          % (args.versions, args.keys, per_version, changed_total))


if __name__ == "__main__":
    main(sys.argv[1:])
