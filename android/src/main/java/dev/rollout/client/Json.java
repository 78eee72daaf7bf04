package dev.rollout.client;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as the Swift side reads and writes it (StrictJSONParser.swift, JSONWriter.swift).
 *
 * <p>The parser is RFC 8259 refusing everything two parsers could disagree on: duplicate member names (also when they
 * are the same text in another Unicode normalisation form, as Swift's String equality sees them), invalid UTF-8, lone
 * surrogate escapes, unescaped control characters, trailing content, and nesting deeper than {@link #MAXIMUM_DEPTH}.
 * A leading UTF-8 byte order mark is skipped.
 *
 * <p>Values: {@code LinkedHashMap<String,Object>} (members in document order), {@code ArrayList<Object>},
 * {@code String}, {@code Long} for a number written as a plain integer (no fraction, no exponent) whose magnitude is at
 * most 2^53 - 1, {@code Double} for every other number, {@code Boolean} and {@link #NULL}. Larger integers stay
 * numbers but are not integers (I-JSON, RFC 7493), exactly as JSONNumber.integerValue is nil for them in Swift, so no
 * field that wants an integer accepts a value the other client would refuse.
 */
final class Json {
    /** The deepest nesting of arrays and objects a document may have. */
    static final int MAXIMUM_DEPTH = 64;

    /** JSON's null, distinct from Java's null (which means "absent" in the accessors). */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static final long LARGEST_EXACT_INTEGER = 9_007_199_254_740_991L;

    private Json() {}

    /** Parses one UTF-8 document, or throws saying where and why it is refused. */
    static Object parse(byte[] utf8) throws JsonException {
        Parser parser = new Parser(utf8);
        if (utf8.length >= 3 && (utf8[0] & 0xFF) == 0xEF && (utf8[1] & 0xFF) == 0xBB && (utf8[2] & 0xFF) == 0xBF) {
            parser.index = 3;
        }
        parser.skipWhitespace();
        Object value = parser.parseValue(0);
        parser.skipWhitespace();
        if (parser.index != utf8.length) throw parser.error("unexpected content after the end of the document");
        return value;
    }

    /** Parses a document held as text. */
    static Object parse(String text) throws JsonException {
        return parse(text.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code value} as an object, or null when it is something else. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : null;
    }

    /** {@code value} as an array, or null when it is something else. */
    @SuppressWarnings("unchecked")
    static List<Object> array(Object value) {
        return value instanceof List ? (List<Object>) value : null;
    }

    /** The strings of an array, other items left out; null when {@code value} is not an array. */
    static List<String> strings(Object value) {
        List<Object> items = array(value);
        if (items == null) return null;
        List<String> out = new ArrayList<>();
        for (Object item : items) {
            if (item instanceof String) out.add((String) item);
        }
        return out;
    }

    /** {@code value} as a string, or null when it is something else. */
    static String string(Object value) {
        return value instanceof String ? (String) value : null;
    }

    /** {@code value} as an integer, or null unless it was written as one that every parser reads exactly. */
    static Long integer(Object value) {
        return value instanceof Long ? (Long) value : null;
    }

    /** {@code value} as a boolean, or null when it is something else. */
    static Boolean bool(Object value) {
        return value instanceof Boolean ? (Boolean) value : null;
    }

    /** What kind of value this is, in the words an error message uses (JSONValue.kindName). */
    static String kindName(Object value) {
        if (value == NULL) return "null";
        if (value instanceof Boolean) return "a boolean";
        if (value instanceof Number) return "a number";
        if (value instanceof String) return "a string";
        if (value instanceof List) return "an array";
        if (value instanceof Map) return "an object";
        throw new IllegalArgumentException("not a JSON value: " + value);
    }

    /**
     * RFC 8785 (JSON Canonicalization Scheme): members sorted by their UTF-16 code units, no insignificant whitespace,
     * minimal string escaping, numbers in ECMAScript form. The bytes signatures are made over.
     */
    static byte[] canonical(Object value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(value, out, false, 0);
        return out.toByteArray();
    }

    /** The canonical order and escaping with two-space indentation and a final newline, for files people read. */
    static byte[] pretty(Object value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(value, out, true, 0);
        out.write('\n');
        return out.toByteArray();
    }

    private static void write(Object value, ByteArrayOutputStream out, boolean indent, int level) {
        if (value == NULL) {
            ascii(out, "null");
        } else if (value instanceof Boolean) {
            ascii(out, (Boolean) value ? "true" : "false");
        } else if (value instanceof Number) {
            ascii(out, formatNumber(((Number) value).doubleValue()));
        } else if (value instanceof String) {
            writeString((String) value, out);
        } else if (value instanceof List) {
            List<?> items = (List<?>) value;
            out.write('[');
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) out.write(',');
                newline(out, indent, level + 1);
                write(items.get(i), out, indent, level + 1);
            }
            if (!items.isEmpty()) newline(out, indent, level);
            out.write(']');
        } else if (value instanceof Map) {
            Map<?, ?> members = (Map<?, ?>) value;
            String[] keys = new String[members.size()];
            int n = 0;
            for (Object key : members.keySet()) keys[n++] = (String) key;
            // String.compareTo compares UTF-16 code units, which is RFC 8785's order (section 3.2.3).
            Arrays.sort(keys);
            out.write('{');
            for (int i = 0; i < keys.length; i++) {
                if (i > 0) out.write(',');
                newline(out, indent, level + 1);
                writeString(keys[i], out);
                out.write(':');
                if (indent) out.write(' ');
                write(members.get(keys[i]), out, indent, level + 1);
            }
            if (keys.length > 0) newline(out, indent, level);
            out.write('}');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value);
        }
    }

    private static void newline(ByteArrayOutputStream out, boolean indent, int level) {
        if (!indent) return;
        out.write('\n');
        for (int i = 0; i < 2 * level; i++) out.write(' ');
    }

    private static void ascii(ByteArrayOutputStream out, String text) {
        for (int i = 0; i < text.length(); i++) out.write(text.charAt(i));
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** A JSON string: only quotes, backslashes and control characters are escaped; everything else is UTF-8 as is. */
    static void writeString(String text, ByteArrayOutputStream out) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.write('"');
        int runStart = 0;
        for (int index = 0; index < bytes.length; index++) {
            int b = bytes[index] & 0xFF;
            if (b >= 0x20 && b != '"' && b != '\\') continue;
            out.write(bytes, runStart, index - runStart);
            runStart = index + 1;
            switch (b) {
                case '"': ascii(out, "\\\""); break;
                case '\\': ascii(out, "\\\\"); break;
                case 0x08: ascii(out, "\\b"); break;
                case 0x09: ascii(out, "\\t"); break;
                case 0x0A: ascii(out, "\\n"); break;
                case 0x0C: ascii(out, "\\f"); break;
                case 0x0D: ascii(out, "\\r"); break;
                default:
                    ascii(out, "\\u00");
                    out.write(HEX[b >> 4]);
                    out.write(HEX[b & 0x0F]);
            }
        }
        out.write(bytes, runStart, bytes.length - runStart);
        out.write('"');
    }

    /** ECMAScript Number::toString for finite doubles, as RFC 8785 section 3.2.2.3 requires. */
    static String formatNumber(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("JSON has no representation for " + value);
        }
        if (value == 0) return "0";
        if (value == Math.rint(value) && Math.abs(value) < 1e15) return Long.toString((long) value);
        boolean negative = value < 0;
        BigDecimal shortest = shortestDecimal(Math.abs(value));
        String digits = shortest.unscaledValue().toString();
        // value = 0.d1d2...dk x 10^n, in the notation of ECMA-262 section 6.1.6.1.20.
        int k = digits.length();
        int n = k - shortest.scale();
        StringBuilder text = new StringBuilder();
        if (negative) text.append('-');
        if (k <= n && n <= 21) {
            text.append(digits);
            for (int i = k; i < n; i++) text.append('0');
        } else if (0 < n && n <= 21) {
            text.append(digits, 0, n).append('.').append(digits, n, k);
        } else if (-6 < n && n <= 0) {
            text.append("0.");
            for (int i = 0; i < -n; i++) text.append('0');
            text.append(digits);
        } else {
            int e = n - 1;
            text.append(digits.charAt(0));
            if (k > 1) text.append('.').append(digits, 1, k);
            text.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
        }
        return text.toString();
    }

    /**
     * The decimal with the fewest significant digits that reads back as {@code value} (positive, finite), and of
     * those the closest: what Swift's description prints. Double.toString is not shortest before Java 19, and Android
     * does not promise it either, so the digits are searched for here.
     */
    private static BigDecimal shortestDecimal(double value) {
        BigDecimal exact = new BigDecimal(value);
        for (int precision = 1; precision <= 17; precision++) {
            BigDecimal nearest = exact.round(new MathContext(precision, RoundingMode.HALF_EVEN));
            if (readsBackAs(nearest, value)) return nearest.stripTrailingZeros();
            // Just above a power of two the gap below is half the gap above, so the nearest candidate can miss
            // while the one on the other side still reads back.
            for (RoundingMode mode : new RoundingMode[] {RoundingMode.UP, RoundingMode.DOWN}) {
                BigDecimal other = exact.round(new MathContext(precision, mode));
                if (readsBackAs(other, value)) return other.stripTrailingZeros();
            }
        }
        return exact.round(new MathContext(17, RoundingMode.HALF_EVEN)).stripTrailingZeros();
    }

    private static boolean readsBackAs(BigDecimal decimal, double value) {
        return Double.parseDouble(decimal.toString()) == value;
    }

    private static final class Parser {
        final byte[] bytes;
        int index;

        Parser(byte[] bytes) {
            this.bytes = bytes;
        }

        JsonException error(String message) {
            return error(message, index);
        }

        JsonException error(String message, int offset) {
            int end = Math.min(offset, bytes.length);
            int line = 1;
            int lineStart = 0;
            for (int i = 0; i < end; i++) {
                if (bytes[i] == 0x0A) {
                    line++;
                    lineStart = i + 1;
                }
            }
            // Columns count characters, not bytes, so they match what an editor shows.
            int column = 1;
            for (int i = lineStart; i < end; i++) {
                if ((bytes[i] & 0xC0) != 0x80) column++;
            }
            return new JsonException(message, line, column);
        }

        void skipWhitespace() {
            while (index < bytes.length) {
                byte b = bytes[index];
                if (b != 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) return;
                index++;
            }
        }

        static String describeByte(int b) {
            if (b >= 0x21 && b < 0x7F) return "'" + (char) b + "'";
            return "byte 0x" + Integer.toHexString(b).toUpperCase(java.util.Locale.ROOT);
        }

        int current() {
            return bytes[index] & 0xFF;
        }

        Object parseValue(int depth) throws JsonException {
            if (index >= bytes.length) throw error("unexpected end of document");
            int b = current();
            switch (b) {
                case '{': return parseObject(depth + 1);
                case '[': return parseArray(depth + 1);
                case '"': return parseString();
                case 't':
                    expectLiteral("true");
                    return Boolean.TRUE;
                case 'f':
                    expectLiteral("false");
                    return Boolean.FALSE;
                case 'n':
                    expectLiteral("null");
                    return NULL;
                default:
                    if (b == '-' || (b >= '0' && b <= '9')) return parseNumber();
                    throw error("unexpected " + describeByte(b) + " where a value should start");
            }
        }

        void expectLiteral(String literal) throws JsonException {
            int count = literal.length();
            boolean matches = index + count <= bytes.length;
            for (int i = 0; matches && i < count; i++) matches = bytes[index + i] == literal.charAt(i);
            if (!matches) throw error("invalid literal (expected " + literal + ")");
            index += count;
        }

        Object parseObject(int depth) throws JsonException {
            if (depth > MAXIMUM_DEPTH) throw error("nesting deeper than " + MAXIMUM_DEPTH + " levels");
            index++;
            LinkedHashMap<String, Object> object = new LinkedHashMap<>();
            // Keyed by NFC: Swift's dictionary sees canonically equivalent keys as one, so both must refuse them.
            Map<String, Integer> keyOffsets = new HashMap<>();
            Map<String, String> spellings = new HashMap<>();
            skipWhitespace();
            if (index < bytes.length && current() == '}') {
                index++;
                return object;
            }
            while (true) {
                skipWhitespace();
                if (index >= bytes.length) throw error("unexpected end of document inside an object");
                if (current() != '"') throw error("expected a quoted key, found " + describeByte(current()));
                int keyOffset = index;
                String key = parseString();
                String normalized = Normalizer.normalize(key, Normalizer.Form.NFC);
                Integer firstOffset = keyOffsets.get(normalized);
                if (firstOffset != null) {
                    String how = spellings.get(normalized).equals(key)
                        ? ""
                        : " as the same text in another Unicode normalisation form";
                    int firstLine = error("", firstOffset).line();
                    throw error(
                        "duplicate key \"" + key + "\" (first defined on line " + firstLine + how + ")", keyOffset);
                }
                keyOffsets.put(normalized, keyOffset);
                spellings.put(normalized, key);
                skipWhitespace();
                if (index >= bytes.length || current() != ':') throw error("expected ':' after key \"" + key + "\"");
                index++;
                skipWhitespace();
                object.put(key, parseValue(depth));
                skipWhitespace();
                if (index >= bytes.length) throw error("unexpected end of document inside an object");
                if (current() == ',') {
                    index++;
                    continue;
                }
                if (current() == '}') {
                    index++;
                    return object;
                }
                throw error("expected ',' or '}' in an object, found " + describeByte(current()));
            }
        }

        Object parseArray(int depth) throws JsonException {
            if (depth > MAXIMUM_DEPTH) throw error("nesting deeper than " + MAXIMUM_DEPTH + " levels");
            index++;
            ArrayList<Object> array = new ArrayList<>();
            skipWhitespace();
            if (index < bytes.length && current() == ']') {
                index++;
                return array;
            }
            while (true) {
                skipWhitespace();
                array.add(parseValue(depth));
                skipWhitespace();
                if (index >= bytes.length) throw error("unexpected end of document inside an array");
                if (current() == ',') {
                    index++;
                    continue;
                }
                if (current() == ']') {
                    index++;
                    return array;
                }
                throw error("expected ',' or ']' in an array, found " + describeByte(current()));
            }
        }

        boolean isDigitAt(int i) {
            return i < bytes.length && bytes[i] >= '0' && bytes[i] <= '9';
        }

        Object parseNumber() throws JsonException {
            int start = index;
            boolean isInteger = true;
            if (current() == '-') index++;
            if (!isDigitAt(index)) throw error("invalid number");
            if (current() == '0') {
                index++;
                if (isDigitAt(index)) throw error("numbers may not have leading zeros");
            } else {
                while (isDigitAt(index)) index++;
            }
            if (index < bytes.length && current() == '.') {
                isInteger = false;
                index++;
                if (!isDigitAt(index)) throw error("invalid number: digits must follow '.'");
                while (isDigitAt(index)) index++;
            }
            if (index < bytes.length && (current() == 'e' || current() == 'E')) {
                isInteger = false;
                index++;
                if (index < bytes.length && (current() == '+' || current() == '-')) index++;
                if (!isDigitAt(index)) throw error("invalid number: digits must follow the exponent");
                while (isDigitAt(index)) index++;
            }
            String text = new String(bytes, start, index - start, StandardCharsets.US_ASCII);
            double value = Double.parseDouble(text);
            if (Double.isInfinite(value)) throw error("number " + text + " is out of range", start);
            // I-JSON (RFC 7493): an integer beyond 2^53 is not the same number in every parser, and the canonical
            // form (RFC 8785) writes numbers as IEEE doubles. It stays a number, but no field that wants an integer
            // accepts it.
            if (isInteger && Math.abs(value) <= LARGEST_EXACT_INTEGER) return Long.parseLong(text);
            return value;
        }

        String parseString() throws JsonException {
            index++;
            int start = index;
            StringBuilder built = null;
            int runStart = start;
            while (true) {
                if (index >= bytes.length) throw error("unterminated string", start - 1);
                int b = current();
                if (b == '"') {
                    String run = new String(bytes, runStart, index - runStart, StandardCharsets.UTF_8);
                    index++;
                    return built == null ? run : built.append(run).toString();
                }
                if (b == '\\') {
                    if (built == null) built = new StringBuilder();
                    built.append(new String(bytes, runStart, index - runStart, StandardCharsets.UTF_8));
                    built.appendCodePoint(parseEscape());
                    runStart = index;
                    continue;
                }
                if (b < 0x20) throw error("control character " + describeByte(b) + " inside a string must be escaped");
                if (b < 0x80) {
                    index++;
                } else {
                    skipUtf8Sequence();
                }
            }
        }

        /** Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
        void skipUtf8Sequence() throws JsonException {
            int lead = current();
            int length;
            int lower = 0x80;
            int upper = 0xBF;
            if (lead >= 0xC2 && lead <= 0xDF) {
                length = 2;
            } else if (lead == 0xE0) {
                length = 3;
                lower = 0xA0;
            } else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
                length = 3;
            } else if (lead == 0xED) {
                length = 3;
                upper = 0x9F;
            } else if (lead == 0xF0) {
                length = 4;
                lower = 0x90;
            } else if (lead >= 0xF1 && lead <= 0xF3) {
                length = 4;
            } else if (lead == 0xF4) {
                length = 4;
                upper = 0x8F;
            } else {
                throw error("invalid UTF-8 (" + describeByte(lead) + ")");
            }
            if (index + length > bytes.length) throw error("invalid UTF-8 (truncated sequence)");
            int second = bytes[index + 1] & 0xFF;
            if (second < lower || second > upper) {
                throw error("invalid UTF-8 (" + describeByte(lead) + " followed by " + describeByte(second) + ")");
            }
            for (int k = 2; k < length; k++) {
                int next = bytes[index + k] & 0xFF;
                if ((next & 0xC0) != 0x80) throw error("invalid UTF-8 (bad continuation " + describeByte(next) + ")");
            }
            index += length;
        }

        int parseEscape() throws JsonException {
            index++;
            if (index >= bytes.length) throw error("unterminated escape");
            int b = current();
            index++;
            switch (b) {
                case '"': return '"';
                case '\\': return '\\';
                case '/': return '/';
                case 'b': return 0x08;
                case 'f': return 0x0C;
                case 'n': return 0x0A;
                case 'r': return 0x0D;
                case 't': return 0x09;
                case 'u':
                    int first = parseHex4();
                    if (first >= 0xD800 && first <= 0xDBFF) {
                        if (index + 1 >= bytes.length || bytes[index] != '\\' || bytes[index + 1] != 'u') {
                            throw unpaired(first);
                        }
                        index += 2;
                        int second = parseHex4();
                        if (second < 0xDC00 || second > 0xDFFF) throw unpaired(first);
                        return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                    }
                    if (first >= 0xDC00 && first <= 0xDFFF) throw unpaired(first);
                    return first;
                default:
                    throw error("invalid escape \\" + (char) b, index - 2);
            }
        }

        JsonException unpaired(int unit) {
            return error("unpaired surrogate \\u" + Integer.toHexString(unit).toUpperCase(java.util.Locale.ROOT)
                + " is not a character");
        }

        int parseHex4() throws JsonException {
            if (index + 4 > bytes.length) throw error("truncated \\u escape");
            int value = 0;
            for (int i = 0; i < 4; i++) {
                int b = current();
                int digit;
                if (b >= '0' && b <= '9') {
                    digit = b - '0';
                } else if (b >= 'a' && b <= 'f') {
                    digit = b - 'a' + 10;
                } else if (b >= 'A' && b <= 'F') {
                    digit = b - 'A' + 10;
                } else {
                    throw error("invalid hex digit in \\u escape");
                }
                value = value << 4 | digit;
                index++;
            }
            return value;
        }
    }
}
