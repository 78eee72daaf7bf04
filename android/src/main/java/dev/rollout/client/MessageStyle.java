package dev.rollout.client;

/**
 * How a pack string's apostrophes and percent signs read: one rule for lint and for the clients, so
 * what lint passes is what a device shows (docs/pack-format.md, "Message syntax"). The port of
 * MessageStyle.swift, which reads Unicode scalars (code points here), not clusters.
 *
 * <ul>
 *   <li>A string with a {@code {{name}}} template is in the seed's template form: an apostrophe is itself.
 *   <li>Any other string reads apostrophes as ICU's default mode does ({@code ''} is one apostrophe;
 *       {@code '} before {@code {}, {@code }} or a plural's {@code #} quotes).
 *   <li>A string with an ICU argument ({@code {0}}, {@code {name}}, {@code {n, plural, ...}}) holds no
 *       printf: a {@code %} in it is text. Printf is read only in strings without ICU arguments.
 * </ul>
 */
final class MessageStyle {
    final boolean icuApostrophes;
    final boolean printf;

    MessageStyle(String text) {
        int[] scalars = text.codePoints().toArray();
        boolean templates = false;
        boolean arguments = false;
        int i = 0;
        while (i < scalars.length) {
            if (scalars[i] != '{') {
                i++;
                continue;
            }
            if (i + 1 < scalars.length && scalars[i + 1] == '{') {
                // `{{ name }}`: a template when a name and `}}` follow.
                int j = i + 2;
                while (j < scalars.length && scalars[j] == ' ') j++;
                int start = j;
                while (j < scalars.length && isNameScalar(scalars[j])) j++;
                boolean named = j > start;
                while (j < scalars.length && scalars[j] == ' ') j++;
                if (named && j + 1 < scalars.length && scalars[j] == '}' && scalars[j + 1] == '}') {
                    templates = true;
                    i = j + 2;
                    continue;
                }
                i += 2;
                continue;
            }
            int j = i + 1;
            while (j < scalars.length && scalars[j] == ' ') j++;
            // An ICU argument starts with a name or a number; a quoted '{' is preceded by an apostrophe.
            if (j < scalars.length && isNameScalar(scalars[j]) && (i == 0 || scalars[i - 1] != '\'')) arguments = true;
            i++;
        }
        icuApostrophes = !templates;
        printf = !arguments;
    }

    /** Unicode's Alphabetic property, ASCII digits, {@code _ . -}. */
    static boolean isNameScalar(int c) {
        return Character.isAlphabetic(c) || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    }
}
