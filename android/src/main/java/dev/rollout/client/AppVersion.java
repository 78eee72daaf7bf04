package dev.rollout.client;

import java.util.Arrays;

/**
 * An app version compared numerically by dotted components: {@code 4.10 > 4.9}, {@code 1.5 == 1.5.0}. Anything that
 * is not digits separated by single dots is not a version (docs/targeting.md, "App versions").
 */
final class AppVersion implements Comparable<AppVersion> {
    static final int MAXIMUM_COMPONENTS = 8;
    /** Components above this are refused rather than overflowing. */
    static final int MAXIMUM_COMPONENT_VALUE = 999_999_999;
    private static final int MAXIMUM_LENGTH = 80;

    private final int[] components;
    /** The text as written ("4.08" stays "4.08"), so a pack's checksum covers what its file says. */
    private final String text;

    private AppVersion(int[] components, String text) {
        this.components = components;
        this.text = text;
    }

    /**
     * The version {@code text} spells, or null when it is not one: only ASCII digits and single dots, at most 8
     * components of at most 999999999, at most 80 characters.
     */
    public static AppVersion parse(String text) {
        if (text == null || text.isEmpty() || text.length() > MAXIMUM_LENGTH) return null;
        int[] parts = new int[MAXIMUM_COMPONENTS];
        int count = 0;
        int current = 0;
        int digits = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '.') {
                if (digits == 0 || count == MAXIMUM_COMPONENTS) return null;
                parts[count++] = current;
                current = 0;
                digits = 0;
            } else if (c >= '0' && c <= '9') {
                current = current * 10 + (c - '0');
                digits++;
                if (current > MAXIMUM_COMPONENT_VALUE) return null;
            } else {
                return null;
            }
        }
        if (digits == 0 || count == MAXIMUM_COMPONENTS) return null;
        parts[count++] = current;
        return new AppVersion(Arrays.copyOf(parts, count), text);
    }

    /** A version made of {@code components} (each at least 0), written with single dots. */
    static AppVersion of(int... components) {
        if (components.length == 0) throw new IllegalArgumentException("a version has at least one component");
        StringBuilder text = new StringBuilder();
        for (int component : components) {
            if (component < 0) throw new IllegalArgumentException("version components are not negative");
            if (text.length() > 0) text.append('.');
            text.append(component);
        }
        return new AppVersion(components.clone(), text.toString());
    }

    int[] components() {
        return components.clone();
    }

    /** One spelling per version: trailing zero components dropped (4.8.0 and 4.08 are both 4.8). */
    public String normalized() {
        StringBuilder out = new StringBuilder();
        int end = significantCount();
        for (int i = 0; i < end; i++) {
            if (i > 0) out.append('.');
            out.append(components[i]);
        }
        return out.toString();
    }

    /** The text as it was written. */
    @Override
    public String toString() {
        return text;
    }

    /** Components with trailing zeros removed: the identity equality and hashing use. */
    private int significantCount() {
        int end = components.length;
        while (end > 1 && components[end - 1] == 0) end--;
        return end;
    }

    @Override
    public int compareTo(AppVersion other) {
        int count = Math.max(components.length, other.components.length);
        for (int i = 0; i < count; i++) {
            int l = i < components.length ? components[i] : 0;
            int r = i < other.components.length ? other.components[i] : 0;
            if (l != r) return l < r ? -1 : 1;
        }
        return 0;
    }

    /** Equal when they compare equal: 1.5 equals 1.5.0, whatever the spelling. */
    @Override
    public boolean equals(Object other) {
        return other instanceof AppVersion && compareTo((AppVersion) other) == 0;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(Arrays.copyOf(components, significantCount()));
    }
}
