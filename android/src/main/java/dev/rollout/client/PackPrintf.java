package dev.rollout.client;

/**
 * The pack's printf, read one way by lint and by both clients (docs/pack-format.md, "Message
 * syntax"): {@code %%} is one percent sign; a specifier is
 * {@code %[N$][#0][width][.precision][hlLqjzt]conversion} with a conversion in {@code @ d D i u U f F s S};
 * any other {@code %} is text. Read as code points. The port of PackPrintf.swift.
 */
final class PackPrintf {
    private PackPrintf() {}

    /** Code points a specifier is made of after its {@code %}: one outside them ends any specifier. */
    static final String ALPHABET = "0123456789$#.hlLqjzt@dDiuUfFsS%";

    /** What a {@code %} starts: {@code %%}, or a specifier with its written position (-1: none). */
    static final class Token {
        final boolean percent;
        final long position;
        final int end;

        Token(boolean percent, long position, int end) {
            this.percent = percent;
            this.position = position;
            this.end = end;
        }
    }

    /** What the {@code %} at {@code start} of {@code s} starts, or null when it is text. */
    static Token read(int[] s, int start) {
        if (start + 1 >= s.length || s[start] != '%') return null;
        if (s[start + 1] == '%') return new Token(true, -1, start + 2);
        int i = start + 1;
        int digitsEnd = digits(s, i);
        long position = -1;
        if (digitsEnd > i && digitsEnd < s.length && s[digitsEnd] == '$') {
            // A position too large for a 64-bit integer (as Swift's Int) is no argument an app passes.
            try {
                position = Long.parseLong(new String(s, i, digitsEnd - i));
            } catch (NumberFormatException tooLarge) {
                return null;
            }
            i = digitsEnd + 1;
        }
        while (i < s.length && (s[i] == '#' || s[i] == '0')) i++;
        i = digits(s, i);
        if (i < s.length && s[i] == '.') i = digits(s, i + 1);
        while (i < s.length && "hlLqjzt".indexOf(s[i]) >= 0) i++;
        if (i >= s.length || "@dDiuUfFsS".indexOf(s[i]) < 0) return null;
        return new Token(false, position, i + 1);
    }

    /**
     * {@code text}, all of whose percent signs are text, written so that the pack shows each as
     * itself: in a string read as printf, every {@code %} that would start {@code %%} or a specifier is
     * doubled. A string with ICU arguments reads no printf, so it is returned as it is.
     */
    static String literalPercents(String text) {
        if (text.indexOf('%') < 0 || !new MessageStyle(text).printf) return text;
        int[] s = text.codePoints().toArray();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length; i++) {
            out.appendCodePoint(s[i]);
            if (s[i] == '%' && read(s, i) != null) out.append('%');
        }
        return out.toString();
    }

    private static int digits(int[] s, int i) {
        while (i < s.length && s[i] >= '0' && s[i] <= '9') i++;
        return i;
    }
}
