package dev.rollout.client;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Text as the Swift client reads it: a Swift {@code Character} is a grapheme cluster, so a brace or
 * digit followed by a combining mark ({@code "{\u0301"}) is not a brace or a digit there, and two
 * strings are equal when they are canonically equivalent. Porting MessageFormat and PluralOperands
 * char by char would treat such text differently, so they read clusters and compare in NFC.
 *
 * <p>The boundaries follow UAX #29's rules that decide whether an ASCII character or a white-space
 * character stands alone (CR LF, controls, Extend, SpacingMark, ZWJ, Prepend). The rules that only
 * group non-ASCII letters (Hangul syllables, emoji sequences, flags, Indic conjuncts) are left out:
 * they never change what these parsers see, only how the text between is cut, and that text is
 * copied through whole.
 */
final class Graphemes {
    private Graphemes() {}

    /** Orders strings as Swift's String does: by the Unicode scalars of their NFC forms. */
    static final Comparator<String> SWIFT_ORDER = (a, b) -> compareScalars(nfc(a), nfc(b));

    /** {@code text}'s grapheme clusters, in order. */
    static List<String> split(String text) {
        List<String> clusters = new ArrayList<>();
        int start = 0;
        int i = 0;
        while (i < text.length()) {
            int c = text.codePointAt(i);
            int next = i + Character.charCount(c);
            if (next < text.length() && !joins(c, text.codePointAt(next))) {
                clusters.add(text.substring(start, next));
                start = next;
            }
            i = next;
        }
        if (start < text.length()) clusters.add(text.substring(start));
        return clusters;
    }

    /** Whether no cluster boundary falls between {@code before} and {@code after} (UAX #29 GB3-GB9b). */
    private static boolean joins(int before, int after) {
        if (before == '\r' && after == '\n') return true;
        if (isControl(before) || isControl(after)) return false;
        return isExtendOrSpacingMark(after) || isPrepend(before);
    }

    private static boolean isControl(int c) {
        if (c == '\r' || c == '\n') return true;
        if (c == 0x200C || c == 0x200D || (c >= 0xE0020 && c <= 0xE007F) || isPrepend(c)) return false;
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
            || type == Character.FORMAT;
    }

    private static boolean isExtendOrSpacingMark(int c) {
        int type = Character.getType(c);
        if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK) return true;
        if (type == Character.COMBINING_SPACING_MARK) return !isOtherSpacingMark(c);
        return c == 0x200C || c == 0x200D || c == 0xFF9E || c == 0xFF9F || c == 0x0E33 || c == 0x0EB3
            || (c >= 0x1F3FB && c <= 0x1F3FF) || (c >= 0xE0020 && c <= 0xE007F);
    }

    /** Spacing marks (Mc) that UAX #29 leaves as letters of their own (Myanmar, Tai Tham, ...). */
    private static boolean isOtherSpacingMark(int c) {
        return c == 0x102B || c == 0x102C || c == 0x1038 || (c >= 0x1062 && c <= 0x1064) || (c >= 0x1067 && c <= 0x106D)
            || c == 0x1083 || (c >= 0x1087 && c <= 0x108C) || c == 0x108F || (c >= 0x109A && c <= 0x109C)
            || c == 0x1A61 || c == 0x1A63 || c == 0x1A64 || c == 0xAA7B || c == 0xAA7D || c == 0x11720 || c == 0x11721;
    }

    /** Grapheme_Cluster_Break=Prepend: these join the character after them. */
    private static boolean isPrepend(int c) {
        return (c >= 0x0600 && c <= 0x0605) || c == 0x06DD || c == 0x070F || c == 0x0890 || c == 0x0891 || c == 0x08E2
            || c == 0x0D4E || c == 0x110BD || c == 0x110CD || c == 0x111C2 || c == 0x111C3 || c == 0x1193F
            || c == 0x11941 || c == 0x11A3A || (c >= 0x11A84 && c <= 0x11A89) || c == 0x11D46 || c == 0x11F02;
    }

    /** Swift's {@code Character.isWhitespace}: the cluster's first scalar has White_Space. */
    static boolean isWhitespace(String cluster) {
        return isWhiteSpaceScalar(cluster.codePointAt(0));
    }

    private static boolean isWhiteSpaceScalar(int c) {
        return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680
            || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
    }

    /** Foundation's {@code trimmingCharacters(in: .whitespaces)}: tabs and space separators (Zs), by scalar. */
    static String trimWhitespaces(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isTrimmed(text.codePointAt(start))) start += Character.charCount(text.codePointAt(start));
        while (end > start && isTrimmed(text.codePointBefore(end))) end -= Character.charCount(text.codePointBefore(end));
        return text.substring(start, end);
    }

    private static boolean isTrimmed(int c) {
        return c == '\t' || Character.getType(c) == Character.SPACE_SEPARATOR;
    }

    /** A key as Swift's String hashes and compares it: canonically equivalent text is one key. */
    static String nfc(String text) {
        return Normalizer.isNormalized(text, Normalizer.Form.NFC) ? text : Normalizer.normalize(text, Normalizer.Form.NFC);
    }

    private static int compareScalars(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) return Integer.compare(x, y);
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }
}
