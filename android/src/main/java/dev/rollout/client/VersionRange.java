package dev.rollout.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A set of app versions as a plan stores it: {@code >=4.8}, {@code >=4.8 <5}, {@code 4.8.x}, {@code =4.8.1},
 * {@code <5}, {@code *} (docs/targeting.md, "App-version ranges"). Bounds compare numerically (AppVersion).
 */
final class VersionRange {
    /** One end of a range. */
    static final class Bound {
        final AppVersion version;
        final boolean inclusive;

        Bound(AppVersion version, boolean inclusive) {
            this.version = version;
            this.inclusive = inclusive;
        }
    }

    static final VersionRange ALL = new VersionRange(null, null, "*");

    /** Or null: no lower bound. */
    final Bound lower;
    /** Or null: no upper bound. */
    final Bound upper;
    /** The text as written (spacing normalised), kept for messages. */
    private final String description;

    private VersionRange(Bound lower, Bound upper, String description) {
        this.lower = lower;
        this.upper = upper;
        this.description = description;
    }

    boolean contains(AppVersion version) {
        if (lower != null) {
            int c = version.compareTo(lower.version);
            if (lower.inclusive ? c < 0 : c <= 0) return false;
        }
        if (upper != null) {
            int c = version.compareTo(upper.version);
            if (upper.inclusive ? c > 0 : c >= 0) return false;
        }
        return true;
    }

    /** How specific the range is, for ordering rules: exact, bounded both sides, one side, all. */
    int breadth() {
        if (lower != null && upper != null) return lower.version.equals(upper.version) ? 0 : 1;
        if (lower != null || upper != null) return 2;
        return 3;
    }

    @Override
    public String toString() {
        return description;
    }

    /** {@code 4.8} as a segment: every 4.8.x, that is {@code >=4.8 <4.9}. */
    static VersionRange prefix(AppVersion version) {
        int[] next = version.components();
        next[next.length - 1] += 1;
        return new VersionRange(
                new Bound(version, true), new Bound(AppVersion.of(next), false), version + ".x");
    }

    /**
     * The range {@code text} writes.
     *
     * @throws IllegalArgumentException when it is not a range, with a message that quotes it and shows the forms
     */
    static VersionRange parse(String text) {
        String trimmed = SwiftStrings.trimWhiteSpace(text);
        if (trimmed.equals("*") || trimmed.toLowerCase(Locale.ROOT).equals("any")) return ALL;
        List<String> parts = new ArrayList<>();
        for (String part : trimmed.split(" ")) {
            if (!part.isEmpty()) parts.add(part);
        }
        if (parts.isEmpty() || parts.size() > 2) throw bad(text, "is not a range");
        if (parts.size() == 1 && (parts.get(0).endsWith(".x") || parts.get(0).endsWith(".*"))) {
            String only = parts.get(0);
            AppVersion base = AppVersion.parse(only.substring(0, only.length() - 2));
            if (base == null) throw bad(text, "has no version before .x");
            return prefix(base);
        }
        Bound lower = null;
        Bound upper = null;
        for (String part : parts) {
            int opLength = 0;
            while (opLength < part.length() && "<>=".indexOf(part.charAt(opLength)) >= 0) opLength++;
            String op = part.substring(0, opLength);
            String rest = part.substring(opLength);
            if (rest.isEmpty()) {
                throw bad(text, "has the operator \"" + op + "\" with no version after it (write " + op
                        + "4.8, without a space)");
            }
            AppVersion version = AppVersion.parse(rest);
            if (version == null) {
                if (op.isEmpty()) throw bad(text, "is not a range");
                throw bad(text, "has \"" + rest + "\", which is not a numeric version");
            }
            switch (op) {
                case ">=":
                case ">":
                    if (lower != null) throw bad(text, "has two lower bounds");
                    lower = new Bound(version, op.equals(">="));
                    break;
                case "<=":
                case "<":
                    if (upper != null) throw bad(text, "has two upper bounds");
                    upper = new Bound(version, op.equals("<="));
                    break;
                case "=":
                case "==":
                    if (parts.size() != 1) throw bad(text, "mixes = with other bounds");
                    return new VersionRange(new Bound(version, true), new Bound(version, true), "=" + version);
                case "":
                    throw bad(text, "needs an operator: =" + part + " for exactly " + part + ", or " + part
                            + ".x for every " + part + " release");
                default:
                    throw bad(text, "has the unknown operator \"" + op + "\"");
            }
        }
        if (lower != null && upper != null) {
            int c = upper.version.compareTo(lower.version);
            if (c < 0 || (c == 0 && !(lower.inclusive && upper.inclusive))) throw bad(text, "contains no version");
        }
        return new VersionRange(lower, upper, String.join(" ", parts));
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("app-version range \"" + text + "\" " + why
                + "; write for example >=4.8, \">=4.8 <5\", 4.8.x or =4.8.1");
    }
}
