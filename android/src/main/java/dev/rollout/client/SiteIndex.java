package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The site's entry point, {@code index.json} (docs/manifest.md): which locales are published, at which sequence, with
 * which fallback chain.
 */
final class SiteIndex {
    static final String FORMAT = "rollout-index/1";

    /** One listed locale. */
    static final class Entry {
        final long sequence;
        final String manifest;
        /** The locales a device of this locale reads, in order, before its bundled strings. */
        final List<String> chain;
        /**
         * The chain as if this locale's kill switch were off, for devices whose own locale is not listed and falls
         * back to this one; or null when it is the same as {@link #chain} (or the index predates it).
         */
        final List<String> fallbackChain;

        Entry(long sequence, String manifest, List<String> chain, List<String> fallbackChain) {
            this.sequence = sequence;
            this.manifest = manifest;
            this.chain = Collections.unmodifiableList(new ArrayList<>(chain));
            this.fallbackChain = fallbackChain == null || fallbackChain.equals(chain)
                    ? null
                    : Collections.unmodifiableList(new ArrayList<>(fallbackChain));
        }
    }

    final long sequence;
    /** Seconds since the epoch. */
    final long time;
    /**
     * Seconds since the epoch after which a device does not switch to this index (docs/keys.md, "Expiry"); or null in
     * sites published without {@code --expires}.
     */
    final Long expires;
    final String defaultLocale;
    final Map<String, Entry> locales;

    SiteIndex(long sequence, long time, Long expires, String defaultLocale, Map<String, Entry> locales) {
        this.sequence = sequence;
        this.time = time;
        this.expires = expires;
        this.defaultLocale = defaultLocale;
        this.locales = Collections.unmodifiableMap(new LinkedHashMap<>(locales));
    }

    /**
     * An index as published; {@code source} (its path, {@code index.json}) starts every message.
     *
     * @throws DocumentException when it is not JSON, another format, or breaks a wire rule
     */
    static SiteIndex parse(byte[] bytes, String source) throws DocumentException {
        Map<String, Object> o = Wire.document(bytes, source, FORMAT, Wire.INDEX, "index");
        Long sequence = Json.integer(o.get("sequence"));
        String timeText = Json.string(o.get("time"));
        Long time = timeText == null ? null : Timestamp.parse(timeText);
        String defaultLocale = Json.string(o.get("defaultLocale"));
        Map<String, Object> localeValues = Json.object(o.get("locales"));
        if (sequence == null || time == null || defaultLocale == null || localeValues == null) {
            throw DocumentException.in(source, "an index needs sequence, time, defaultLocale and locales");
        }
        Long expires = null;
        String expiresText = Json.string(o.get("expires"));
        if (expiresText != null) {
            expires = Timestamp.parse(expiresText);
            if (expires == null) {
                throw DocumentException.in(source, "expires \"" + expiresText + "\" is not an ISO 8601 time");
            }
        }
        Map<String, Entry> locales = new LinkedHashMap<>();
        for (Map.Entry<String, Object> member : localeValues.entrySet()) {
            String locale = member.getKey();
            Map<String, Object> e = Json.object(member.getValue());
            Long entrySequence = e == null ? null : Json.integer(e.get("sequence"));
            String manifest = e == null ? null : Json.string(e.get("manifest"));
            List<String> chain = e == null ? null : Json.strings(e.get("chain"));
            if (entrySequence == null || manifest == null || chain == null) {
                throw DocumentException.in(source, "locale " + locale + " needs sequence, manifest and chain");
            }
            if (LocaleTags.tryParse(locale) == null) {
                throw DocumentException.in(source, "lists \"" + locale + "\", which is not a canonical BCP 47 locale");
            }
            if (!manifest.equals(SiteLayout.manifest(locale))) {
                throw DocumentException.in(source, "locale " + locale + " points at " + manifest + ", not "
                        + SiteLayout.manifest(locale));
            }
            locales.put(locale, new Entry(entrySequence, manifest, chain, Json.strings(e.get("fallbackChain"))));
        }
        return new SiteIndex(sequence, time, expires, defaultLocale, locales);
    }

    /**
     * The locales a device set to {@code locale} fetches and reads, in order, before its bundled strings
     * (docs/manifest.md, "The chain of a device"):
     *
     * <ol>
     *   <li>a listed locale: its chain;
     *   <li>otherwise the nearest shorter form that is listed (drop the last {@code -} subtag, repeatedly:
     *       {@code tr-CY} gives {@code tr}): its fallbackChain when present, else its chain;
     *   <li>otherwise defaultLocale alone, when it is listed;
     *   <li>otherwise nothing: the bundled strings.
     * </ol>
     */
    List<String> chain(String locale) {
        Map<String, List<String>> chains = new LinkedHashMap<>();
        Map<String, List<String>> fallbackChains = new LinkedHashMap<>();
        for (Map.Entry<String, Entry> entry : locales.entrySet()) {
            chains.put(entry.getKey(), entry.getValue().chain);
            if (entry.getValue().fallbackChain != null) {
                fallbackChains.put(entry.getKey(), entry.getValue().fallbackChain);
            }
        }
        return chain(locale, chains, fallbackChains, defaultLocale);
    }

    /**
     * The same rule over what a device keeps of the last index it accepted, so that a locale switched offline reads
     * the chain a refresh would give it.
     */
    static List<String> chain(String locale, Map<String, List<String>> chains,
            Map<String, List<String>> fallbackChains, String defaultLocale) {
        // Swift looks locales up by canonical equivalence; listed locales are ASCII, so NFC is the whole difference.
        String shorter = Graphemes.nfc(locale);
        List<String> own = chains.get(shorter);
        if (own != null) return own;
        for (int cut = shorter.lastIndexOf('-'); cut >= 0; cut = shorter.lastIndexOf('-')) {
            shorter = shorter.substring(0, cut);
            List<String> chain = chains.get(shorter);
            if (chain != null) {
                List<String> fallback = fallbackChains.get(shorter);
                return fallback != null ? fallback : chain;
            }
        }
        return chains.containsKey(Graphemes.nfc(defaultLocale))
                ? Collections.singletonList(defaultLocale)
                : Collections.<String>emptyList();
    }
}
