package dev.rollout.client;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything string() reads, frozen: the writers build a new one and publish it whole through a
 * volatile field, so a reader never waits for a refresh, a rename or a state write (docs/client.md,
 * Threading and caching rules).
 */
final class Snapshot {
    /**
     * The device's locale: it formats only text that came from no pack and no bundle (the app's
     * fallback); every other text is formatted in the locale it came from ({@link #textLocale}).
     */
    final String locale;
    /** The locales a key is looked up in, in order (docs/client.md, Lookup). */
    final List<String> chain;
    /** The strings of the active pack of each locale that has one. */
    final Map<String, Map<String, String>> packs;
    /** The active pack of the device's own locale, the one counters are attributed to; or null. */
    final PackId ownPack;
    /** The active pack of each locale that has one. */
    final Map<String, PackId> activePacks;
    /** The app's bundled strings of each locale of the chain and of the default locale. */
    final Map<String, Map<String, String>> bundled;
    /**
     * The locale of the bundle each of those tables is ({@code en} for {@code en-US} when the app
     * ships only {@code en}): the locale its text is formatted in.
     */
    final Map<String, String> bundledLocales;

    Snapshot(String locale, List<String> chain, Map<String, Map<String, String>> packs, Map<String, PackId> activePacks,
            Map<String, Map<String, String>> bundled, Map<String, String> bundledLocales) {
        this.locale = locale;
        this.bundledLocales = Collections.unmodifiableMap(new HashMap<>(bundledLocales));
        this.chain = Collections.unmodifiableList(chain);
        this.packs = Collections.unmodifiableMap(new HashMap<>(packs));
        this.activePacks = Collections.unmodifiableMap(new HashMap<>(activePacks));
        this.ownPack = activePacks.get(locale);
        this.bundled = Collections.unmodifiableMap(new HashMap<>(bundled));
    }

    static final Snapshot EMPTY = new Snapshot("", Collections.emptyList(), Collections.emptyMap(),
            Collections.emptyMap(), Collections.emptyMap(), Collections.emptyMap());

    /**
     * The locale text found for {@code candidate} is in, and so formatted in (plural rules, decimal
     * separator): a pack's own locale, or the locale of the bundle a bundled table came from. Lookup
     * mixes languages on purpose (a uk-UA device shows the en-US text it lacks), so the device's
     * locale would choose the wrong plural form ("21 file" in English by Ukrainian rules).
     */
    String textLocale(String candidate, boolean fromPack) {
        String bundle = fromPack ? null : bundledLocales.get(candidate);
        return bundle != null ? bundle : candidate;
    }

    /**
     * Each of {@code locales} that reads a bundled table, and the locale of that table, as
     * {@link BundledStrings#table(String)} finds it ({@code en} for {@code en-US}).
     */
    static Map<String, String> bundledLocales(BundledStrings bundled, Iterable<String> locales) {
        Map<String, String> result = new HashMap<>();
        Map<String, Map<String, String>> strings = bundled.strings();
        for (String name : locales) {
            if (strings.containsKey(name)) {
                result.put(name, name);
                continue;
            }
            LocaleTags.Tag tag = LocaleTags.tryParse(name);
            if (tag == null) continue;
            for (String parent : tag.truncationParents()) {
                if (strings.containsKey(parent)) {
                    result.put(name, parent);
                    break;
                }
            }
        }
        return result;
    }
}
