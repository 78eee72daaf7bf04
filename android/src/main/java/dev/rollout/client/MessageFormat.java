package dev.rollout.client;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fills a string's placeholders, in the forms packs use (docs/pack-format.md): {@code {name}} and
 * {@code {{name}}} by name, {@code %@} / {@code %d} in order and {@code %1$@} / {@code %2$d} by
 * position (the arguments named "1", "2", ...), and ICU {@code {n, plural, ...}} and
 * {@code {x, select, ...}}. A placeholder without an argument stays as written, so a missing
 * argument shows in testing instead of vanishing. A plural's count is its argument's text, digits as
 * the app shows them ("1.50"): an {@code =N} case equal to it in value, else the case of its CLDR
 * category in the language ({@link PluralRules}), else {@code other}. Apostrophes and percent signs
 * read as {@link MessageStyle} says.
 *
 * <p>The port of MessageFormat.swift, giving the same text for every input: it reads grapheme
 * clusters and looks names up canonically, as Swift's String does ({@link Graphemes}).
 */
final class MessageFormat {
    private MessageFormat() {}

    /**
     * How deep plurals and selects may nest before an argument is shown as written: lint refuses more
     * than 16 in a pack, but bundled strings are never linted, and a device must not recurse without end
     * on text it was handed. The same number as MessageFormat.swift (the kit's formatting.json pins it).
     */
    static final int MAXIMUM_NESTING = 32;

    /**
     * {@code message} with its placeholders filled from {@code arguments} (name to text; null or a
     * null value: as if absent), in {@code language}: the whole locale the text is in ({@code pt-PT}, not
     * {@code pt}: Portugal's plural rules are not Brazil's), which chooses the plural rules and the
     * decimal separator: the locale of the pack or bundle the text came from, not the device's.
     */
    static String format(String message, String language, Map<String, String> arguments) {
        List<String> s = tokens(message);
        if (!s.contains("{") && !s.contains("%") && !s.contains("'")) return message;
        Map<String, String> named = new HashMap<>();
        if (arguments != null) {
            for (Map.Entry<String, String> argument : arguments.entrySet()) {
                if (argument.getKey() != null && argument.getValue() != null) {
                    named.putIfAbsent(Graphemes.nfc(argument.getKey()), argument.getValue());
                }
            }
        }
        return new MessageFormat.Renderer(named, language, new MessageStyle(message)).render(s, null, 0, new int[1]);
    }

    /**
     * The message as its syntax reads it: grapheme clusters, except that a syntax character ends the
     * cluster it starts. ICU and aapt read code points, so {@code {1}} followed by a zero-width
     * non-joiner (Persian) is a placeholder and then a joiner, not one unknown character. The same
     * split as MessageFormat.swift's {@code tokens} (the kit's formatting.json pins it).
     */
    static List<String> tokens(String message) {
        List<String> out = new ArrayList<>();
        for (String cluster : Graphemes.split(message)) {
            if (cluster.length() > 1 && "{}'#%,".indexOf(cluster.charAt(0)) >= 0) {
                out.add(cluster.substring(0, 1));
                out.addAll(Graphemes.split(cluster.substring(1)));
            } else {
                out.add(cluster);
            }
        }
        return out;
    }

    /** The CLDR cardinal plural category of a whole number in {@code language}. */
    static String pluralCategory(long n, String language) {
        return PluralRules.of(language).category(PluralOperands.of(n));
    }

    private static final class Renderer {
        final Map<String, String> arguments;
        final String language;
        final MessageStyle style;

        Renderer(Map<String, String> arguments, String language, MessageStyle style) {
            this.arguments = arguments;
            this.language = language;
            this.style = style;
        }

        String argument(String name) {
            return arguments.get(Graphemes.nfc(name));
        }

        /** {@code number}: a plural's count as {@code #} shows it, or null outside a plural. */
        String render(List<String> s, String number, int depth, int[] sequential) {
            StringBuilder out = new StringBuilder();
            int i = 0;
            while (i < s.size()) {
                String c = s.get(i);
                Integer close;
                if (c.equals("'") && style.icuApostrophes) {
                    i = apostrophe(s, i, number != null, out);
                } else if (c.equals("{") && i + 1 < s.size() && s.get(i + 1).equals("{")
                    && (close = findClosingPair(s, i + 2)) != null) {
                    String name = Graphemes.trimWhitespaces(join(s, i + 2, close));
                    String value = argument(name);
                    out.append(value != null ? value : join(s, i, close + 2));
                    i = close + 2;
                } else if (c.equals("{") && (close = matchingBrace(s, i, style.icuApostrophes)) != null) {
                    String original = join(s, i, close + 1);
                    out.append(depth < MAXIMUM_NESTING ? argument(s.subList(i + 1, close), depth, original) : original);
                    i = close + 1;
                } else if (c.equals("#") && number != null) {
                    out.append(number);
                    i++;
                } else if (c.equals("%") && style.printf) {
                    i = printf(s, i, sequential, out);
                } else {
                    out.append(c);
                    i++;
                }
            }
            return out.toString();
        }

        /**
         * A {@code %} at {@code i}, as PackPrintf reads it (lint's reader): {@code %%} is one percent
         * sign, a specifier its argument (by position, "1", "2", ..., or the next in order) or itself
         * without one. Appends its text and returns where the text after it starts; or, when the
         * {@code %} is text, appends it and returns {@code i + 1}. A specifier may end inside a cluster
         * ({@code %2$s} and a joiner): the rest of that cluster is text.
         */
        int printf(List<String> s, int i, int[] sequential, StringBuilder out) {
            StringBuilder gathered = new StringBuilder();
            int count = 0;
            gathering:
            for (int j = i; j < s.size(); j++) {
                for (int cp : s.get(j).codePoints().toArray()) {
                    gathered.appendCodePoint(cp);
                    count++;
                    if (count > 1 && PackPrintf.ALPHABET.indexOf(cp) < 0) break gathering;
                }
            }
            int[] scalars = gathered.toString().codePoints().toArray();
            PackPrintf.Token token = PackPrintf.read(scalars, 0);
            if (token == null) {
                out.append(s.get(i));
                return i + 1;
            }
            if (token.percent) {
                out.append('%');
            } else {
                String name = token.position >= 0 ? Long.toString(token.position) : Integer.toString(++sequential[0]);
                String value = argument(name);
                out.append(value != null ? value : new String(scalars, 0, token.end));
            }
            // Back from code points to clusters: the cluster the specifier ends in may hold more.
            int used = 0;
            int next = i;
            while (used < token.end) used += s.get(next++).codePoints().toArray().length;
            if (used > token.end) {
                int[] last = s.get(next - 1).codePoints().toArray();
                out.append(new String(last, last.length - (used - token.end), used - token.end));
            }
            return next;
        }

        /** {@code {name}}, {@code {n, number, ::.00}}, or a plural or select: its text, or {@code original} without an argument. */
        String argument(List<String> body, int depth, String original) {
            List<List<String>> parts = split(body, 3, style.icuApostrophes);
            String value = argument(Graphemes.trimWhitespaces(join(parts.get(0))));
            if (value == null) return original;
            if (parts.size() == 3 && Graphemes.trimWhitespaces(join(parts.get(1))).equals("number")) {
                return number(value, Graphemes.split(Graphemes.trimWhitespaces(join(parts.get(2)))), language);
            }
            if (parts.size() != 3) return value;
            String kind = Graphemes.trimWhitespaces(join(parts.get(1)));
            Map<String, List<String>> options = cases(parts.get(2), style.icuApostrophes);
            int[] sequential = new int[1];
            switch (kind) {
                case "plural": {
                    PluralOperands count = PluralOperands.parse(value);
                    if (count == null) return value;
                    List<String> selectors = new ArrayList<>(options.keySet());
                    Collections.sort(selectors, Graphemes.SWIFT_ORDER);
                    List<String> chosen = null;
                    for (String selector : selectors) {
                        List<String> clusters = Graphemes.split(selector);
                        if (clusters.isEmpty() || !clusters.get(0).equals("=")) continue;
                        PluralOperands exact = PluralOperands.parse(join(clusters, 1, clusters.size()));
                        if (exact != null && exact.isNumericallyEqual(count)) {
                            chosen = options.get(selector);
                            break;
                        }
                    }
                    if (chosen == null) chosen = options.get(PluralRules.of(language).category(count));
                    if (chosen == null) chosen = options.get("other");
                    return chosen == null ? value : render(chosen, decimal(value, language), depth + 1, sequential);
                }
                case "select": {
                    List<String> chosen = options.get(Graphemes.nfc(value));
                    if (chosen == null) chosen = options.get("other");
                    return chosen == null ? value : render(chosen, null, depth + 1, sequential);
                }
                default:
                    return value;
            }
        }
    }

    /** Appends the text an apostrophe at {@code i} stands for; returns where the text after it starts. */
    private static int apostrophe(List<String> s, int i, boolean inPlural, StringBuilder out) {
        if (i + 1 >= s.size()) {
            out.append('\'');
            return i + 1;
        }
        String next = s.get(i + 1);
        if (next.equals("'")) {
            out.append('\'');
            return i + 2;
        }
        if (!next.equals("{") && !next.equals("}") && !(inPlural && next.equals("#"))) {
            out.append('\'');
            return i + 1;
        }
        int j = i + 1;
        while (j < s.size()) {
            if (s.get(j).equals("'")) {
                if (j + 1 < s.size() && s.get(j + 1).equals("'")) {
                    out.append('\'');
                    j += 2;
                    continue;
                }
                return j + 1;
            }
            out.append(s.get(j));
            j++;
        }
        return j;
    }

    /**
     * Where the quoted text an apostrophe at {@code i} starts ends (its closing apostrophe), or
     * {@code i} when the apostrophe quotes nothing: brace matching must not count a quoted {@code '{'}.
     */
    private static int quotedEnd(List<String> s, int i) {
        if (i + 1 >= s.size()) return i;
        String next = s.get(i + 1);
        if (next.equals("'")) return i + 1;
        if (!next.equals("{") && !next.equals("}") && !next.equals("#")) return i;
        int j = i + 1;
        while (j < s.size()) {
            if (s.get(j).equals("'")) {
                if (j + 1 < s.size() && s.get(j + 1).equals("'")) {
                    j += 2;
                    continue;
                }
                return j;
            }
            j++;
        }
        return s.size() - 1;
    }

    /**
     * A plural's count as {@code #} shows it: the digits as passed, with the language's decimal
     * separator (1,5 in French) and no grouping, as {@code number} writes a skeleton's digits.
     */
    private static String decimal(String value, String language) {
        List<String> clusters = Graphemes.split(value);
        if (!clusters.contains(".")) return value;
        String separator = decimalSeparator(language);
        return separator.equals(".") ? value : replacePoints(clusters, separator);
    }

    /**
     * A number with an ICU skeleton's fraction digits ({@code ::.00}: exactly two, as printf's
     * {@code %.2f}), with the language's decimal separator and no grouping (3,50 in French); any
     * other style leaves the value as given.
     */
    private static String number(String value, List<String> skeleton, String language) {
        if (skeleton.size() < 3 || !skeleton.get(0).equals(":") || !skeleton.get(1).equals(":")
            || !skeleton.get(2).equals(".")) {
            return value;
        }
        Double number = SwiftDouble.parse(value);
        if (number == null) return value;
        int digits = 0;
        while (3 + digits < skeleton.size() && skeleton.get(3 + digits).equals("0")) digits++;
        if (digits != skeleton.size() - 3) return value;
        String plain = SwiftDouble.fixed(number, digits);
        String separator = decimalSeparator(language);
        return separator.equals(".") ? plain : replacePoints(Graphemes.split(plain), separator);
    }

    /** Foundation's {@code Locale(identifier: language).decimalSeparator}, from the generated table. */
    private static String decimalSeparator(String language) {
        String tag = language.toLowerCase(Locale.ROOT).replace('_', '-');
        return DecimalSeparators.of(tag);
    }

    private static String replacePoints(List<String> clusters, String separator) {
        StringBuilder out = new StringBuilder();
        for (String c : clusters) out.append(c.equals(".") ? separator : c);
        return out.toString();
    }

    /** {@code one {# item} other {# items}} as selector (NFC) to body; the first of a selector wins. */
    private static Map<String, List<String>> cases(List<String> s, boolean quoting) {
        Map<String, List<String>> result = new LinkedHashMap<>();
        int i = 0;
        while (i < s.size()) {
            while (i < s.size() && Graphemes.isWhitespace(s.get(i))) i++;
            StringBuilder selector = new StringBuilder();
            while (i < s.size() && !s.get(i).equals("{") && !Graphemes.isWhitespace(s.get(i))) selector.append(s.get(i++));
            while (i < s.size() && Graphemes.isWhitespace(s.get(i))) i++;
            if (i >= s.size() || !s.get(i).equals("{")) break;
            Integer close = matchingBrace(s, i, quoting);
            if (close == null) break;
            result.putIfAbsent(Graphemes.nfc(selector.toString()), s.subList(i + 1, close));
            i = close + 1;
        }
        return result;
    }

    /** {@code s} cut at its top-level commas into at most {@code limit} parts. */
    private static List<List<String>> split(List<String> s, int limit, boolean quoting) {
        List<List<String>> parts = new ArrayList<>();
        int depth = 0;
        List<String> current = new ArrayList<>();
        int i = 0;
        while (i < s.size()) {
            String c = s.get(i);
            if (c.equals("'") && quoting) {
                int end = quotedEnd(s, i);
                current.addAll(s.subList(i, end + 1));
                i = end + 1;
                continue;
            }
            if (c.equals("{")) depth++;
            if (c.equals("}")) depth--;
            if (c.equals(",") && depth == 0 && parts.size() < limit - 1) {
                parts.add(current);
                current = new ArrayList<>();
            } else {
                current.add(c);
            }
            i++;
        }
        parts.add(current);
        return parts;
    }

    private static Integer matchingBrace(List<String> s, int start, boolean quoting) {
        int depth = 0;
        int i = start;
        while (i < s.size()) {
            if (s.get(i).equals("'") && quoting) {
                i = quotedEnd(s, i) + 1;
                continue;
            }
            if (s.get(i).equals("{")) depth++;
            if (s.get(i).equals("}")) {
                depth--;
                if (depth == 0) return i;
            }
            i++;
        }
        return null;
    }

    /** The first {@code }}} at or after {@code start}, or null. */
    private static Integer findClosingPair(List<String> s, int start) {
        for (int i = start; i + 1 < s.size(); i++) {
            if (s.get(i).equals("}") && s.get(i + 1).equals("}")) return i;
        }
        return null;
    }

    private static String join(List<String> clusters) {
        return String.join("", clusters);
    }

    private static String join(List<String> clusters, int from, int to) {
        return String.join("", clusters.subList(from, to));
    }

    /**
     * Swift's {@code Double(text)} and Foundation's {@code String(format: "%.Nf", locale: en_US_POSIX, x)}:
     * the number skeleton's arithmetic, which differs from Java's (Foundation rounds the shortest
     * decimal that reads back as the double, half to even: 2.675 is "2.68"; it writes INF and NaN).
     */
    static final class SwiftDouble {
        private SwiftDouble() {}

        private static final java.util.regex.Pattern DECIMAL =
            java.util.regex.Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
        private static final java.util.regex.Pattern HEX =
            java.util.regex.Pattern.compile("[+-]?0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?");
        private static final java.util.regex.Pattern INFINITY =
            java.util.regex.Pattern.compile("[+-]?(inf|infinity)", java.util.regex.Pattern.CASE_INSENSITIVE);
        private static final java.util.regex.Pattern NAN =
            java.util.regex.Pattern.compile("[+-]?nan(\\([0-9A-Za-z_]*\\))?", java.util.regex.Pattern.CASE_INSENSITIVE);
        private static final java.util.regex.Pattern SIGNALING_NAN =
            java.util.regex.Pattern.compile("[+-]?snan", java.util.regex.Pattern.CASE_INSENSITIVE);

        /** The double Swift reads from {@code text}, or null; Swift reads a C string, so a NUL ends it. */
        static Double parse(String text) {
            int nul = text.indexOf('\0');
            if (nul >= 0) text = text.substring(0, nul);
            boolean negative = text.startsWith("-");
            if (SIGNALING_NAN.matcher(text).matches()) return Double.NaN;
            if (NAN.matcher(text).matches()) return negative ? Double.longBitsToDouble(0xfff8000000000000L) : Double.NaN;
            if (INFINITY.matcher(text).matches()) return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            try {
                if (DECIMAL.matcher(text).matches()) return Double.parseDouble(text);
                if (HEX.matcher(text).matches()) {
                    boolean exponent = text.indexOf('p') >= 0 || text.indexOf('P') >= 0;
                    return Double.parseDouble(exponent ? text : text + "p0");
                }
            } catch (NumberFormatException e) {
                return null;
            }
            return null;
        }

        /** {@code x} with {@code digits} fraction digits, as Foundation's {@code %.Nf} in en_US_POSIX writes it. */
        static String fixed(double x, int digits) {
            boolean negative = (Double.doubleToRawLongBits(x) < 0);
            if (Double.isNaN(x)) return negative ? "-NaN" : "NaN";
            if (Double.isInfinite(x)) return negative ? "-INF" : "INF";
            String plain = shortest(Math.abs(x)).setScale(digits, RoundingMode.HALF_EVEN).toPlainString();
            return negative ? "-" + plain : plain;
        }

        /** The decimal with the fewest significant digits that reads back as {@code x} (x >= 0), nearest it on a tie. */
        static BigDecimal shortest(double x) {
            if (x == 0) return BigDecimal.ZERO;
            BigDecimal exact = new BigDecimal(x);
            for (int precision = 1; precision <= 17; precision++) {
                java.math.MathContext down = new java.math.MathContext(precision, RoundingMode.FLOOR);
                java.math.MathContext up = new java.math.MathContext(precision, RoundingMode.CEILING);
                BigDecimal low = exact.round(down);
                BigDecimal high = exact.round(up);
                boolean lowReads = Double.parseDouble(low.toString()) == x;
                boolean highReads = Double.parseDouble(high.toString()) == x;
                if (lowReads && highReads) {
                    int order = exact.subtract(low).compareTo(high.subtract(exact));
                    if (order != 0) return order < 0 ? low : high;
                    return low.unscaledValue().testBit(0) ? high : low;
                }
                if (lowReads) return low;
                if (highReads) return high;
            }
            return exact;
        }
    }
}
