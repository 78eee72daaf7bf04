package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One category's condition in CLDR's rule syntax (UTS #35, "Plural rules syntax"): relations joined
 * by {@code and}, alternatives by {@code or} ({@code and} binds tighter); a relation is an operand,
 * an optional {@code mod}/{@code %}, then {@code =}, {@code !=}, {@code in}, {@code not in},
 * {@code within}, {@code not within}, {@code is} or {@code is not} and a range list ({@code 2..4,9}).
 * Immutable; the port of PluralCondition.swift.
 */
final class PluralCondition {
    enum Operand { N, I, V, W, F, T, C, E }

    /** A range list's member {@code low..high}, both ends included. */
    static final class Range {
        final long low;
        final long high;

        Range(long low, long high) {
            this.low = low;
            this.high = high;
        }

        boolean contains(long value) {
            return Long.compareUnsigned(low, value) <= 0 && Long.compareUnsigned(value, high) <= 0;
        }
    }

    static final class Relation {
        final Operand operand;
        /** Or null: no modulus. */
        final Long modulus;
        final boolean negated;
        /** {@code within}: any value between a range's ends, fractions too; {@code in}: whole values only. */
        final boolean within;
        final List<Range> ranges;

        Relation(Operand operand, Long modulus, boolean negated, boolean within, List<Range> ranges) {
            this.operand = operand;
            this.modulus = modulus;
            this.negated = negated;
            this.within = within;
            this.ranges = Collections.unmodifiableList(ranges);
        }

        boolean matches(PluralOperands number) {
            PluralOperands.Digits digits;
            switch (operand) {
                case N:
                case I: digits = number.i; break;
                case F: digits = number.f; break;
                case T: digits = number.t; break;
                case V: digits = PluralOperands.Digits.of(number.v); break;
                case W: digits = PluralOperands.Digits.of(number.w); break;
                default: digits = PluralOperands.Digits.of(number.e); break;
            }
            // n is i plus a fraction: in a range only when the fraction is zero, within one up to its end.
            boolean fraction = operand == Operand.N && !number.f.isZero();
            long value = digits.low;
            boolean exceeds = digits.exceeds;
            // When the modulus divides 10^18 (every CLDR modulus does), the last 18 digits give the remainder.
            if (modulus != null && (!exceeds || Long.remainderUnsigned(PluralOperands.Digits.LIMIT, modulus) == 0)) {
                value = Long.remainderUnsigned(value, modulus);
                exceeds = false;
            }
            boolean inside = false;
            if (!exceeds) {
                for (Range range : ranges) {
                    boolean hit = within
                        ? range.contains(value) && (Long.compareUnsigned(value, range.high) < 0 || !fraction)
                        : range.contains(value) && !fraction;
                    if (hit) {
                        inside = true;
                        break;
                    }
                }
            }
            return inside != negated;
        }
    }

    /** Alternatives, each relations that must all hold. */
    final List<List<Relation>> alternatives;

    /** Reads {@code text}; IllegalArgumentException names what it cannot read. */
    PluralCondition(String text) {
        Parser parser = new Parser(text, tokens(text));
        List<List<Relation>> read = new ArrayList<>();
        List<Relation> current = new ArrayList<>();
        while (true) {
            current.add(parser.relation());
            if (parser.at == parser.tokens.size()) break;
            String joiner = parser.tokens.get(parser.at++);
            if (joiner.equals("or")) {
                read.add(Collections.unmodifiableList(current));
                current = new ArrayList<>();
            } else if (!joiner.equals("and")) {
                throw parser.error("\"" + joiner + "\" where and, or or the end should be");
            }
        }
        read.add(Collections.unmodifiableList(current));
        alternatives = Collections.unmodifiableList(read);
    }

    boolean matches(PluralOperands number) {
        for (List<Relation> relations : alternatives) {
            boolean all = true;
            for (Relation relation : relations) {
                if (!relation.matches(number)) {
                    all = false;
                    break;
                }
            }
            if (all) return true;
        }
        return false;
    }

    /** Reads relations off the tokens of one condition, front to back. */
    private static final class Parser {
        final String text;
        final List<String> tokens;
        int at;

        Parser(String text, List<String> tokens) {
            this.text = text;
            this.tokens = tokens;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("\"" + text + "\": " + what);
        }

        String first() {
            return at < tokens.size() ? tokens.get(at) : null;
        }

        String next() {
            if (at == tokens.size()) throw new IllegalArgumentException("\"" + text + "\" ends early");
            return tokens.get(at++);
        }

        long number() {
            String token = next();
            try {
                return Long.parseUnsignedLong(token);
            } catch (NumberFormatException e) {
                throw error("\"" + token + "\" is not a number");
            }
        }

        /** An operand, an optional modulus, the comparison and its range list. */
        Relation relation() {
            String name = next();
            Operand operand;
            switch (name) {
                case "n": operand = Operand.N; break;
                case "i": operand = Operand.I; break;
                case "v": operand = Operand.V; break;
                case "w": operand = Operand.W; break;
                case "f": operand = Operand.F; break;
                case "t": operand = Operand.T; break;
                case "c": operand = Operand.C; break;
                case "e": operand = Operand.E; break;
                default: throw error("\"" + name + "\" is not an operand");
            }
            Long modulus = null;
            boolean negated = false;
            boolean within = false;
            if ("mod".equals(first()) || "%".equals(first())) {
                at++;
                modulus = number();
                if (modulus == 0) throw error("mod 0");
            }
            String word = next();
            switch (word) {
                case "=":
                case "in":
                    break;
                case "!=":
                    negated = true;
                    break;
                case "is":
                    if ("not".equals(first())) {
                        at++;
                        negated = true;
                    }
                    break;
                case "not":
                    negated = true;
                    String kind = next();
                    if (!kind.equals("in") && !kind.equals("within")) throw error("\"not " + kind + "\"");
                    within = kind.equals("within");
                    break;
                case "within":
                    within = true;
                    break;
                default:
                    throw error("\"" + word + "\" is not a relation");
            }
            return new Relation(operand, modulus, negated, within, ranges());
        }

        /** {@code 2..4,9}: one or more values or ranges, joined by commas. */
        List<Range> ranges() {
            List<Range> ranges = new ArrayList<>();
            do {
                if (",".equals(first())) at++;
                long low = number();
                long high = low;
                if ("..".equals(first())) {
                    at++;
                    high = number();
                }
                if (Long.compareUnsigned(low, high) > 0) {
                    throw error("the range " + Long.toUnsignedString(low) + ".." + Long.toUnsignedString(high) + " is empty");
                }
                ranges.add(new Range(low, high));
            } while (",".equals(first()));
            return ranges;
        }
    }

    /** Words, numbers and the symbols {@code =}, {@code !=}, {@code %}, {@code ,} and {@code ..}; spaces only separate. */
    private static List<String> tokens(String text) {
        List<String> tokens = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == ' ') {
                i++;
            } else if (Character.isLetterOrDigit(c)) {
                int end = i;
                while (end < text.length() && text.charAt(end) < 0x80 && Character.isLetterOrDigit(text.charAt(end))) end++;
                if (end == i) throw new IllegalArgumentException("\"" + text + "\": \"" + c + "\" is not ASCII");
                tokens.add(text.substring(i, end));
                i = end;
            } else {
                String symbol = null;
                for (String candidate : new String[] {"!=", "..", "=", "%", ","}) {
                    if (text.startsWith(candidate, i)) {
                        symbol = candidate;
                        break;
                    }
                }
                if (symbol == null) throw new IllegalArgumentException("\"" + text + "\": unexpected \"" + c + "\"");
                tokens.add(symbol);
                i += symbol.length();
            }
        }
        return tokens;
    }
}
