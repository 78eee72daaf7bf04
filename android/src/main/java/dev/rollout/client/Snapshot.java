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
    /** The device's locale, and the language whose plural rules format its strings. */
    final String locale;
    final String language;
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

    Snapshot(String locale, List<String> chain, Map<String, Map<String, String>> packs, Map<String, PackId> activePacks,
            Map<String, Map<String, String>> bundled) {
        this.locale = locale;
        // A locale that is not canonical BCP 47 goes whole to the plural rules, which resolve such spellings themselves.
        LocaleTags.Tag tag = LocaleTags.tryParse(locale);
        this.language = tag == null ? locale : tag.language;
        this.chain = Collections.unmodifiableList(chain);
        this.packs = Collections.unmodifiableMap(new HashMap<>(packs));
        this.activePacks = Collections.unmodifiableMap(new HashMap<>(activePacks));
        this.ownPack = activePacks.get(locale);
        this.bundled = Collections.unmodifiableMap(new HashMap<>(bundled));
    }

    static final Snapshot EMPTY = new Snapshot("", Collections.emptyList(), Collections.emptyMap(),
            Collections.emptyMap(), Collections.emptyMap());
}
