package dev.rollout.client;

/**
 * Swift's String equality and trimming where the model needs them and Java's differ (Graphemes has the order and the
 * characters): Swift compares strings by canonical equivalence (a composed and a decomposed "ş" are equal), and the
 * white space it trims from a range is the Unicode White_Space property, scalar by scalar.
 */
final class SwiftStrings {
    private SwiftStrings() {}

    /** Swift's {@code ==} on String: canonical equivalence. */
    static boolean same(String a, String b) {
        if (a.equals(b)) return true;
        if (isAscii(a) && isAscii(b)) return false;
        return Graphemes.nfc(a).equals(Graphemes.nfc(b));
    }

    /** {@code text} without leading and trailing White_Space scalars (Swift's {@code trimmingSpaces}). */
    static String trimWhiteSpace(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isWhiteSpace(text.codePointAt(start))) {
            start += Character.charCount(text.codePointAt(start));
        }
        while (end > start && isWhiteSpace(text.codePointBefore(end))) {
            end -= Character.charCount(text.codePointBefore(end));
        }
        return text.substring(start, end);
    }

    private static boolean isWhiteSpace(int codePoint) {
        return Graphemes.isWhitespace(new String(Character.toChars(codePoint)));
    }

    private static boolean isAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) return false;
        }
        return true;
    }
}
