package dev.rollout.client;

import java.util.List;

/**
 * A number as CLDR's plural rules read it (UTS #35, "Plural Operand Meanings"), from the digits it
 * is shown with: "1.50" has i=1, v=2, w=1, f=50, t=5; "1.2c3" is 1200 with e=3. The visible fraction
 * digits matter ("1" is {@code one} in English, "1.0" is {@code other}), which is why a count reaches
 * the rules as text and never as a floating-point value. Immutable; the port of PluralOperands.swift.
 */
final class PluralOperands {
    /**
     * An operand's value when it has more than 18 digits: the last 18 (every CLDR modulus divides
     * 10^18) and that it is larger than any range a rule names.
     */
    static final class Digits {
        static final long LIMIT = 1_000_000_000_000_000_000L;
        final long low;
        final boolean exceeds;

        Digits(long low, boolean exceeds) {
            this.low = low;
            this.exceeds = exceeds;
        }

        /** Digits as clusters; one that is not a lone ASCII digit makes the value 0, as Swift's UInt64 parse does. */
        static Digits of(List<String> digits) {
            int first = 0;
            while (first < digits.size() && digits.get(first).equals("0")) first++;
            List<String> significant = digits.subList(first, digits.size());
            List<String> last = significant.subList(Math.max(0, significant.size() - 18), significant.size());
            long value = 0;
            for (String digit : last) {
                if (digit.length() != 1 || digit.charAt(0) < '0' || digit.charAt(0) > '9') {
                    value = 0;
                    break;
                }
                value = value * 10 + (digit.charAt(0) - '0');
            }
            return new Digits(value, significant.size() > 18);
        }

        static Digits of(int value) {
            return new Digits(value, false);
        }

        boolean isZero() {
            return low == 0 && !exceeds;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Digits && ((Digits) other).low == low && ((Digits) other).exceeds == exceeds;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(low) * 2 + (exceeds ? 1 : 0);
        }
    }

    /** The integer digits (i), the visible fraction digits (f) and those without trailing zeros (t). */
    final Digits i;
    final Digits f;
    final Digits t;
    /** The number of visible fraction digits, with (v) and without (w) trailing zeros. */
    final int v;
    final int w;
    /** The compact decimal exponent (c, also written e): 0 unless the number is written {@code 1.2c3}. */
    final int e;
    /** A minus sign, which the rules ignore (they read the absolute value) and {@code =N} cases do not. */
    final boolean isNegative;

    private PluralOperands(Digits i, Digits f, Digits t, int v, int w, int e, boolean isNegative) {
        this.i = i;
        this.f = f;
        this.t = t;
        this.v = v;
        this.w = w;
        this.e = e;
        this.isNegative = isNegative;
    }

    /**
     * The operands of a number written as ASCII digits with an optional minus sign, fraction and
     * compact exponent ({@code -12}, {@code 1.50}, {@code 1.2c6}), or null for anything else
     * (grouping separators, a locale's decimal comma, spaces).
     */
    static PluralOperands parse(String text) {
        List<String> rest = Graphemes.split(text);
        boolean negative = !rest.isEmpty() && rest.get(0).equals("-");
        if (negative) rest = rest.subList(1, rest.size());
        int exponent = 0;
        int mark = -1;
        for (int k = 0; k < rest.size(); k++) {
            if (rest.get(k).equals("c") || rest.get(k).equals("e")) {
                mark = k;
                break;
            }
        }
        if (mark >= 0) {
            List<String> digits = rest.subList(mark + 1, rest.size());
            if (digits.isEmpty() || digits.size() > 3 || !allDigits(digits)) return null;
            Integer value = plainInt(digits);
            if (value == null) return null;
            exponent = value;
            rest = rest.subList(0, mark);
        }
        int point = rest.indexOf(".");
        List<String> whole = point < 0 ? rest : rest.subList(0, point);
        List<String> fraction = point < 0 ? rest.subList(rest.size(), rest.size()) : rest.subList(point + 1, rest.size());
        if (whole.isEmpty() || !allDigits(whole)) return null;
        if ((point >= 0 && fraction.isEmpty()) || !allDigits(fraction)) return null;
        // The exponent moves the point: 1.2c3 is 1200, 1.23456c3 is 1234.56.
        List<String> integer = new java.util.ArrayList<>(whole);
        if (exponent > 0) {
            int moved = Math.min(exponent, fraction.size());
            integer.addAll(fraction.subList(0, moved));
            for (int k = moved; k < exponent; k++) integer.add("0");
            fraction = fraction.subList(moved, fraction.size());
        }
        int trimmedCount = fraction.size();
        while (trimmedCount > 0 && fraction.get(trimmedCount - 1).equals("0")) trimmedCount--;
        List<String> trimmed = fraction.subList(0, trimmedCount);
        return new PluralOperands(
            Digits.of(integer), Digits.of(fraction), Digits.of(trimmed), fraction.size(), trimmed.size(), exponent,
            negative);
    }

    static PluralOperands of(long value) {
        return parse(Long.toString(value));
    }

    /** The same number, however many trailing zeros each shows: what an ICU {@code =N} case matches. */
    boolean isNumericallyEqual(PluralOperands other) {
        boolean zero = i.isZero() && t.isZero();
        return i.equals(other.i) && t.equals(other.t) && w == other.w && (isNegative == other.isNegative || zero);
    }

    /**
     * Swift's {@code ("0"..."9").contains(character)}: Characters compare as text, so a digit with a
     * combining mark after it ({@code "1\u0301"}) counts too (and then reads as no number).
     */
    private static boolean allDigits(List<String> clusters) {
        for (String c : clusters) {
            if (Graphemes.SWIFT_ORDER.compare(c, "0") < 0 || Graphemes.SWIFT_ORDER.compare(c, "9") > 0) return false;
        }
        return true;
    }

    /** Swift's {@code Int(text)} of at most three digit clusters, or null. */
    private static Integer plainInt(List<String> digits) {
        int value = 0;
        for (String digit : digits) {
            if (digit.length() != 1) return null;
            value = value * 10 + (digit.charAt(0) - '0');
        }
        return value;
    }
}
