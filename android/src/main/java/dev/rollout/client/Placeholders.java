package dev.rollout.client;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pack's canonical form of Android's printf strings (docs/import.md, "Android res/ and String
 * Catalogs"), as {@code Placeholders} in RolloutModel writes it for the Java dialect: literal text
 * escaped for ICU, {@code %1$s} as {@code {0}}, {@code %2$d} as {@code {1, number}},
 * {@code %.2f} as {@code {0, number, ::.00}}, plural forms as one ICU {@code plural}. The same
 * strings.xml gives the same text here as in {@code rollout pack import}.
 */
final class Placeholders {
    private Placeholders() {}

    /** Why a printf string has no faithful ICU form; the string is left out (or shown as written) with it. */
    static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;

        Refusal(String reason) {
            super(reason);
        }

        String reason() {
            return getMessage();
        }
    }

    /** The CLDR plural categories in CLDR order, the order ICU plurals are written in. */
    static final List<String> PLURAL_ORDER =
            Collections.unmodifiableList(Arrays.asList("zero", "one", "two", "few", "many", "other"));

    /**
     * Literal text in ICU form: an apostrophe doubled, and {@code {}}, {@code }} (and {@code #}
     * inside a plural form) quoted, so that ICU's apostrophe rules give back exactly this text. A
     * run of special characters (with any apostrophes among them) is quoted as one span: two
     * spans side by side would read as an apostrophe inside one.
     */
    static String literal(String text, boolean inPlural) {
        boolean needed = false;
        for (int i = 0; i < text.length() && !needed; i++) {
            needed = text.charAt(i) == '\'' || special(text.charAt(i), inPlural);
        }
        if (!needed) return text;
        StringBuilder out = new StringBuilder(text.length() + 8);
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (!special(c, inPlural)) {
                out.append(c == '\'' ? "''" : String.valueOf(c));
                i++;
                continue;
            }
            // The run: specials, and apostrophes that have another special after them.
            int end = i + 1;
            while (end < text.length()) {
                if (special(text.charAt(end), inPlural)) {
                    end++;
                } else if (text.charAt(end) == '\'') {
                    int next = end;
                    while (next < text.length() && text.charAt(next) == '\'') next++;
                    if (next < text.length() && special(text.charAt(next), inPlural)) {
                        end = next;
                    } else {
                        break;
                    }
                } else {
                    break;
                }
            }
            out.append('\'');
            for (int k = i; k < end; k++) out.append(text.charAt(k) == '\'' ? "''" : String.valueOf(text.charAt(k)));
            out.append('\'');
            i = end;
        }
        return out.toString();
    }

    static String literal(String text) {
        return literal(text, false);
    }

    private static boolean special(char c, boolean inPlural) {
        return c == '{' || c == '}' || (inPlural && c == '#');
    }

    /** Categories sorted in CLDR order (unknown ones after, by name). */
    static List<String> pluralCategories(Collection<String> categories) {
        List<String> sorted = new ArrayList<>(categories);
        sorted.sort((a, b) -> {
            int x = rank(a);
            int y = rank(b);
            return x != y ? Integer.compare(x, y) : a.compareTo(b);
        });
        return sorted;
    }

    private static int rank(String category) {
        int index = PLURAL_ORDER.indexOf(category);
        return index < 0 ? 99 : index;
    }

    // MARK: printf (java.util.Formatter, as Android's getString(id, args...) uses it)

    /** How an argument is shown: text, an integer, or a decimal with {@code digits} fraction digits. */
    static final class Value {
        static final Value TEXT = new Value(Kind.TEXT, 0);
        static final Value INTEGER = new Value(Kind.INTEGER, 0);

        enum Kind {
            TEXT,
            INTEGER,
            DECIMAL
        }

        final Kind kind;
        final int digits;

        private Value(Kind kind, int digits) {
            this.kind = kind;
            this.digits = digits;
        }

        static Value decimal(int digits) {
            return new Value(Kind.DECIMAL, digits);
        }
    }

    /** One piece of a printf string: text ({@code %%} already read as {@code %}), or an argument (0-based). */
    static final class Piece {
        final String text;
        final int argument;
        final Value value;

        private Piece(String text, int argument, Value value) {
            this.text = text;
            this.argument = argument;
            this.value = value;
        }

        static Piece text(String text) {
            return new Piece(text, -1, null);
        }

        static Piece argument(int argument, Value value) {
            return new Piece(null, argument, value);
        }

        boolean isText() {
            return text != null;
        }
    }

    /**
     * {@code text} read as java.util.Formatter reads it: text and conversions, each with its
     * argument (explicit {@code %2$d}, the next in order, or {@code %<s} the previous one). A
     * {@code %} that starts no conversion ({@code 50% off}, a trailing {@code %}) is text, as the
     * platform shows a string it does not format. Refuses a conversion whose output ICU cannot
     * reproduce (width, padding, flags, hexadecimal, scientific, dates).
     */
    static List<Piece> printf(String text) throws Refusal {
        List<Piece> pieces = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int sequential = 0;
        Integer previous = null;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != '%' || i + 1 >= text.length()) {
                literal.append(c);
                i++;
                continue;
            }
            char next = text.charAt(i + 1);
            if (next == '%') {
                literal.append('%');
                i += 2;
                continue;
            }
            if (next == 'n') {
                literal.append('\n');
                i += 2;
                continue;
            }
            Spec spec = Spec.parse(text, i);
            if (spec == null) {
                literal.append('%');
                i++;
                continue;
            }
            String spelled = text.substring(i, spec.end);
            int argument;
            if (spec.position != null) {
                argument = spec.position - 1;
            } else if (spec.relative) {
                if (previous == null) throw new Refusal(spelled + " repeats a previous argument, and there is none");
                argument = previous;
            } else {
                argument = sequential++;
            }
            previous = argument;
            if (literal.length() > 0) {
                pieces.add(Piece.text(literal.toString()));
                literal.setLength(0);
            }
            pieces.add(Piece.argument(argument, spec.value(spelled)));
            i = spec.end;
        }
        if (literal.length() > 0) pieces.add(Piece.text(literal.toString()));
        return pieces;
    }

    /**
     * Pieces in canonical ICU form: arguments become {@code {0}}, {@code {1, number}} or
     * {@code {1, number, ::.00}}, everything else literal text. {@code pluralArgument}'s
     * conversion is written {@code #} (the string is a plural form); null outside a plural.
     */
    static String icu(List<Piece> pieces, Integer pluralArgument) throws Refusal {
        StringBuilder out = new StringBuilder();
        for (Piece piece : pieces) {
            if (piece.isText()) {
                out.append(literal(piece.text, pluralArgument != null));
            } else if (pluralArgument != null && piece.argument == pluralArgument) {
                if (piece.value.kind == Value.Kind.DECIMAL) {
                    throw new Refusal("the counted number is written with " + piece.value.digits
                            + " decimals, which an ICU plural's # does not keep");
                }
                out.append('#');
            } else if (piece.value.kind == Value.Kind.TEXT) {
                out.append('{').append(piece.argument).append('}');
            } else if (piece.value.kind == Value.Kind.INTEGER) {
                out.append('{').append(piece.argument).append(", number}");
            } else {
                out.append('{').append(piece.argument).append(", number, ::.");
                for (int d = 0; d < piece.value.digits; d++) out.append('0');
                out.append('}');
            }
        }
        return out.toString();
    }

    /** A printf string (no plural) in canonical ICU form. */
    static String printfIcu(String text) throws Refusal {
        return icu(printf(text), null);
    }

    /**
     * printf plural forms (category to text) as one ICU plural, in CLDR order. The counted argument
     * is the integer the forms count with ({@link #countedArgument}), written {@code #} in each form. ICU needs an
     * {@code other} form (Android falls back to it), so forms without one are refused, except in
     * a language where no whole number is {@code other} (Polish, Russian: it is for fractions,
     * which {@code getQuantityString(int)} never passes): {@code many} stands for it there.
     */
    static String printfPlural(Map<String, String> forms, String language) throws Refusal {
        Map<String, String> all = new LinkedHashMap<>(forms);
        if (!all.containsKey("other") && all.containsKey("many") && language != null
                && !wholeNumberCategories(language).contains("other")) {
            all.put("other", all.get("many"));
        }
        if (!all.containsKey("other")) {
            throw new Refusal("its plural forms (" + String.join(", ", pluralCategories(all.keySet()))
                    + ") have no \"other\", the form every count falls back to");
        }
        List<String> categories = pluralCategories(all.keySet());
        List<List<Piece>> parsed = new ArrayList<>();
        for (String category : categories) parsed.add(printf(all.get(category)));
        int argument = countedArgument(parsed, categories, categories.indexOf("other"));
        StringBuilder out = new StringBuilder("{").append(argument).append(", plural,");
        for (int k = 0; k < categories.size(); k++) {
            out.append(' ').append(categories.get(k)).append(" {").append(icu(parsed.get(k), argument)).append('}');
        }
        return out.append('}').toString();
    }

    /**
     * The argument plural forms count with, as the Swift importer chooses it. Like
     * {@code getQuantityString(id, count, args)}, the count only picks the form; the forms show it as
     * an integer conversion. So: of the {@code other} form's integer conversions, the first that a
     * {@code zero}, {@code one} or {@code two} form writing digits leaves out (it writes its number
     * itself: {@code "%1$d of 1 article"} beside {@code "%1$d of %2$d articles"} counts with %2$d);
     * else the first integer conversion of {@code other}, else of any form, else the first number
     * of any form, else 0.
     */
    static int countedArgument(List<List<Piece>> parsed, List<String> categories, int other) {
        List<Integer> integers = new ArrayList<>();
        for (Piece piece : parsed.get(other)) {
            if (!piece.isText() && piece.value.kind == Value.Kind.INTEGER && !integers.contains(piece.argument)) {
                integers.add(piece.argument);
            }
        }
        for (int k = 0; integers.size() > 1 && k < parsed.size(); k++) {
            String category = categories.get(k);
            if (!category.equals("zero") && !category.equals("one") && !category.equals("two")) continue;
            boolean digits = false;
            List<Integer> shown = new ArrayList<>();
            for (Piece piece : parsed.get(k)) {
                if (!piece.isText()) {
                    shown.add(piece.argument);
                } else {
                    for (int i = 0; i < piece.text.length(); i++) {
                        if (piece.text.charAt(i) >= '0' && piece.text.charAt(i) <= '9') digits = true;
                    }
                }
            }
            if (!digits) continue;
            for (Integer argument : integers) {
                if (!shown.contains(argument)) return argument;
            }
        }
        Integer found = integers.isEmpty() ? null : integers.get(0);
        for (int k = 0; found == null && k < parsed.size(); k++) found = firstArgument(parsed.get(k), true);
        for (int k = 0; found == null && k < parsed.size(); k++) found = firstArgument(parsed.get(k), false);
        return found == null ? 0 : found;
    }

    /** The first integer conversion's argument ({@code integerOnly}), or the first number's. */
    private static Integer firstArgument(List<Piece> pieces, boolean integerOnly) {
        for (Piece piece : pieces) {
            if (piece.isText()) continue;
            if (integerOnly ? piece.value.kind == Value.Kind.INTEGER : piece.value.kind != Value.Kind.TEXT) {
                return piece.argument;
            }
        }
        return null;
    }

    /**
     * Whole numbers that reach every category CLDR gives a whole number: the residues its rules test
     * (moduli 10 to 1000, the small ranges) and the millions French {@code many} counts, as the Swift
     * table samples them (PluralRules.swift).
     */
    static final int[] WHOLE_NUMBER_SAMPLES = wholeNumberSamples();

    private static int[] wholeNumberSamples() {
        int[] samples = new int[2000 + 4];
        for (int n = 0; n < 2000; n++) samples[n] = n;
        samples[2000] = 1_000_000;
        samples[2001] = 2_000_000;
        samples[2002] = 1_000_001;
        samples[2003] = 1_000_000_000;
        return samples;
    }

    /**
     * The categories some whole number takes in {@code language}: Polish and Russian keep
     * {@code other} for fractions.
     */
    static Set<String> wholeNumberCategories(String language) {
        PluralRules rules = PluralRules.of(language);
        Set<String> categories = new HashSet<>();
        for (int n : WHOLE_NUMBER_SAMPLES) categories.add(rules.category(PluralOperands.parse(Integer.toString(n))));
        return categories;
    }

    /** One conversion: {@code %} [position {@code $}] [flags] [width] [{@code .} precision] conversion. */
    private static final class Spec {
        private static final String JAVA_CONVERSIONS = "sScCdoxXeEfgGaAbBhHtT";
        private static final String JAVA_FLAGS = "-#+ 0,(<";

        Integer position;
        boolean relative;
        String flags = "";
        String width = "";
        Integer precision;
        char conversion;
        int end;

        /** The specification at {@code s[start]} (a {@code %}), or null when that {@code %} is text. */
        static Spec parse(String s, int start) {
            Spec spec = new Spec();
            int j = start + 1;
            // A % followed by a space is text: catalogs write "50% off", never the space flag.
            if (j >= s.length() || s.charAt(j) == ' ') return null;
            int leadEnd = digitsEnd(s, j);
            if (leadEnd > j && leadEnd < s.length() && s.charAt(leadEnd) == '$') {
                Integer position = parseInt(s.substring(j, leadEnd));
                if (position == null || position < 1) return null;
                spec.position = position;
                j = leadEnd + 1;
            }
            StringBuilder flags = new StringBuilder();
            while (j < s.length() && JAVA_FLAGS.indexOf(s.charAt(j)) >= 0) {
                if (s.charAt(j) == '<') {
                    spec.relative = true;
                } else {
                    flags.append(s.charAt(j));
                }
                j++;
            }
            spec.flags = flags.toString();
            int widthEnd = digitsEnd(s, j);
            spec.width = s.substring(j, widthEnd);
            j = widthEnd;
            if (j < s.length() && s.charAt(j) == '.') {
                j++;
                int precisionEnd = digitsEnd(s, j);
                if (precisionEnd == j) return null;
                Integer precision = parseInt(s.substring(j, precisionEnd));
                spec.precision = precision == null ? 0 : precision;
                j = precisionEnd;
            }
            if (j >= s.length()) return null;
            char conversion = s.charAt(j);
            if (JAVA_CONVERSIONS.indexOf(conversion) < 0) return null;
            if (conversion == 't' || conversion == 'T') j++; // a date conversion has a suffix letter
            spec.conversion = conversion;
            spec.end = Math.min(j + 1, s.length());
            return spec;
        }

        /** How the argument is shown, or why ICU cannot show it the same way. */
        Value value(String spelled) throws Refusal {
            boolean textual = conversion == 's' || conversion == 'c';
            boolean integral = conversion == 'd';
            if (textual || integral || conversion == 'f') {
                if (!flags.isEmpty()) throw refuse(spelled, "the flag " + flags + " changes how it is written");
                if (!width.isEmpty()) throw refuse(spelled, "a width of " + width + " pads it");
            }
            if (textual) {
                if (precision != null) throw refuse(spelled, "a precision cuts the text short");
                return Value.TEXT;
            }
            if (integral) {
                if (precision != null) throw refuse(spelled, "a precision pads the number with zeros");
                return Value.INTEGER;
            }
            switch (conversion) {
                case 'f':
                    return Value.decimal(precision == null ? 6 : precision);
                case 'x':
                case 'X':
                case 'o':
                    throw refuse(spelled, "a hexadecimal or octal number");
                case 'e':
                case 'E':
                case 'g':
                case 'G':
                case 'a':
                case 'A':
                    throw refuse(spelled, "a number in scientific notation");
                case 'S':
                case 'C':
                    throw refuse(spelled, "the text in capitals");
                case 't':
                case 'T':
                    throw refuse(spelled, "a date or time");
                case 'b':
                case 'B':
                    throw refuse(spelled, "a true/false value");
                default:
                    throw refuse(spelled, "a hash code");
            }
        }

        private static Refusal refuse(String spelled, String why) {
            return new Refusal(spelled + ": " + why + ", which the ICU form cannot keep");
        }

        private static int digitsEnd(String s, int from) {
            int j = from;
            while (j < s.length() && s.charAt(j) >= '0' && s.charAt(j) <= '9') j++;
            return j;
        }

        private static Integer parseInt(String digits) {
            try {
                return Integer.valueOf(digits);
            } catch (NumberFormatException tooLong) {
                return null;
            }
        }
    }
}
