package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * BCP 47 language tags in the subset app localisations use: language, optional script, optional region, optional
 * variants ({@code tr}, {@code tr-TR}, {@code zh-Hant-TW}, {@code ca-ES-valencia}). Tags must be in canonical case so
 * that {@code tr-TR} and {@code tr-tr} can never be two locales (LocaleTag.swift, LocaleSpelling.swift).
 */
final class LocaleTags {
    /**
     * Language codes ISO 639 withdrew that Java, and so Android, still write: devices ask for the current ones
     * (docs/import.md, "Locales").
     */
    static final Map<String, String> LEGACY_LANGUAGES;

    static {
        Map<String, String> legacy = new HashMap<>();
        legacy.put("iw", "he");
        legacy.put("in", "id");
        legacy.put("ji", "yi");
        legacy.put("jw", "jv");
        legacy.put("mo", "ro");
        LEGACY_LANGUAGES = Collections.unmodifiableMap(legacy);
    }

    private LocaleTags() {}

    /** A parsed tag. */
    static final class Tag {
        final String language;
        /** Or null. */
        final String script;
        /** Or null. */
        final String region;
        final List<String> variants;

        private Tag(String language, String script, String region, List<String> variants) {
            this.language = language;
            this.script = script;
            this.region = region;
            this.variants = Collections.unmodifiableList(variants);
        }

        private List<String> subtags() {
            List<String> subtags = new ArrayList<>();
            subtags.add(language);
            if (script != null) subtags.add(script);
            if (region != null) subtags.add(region);
            subtags.addAll(variants);
            return subtags;
        }

        /** Less specific tags by truncation, most specific first: zh-Hant-TW gives zh-Hant, zh. */
        List<String> truncationParents() {
            List<String> subtags = subtags();
            List<String> parents = new ArrayList<>();
            for (int count = subtags.size() - 1; count >= 1; count--) {
                parents.add(String.join("-", subtags.subList(0, count)));
            }
            return parents;
        }

        @Override
        public String toString() {
            return String.join("-", subtags());
        }
    }

    /** Why a text is not a canonical tag; the message is the one the Swift client gives. */
    static final class InvalidTagException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        /** The canonical spelling when the text is a tag in another case, or null. */
        final String canonical;

        private InvalidTagException(String message, String canonical) {
            super(message);
            this.canonical = canonical;
        }

        static InvalidTagException invalid(String text) {
            return new InvalidTagException(
                    "\"" + text + "\" is not a BCP 47 locale such as tr-TR, tr, zh-Hant-TW", null);
        }
    }

    /**
     * The tag {@code text} writes.
     *
     * @throws InvalidTagException when it is not a tag, or not in canonical case
     */
    static Tag parse(String text) {
        String[] parts = text.split("-", -1);
        if (text.length() > 64) throw InvalidTagException.invalid(text);
        for (String part : parts) {
            if (part.isEmpty() || !all(part, true, true)) throw InvalidTagException.invalid(text);
        }
        String first = parts[0];
        // ISO 639 codes only: BCP 47 reserves 4-8 letter language subtags and none are registered.
        if (first.length() < 2 || first.length() > 3 || !all(first, true, false)) {
            throw InvalidTagException.invalid(text);
        }
        int index = 1;
        String script = null;
        String region = null;
        List<String> variants = new ArrayList<>();
        if (index < parts.length && parts[index].length() == 4 && all(parts[index], true, false)) {
            script = parts[index].substring(0, 1).toUpperCase(Locale.ROOT)
                    + parts[index].substring(1).toLowerCase(Locale.ROOT);
            index++;
        }
        if (index < parts.length
                && ((parts[index].length() == 2 && all(parts[index], true, false))
                        || (parts[index].length() == 3 && all(parts[index], false, true)))) {
            region = parts[index].toUpperCase(Locale.ROOT);
            index++;
        }
        for (; index < parts.length; index++) {
            String v = parts[index];
            boolean isVariant = (v.length() >= 5 && v.length() <= 8) || (v.length() == 4 && isDigit(v.charAt(0)));
            if (!isVariant) throw InvalidTagException.invalid(text);
            String lower = v.toLowerCase(Locale.ROOT);
            if (variants.contains(lower)) {
                throw new InvalidTagException("locale \"" + text + "\" has the variant " + lower
                        + " twice; BCP 47 (RFC 5646) allows each variant once", null);
            }
            variants.add(lower);
        }
        Tag tag = new Tag(first.toLowerCase(Locale.ROOT), script, region, variants);
        String canonical = tag.toString();
        if (!canonical.equals(text)) {
            throw new InvalidTagException("locale \"" + text + "\" must be written \"" + canonical + "\"", canonical);
        }
        return tag;
    }

    /** The tag {@code text} writes, or null when it is not a canonical tag. */
    static Tag tryParse(String text) {
        try {
            return parse(text);
        } catch (InvalidTagException e) {
            return null;
        }
    }

    /**
     * A locale as catalogs and resource folders spell it ({@code pt_BR}, {@code zh_Hant_TW}, {@code zh-hans},
     * {@code iw}) in canonical BCP 47 ({@code pt-BR}, {@code zh-Hant-TW}, {@code zh-Hans}, {@code he}); null when it
     * is not a locale.
     */
    static String canonical(String spelling) {
        String[] parts = spelling.replace('_', '-').split("-", -1);
        String language = parts[0].toLowerCase(Locale.ROOT);
        if (language.isEmpty()) return null;
        String current = LEGACY_LANGUAGES.get(language);
        parts[0] = current != null ? current : language;
        try {
            return parse(String.join("-", parts)).toString();
        } catch (InvalidTagException e) {
            // pt-br, zh-hans: catalogs do not always write canonical case.
            return e.canonical;
        }
    }

    private static boolean all(String text, boolean letters, boolean digits) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean ok = (letters && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) || (digits && isDigit(c));
            if (!ok) return false;
        }
        return true;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
