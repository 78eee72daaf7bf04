package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A list of key patterns, as a manifest's {@code bundleOnly} holds them (docs/policy.md, "Key patterns"): a key
 * matches the list when it matches any of them, and a device never shows a key they match from a pack. The empty
 * list matches nothing (an old manifest without {@code bundleOnly}).
 *
 * <p>A pattern is matched against the whole key: {@code *} matches any run of characters (dots included, and the
 * empty run), {@code ?} exactly one character, every other character only itself. A pattern is not empty and has no
 * white space. As in Swift, a character is a user-perceived character (a grapheme cluster), and characters that are
 * canonically equivalent are the same.
 */
final class KeyPatterns {
    static final KeyPatterns NONE = new KeyPatterns(Collections.<String>emptyList());

    private final List<String> spellings;
    /** Each pattern as characters (grapheme clusters in NFC). */
    private final List<List<String>> patterns;

    private KeyPatterns(List<String> spellings) {
        this.spellings = Collections.unmodifiableList(new ArrayList<>(spellings));
        List<List<String>> patterns = new ArrayList<>();
        for (String spelling : spellings) patterns.add(characters(spelling));
        this.patterns = patterns;
    }

    /** Whether {@code spelling} is a pattern: not empty, no white space. */
    static boolean isPattern(String spelling) {
        if (spelling.isEmpty()) return false;
        for (String character : Graphemes.split(spelling)) {
            if (Graphemes.isWhitespace(character)) return false;
        }
        return true;
    }

    /** The list of {@code spellings}, or null when one of them is not a pattern. */
    static KeyPatterns parse(List<String> spellings) {
        for (String spelling : spellings) {
            if (!isPattern(spelling)) return null;
        }
        return new KeyPatterns(spellings);
    }

    /** The patterns of {@code spellings} that are patterns, the others left out (a device's stored list). */
    static KeyPatterns valid(List<String> spellings) {
        List<String> kept = new ArrayList<>();
        for (String spelling : spellings) {
            if (isPattern(spelling)) kept.add(spelling);
        }
        return new KeyPatterns(kept);
    }

    /** This list's patterns, then {@code other}'s. */
    KeyPatterns plus(KeyPatterns other) {
        if (other.isEmpty()) return this;
        if (isEmpty()) return other;
        List<String> both = new ArrayList<>(spellings);
        both.addAll(other.spellings);
        return new KeyPatterns(both);
    }

    boolean isEmpty() {
        return spellings.isEmpty();
    }

    /** The patterns as written, in order. */
    List<String> spellings() {
        return spellings;
    }

    boolean matches(String key) {
        if (patterns.isEmpty()) return false;
        List<String> text = characters(key);
        for (List<String> pattern : patterns) {
            if (matches(pattern, text)) return true;
        }
        return false;
    }

    /** {@code strings} without the keys the list matches. */
    Map<String, String> removing(Map<String, String> strings) {
        if (isEmpty()) return strings;
        Map<String, String> kept = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : strings.entrySet()) {
            if (!matches(entry.getKey())) kept.put(entry.getKey(), entry.getValue());
        }
        return Collections.unmodifiableMap(kept);
    }

    /** Glob matching with one star remembered: linear in practice, never exponential. */
    private static boolean matches(List<String> pattern, List<String> text) {
        int p = 0;
        int t = 0;
        int star = -1;
        int mark = 0;
        while (t < text.size()) {
            if (p < pattern.size() && (pattern.get(p).equals("?") || pattern.get(p).equals(text.get(t)))) {
                p++;
                t++;
            } else if (p < pattern.size() && pattern.get(p).equals("*")) {
                star = p;
                mark = t;
                p++;
            } else if (star >= 0) {
                p = star + 1;
                mark++;
                t = mark;
            } else {
                return false;
            }
        }
        while (p < pattern.size() && pattern.get(p).equals("*")) p++;
        return p == pattern.size();
    }

    /** {@code text} as Swift's Characters, each in NFC so that canonically equivalent ones compare equal. */
    private static List<String> characters(String text) {
        List<String> out = new ArrayList<>();
        for (String cluster : Graphemes.split(text)) out.add(Graphemes.nfc(cluster));
        return out;
    }
}
