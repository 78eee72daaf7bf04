package dev.rollout.device;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What rollout's human and JSON output rules do to text (Sources/RolloutCLI/Output.swift, VisibleText.swift,
 * JSONWriter.swift), ported so that scripts/android-device prints what rollout device prints, byte for byte.
 */
final class Text {
    private Text() {}

    /** VisibleText.isHidden: controls, bidi overrides and XML-forbidden noncharacters never reach a terminal raw. */
    static boolean isHidden(int scalar) {
        return scalar <= 0x1F || (scalar >= 0x7F && scalar <= 0x9F) || (scalar >= 0x202A && scalar <= 0x202E)
                || (scalar >= 0x2066 && scalar <= 0x2069) || scalar == 0xFFFE || scalar == 0xFFFF;
    }

    /** VisibleText.escape: {@code keepLines} for multi-line output, else a newline shows as {@code \n}. */
    static String escape(String text, boolean keepLines) {
        boolean any = false;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            if (isHidden(c)) {
                any = true;
                break;
            }
            i += Character.charCount(c);
        }
        if (!any) return text;
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            if (c == '\n' && keepLines) {
                out.append('\n');
            } else if (!isHidden(c)) {
                out.appendCodePoint(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == 0) {
                out.append("\\0");
            } else {
                out.append("\\u{").append(Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT)).append('}');
            }
        }
        return out.toString();
    }

    static String oneLine(String text) {
        return escape(text, false);
    }

    /** Swift's Character count, close enough for the cells shown here (pack ids, dates, numbers). */
    static int width(String text) {
        return text.codePointCount(0, text.length());
    }

    /** Output.swift's Table: columns aligned on width, two spaces apart, the last column unpadded. */
    static String table(boolean bold, List<String> headers, List<List<String>> rows) {
        List<List<String>> cells = new ArrayList<>();
        for (List<String> row : rows) {
            List<String> flat = new ArrayList<>();
            for (String cell : row) flat.add(oneLine(cell));
            cells.add(flat);
        }
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) widths[i] = width(headers.get(i));
        for (List<String> row : cells) {
            for (int i = 0; i < row.size(); i++) widths[i] = Math.max(widths[i], width(row.get(i)));
        }
        StringBuilder out = new StringBuilder();
        String head = line(headers, widths);
        out.append(bold ? "\u001B[1m" + head + "\u001B[0m" : head);
        for (List<String> row : cells) out.append('\n').append(line(row, widths));
        return out.append('\n').toString();
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) out.append("  ");
            out.append(cells.get(i));
            if (i < cells.size() - 1) {
                for (int pad = width(cells.get(i)); pad < widths[i]; pad++) out.append(' ');
            }
        }
        return out.toString();
    }

    /** String.trimmingSpaces: Unicode white space off both ends. */
    static String trimSpaces(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isSpace(text.codePointAt(start))) start += Character.charCount(text.codePointAt(start));
        while (end > start && isSpace(text.codePointBefore(end))) end -= Character.charCount(text.codePointBefore(end));
        return text.substring(start, end);
    }

    private static boolean isSpace(int c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == 0x85;
    }

    /** ArgumentParser.swift's suggestion: " (did you mean --json?)" when one known name is close to what was typed. */
    static String suggestion(String typed, Set<String> names, String prefix) {
        int typedCount = width(typed);
        String best = null;
        int bestScore = Integer.MAX_VALUE;
        for (String name : new TreeSet<>(names)) {
            int score = editDistance(typed, name);
            if (score <= Math.max(1, typedCount / 3) && score < bestScore) {
                best = name;
                bestScore = score;
            }
        }
        if (best != null) return " (did you mean " + prefix + best + "?)";
        if (!typed.isEmpty()) {
            for (String name : new TreeSet<>(names)) {
                if (name.startsWith(typed)) return " (did you mean " + prefix + name + "?)";
            }
        }
        return "";
    }

    /** Edit distance counting a swap of two neighbours as one edit. */
    static int editDistance(String first, String second) {
        int[] a = first.codePoints().toArray();
        int[] b = second.codePoints().toArray();
        if (a.length == 0) return b.length;
        if (b.length == 0) return a.length;
        int[][] d = new int[a.length + 1][b.length + 1];
        for (int i = 0; i <= a.length; i++) d[i][0] = i;
        for (int j = 0; j <= b.length; j++) d[0][j] = j;
        for (int i = 1; i <= a.length; i++) {
            for (int j = 1; j <= b.length; j++) {
                int cost = a[i - 1] == b[j - 1] ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length][b.length];
    }

    // JSON as JSONWriter.swift writes it: members sorted by UTF-16 code units (String.compareTo), two-space
    // indentation, only quotes, backslashes and controls escaped. Values: Map, List, String, Long/Integer, Boolean,
    // or null.

    static String prettyJson(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, 2, 0);
        return out.append('\n').toString();
    }

    static String compactJson(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, -1, 0);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out, int indent, int level) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean || value instanceof Long || value instanceof Integer) {
            out.append(value);
        } else if (value instanceof String) {
            writeString((String) value, out);
        } else if (value instanceof List) {
            List<?> items = (List<?>) value;
            out.append('[');
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) out.append(',');
                newline(out, indent, level + 1);
                write(items.get(i), out, indent, level + 1);
            }
            if (!items.isEmpty()) newline(out, indent, level);
            out.append(']');
        } else if (value instanceof Map) {
            Map<String, Object> members = new TreeMap<>();
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                members.put((String) entry.getKey(), entry.getValue());
            }
            out.append('{');
            int i = 0;
            for (Map.Entry<String, Object> entry : members.entrySet()) {
                if (i++ > 0) out.append(',');
                newline(out, indent, level + 1);
                writeString(entry.getKey(), out);
                out.append(':');
                if (indent >= 0) out.append(' ');
                write(entry.getValue(), out, indent, level + 1);
            }
            if (!members.isEmpty()) newline(out, indent, level);
            out.append('}');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass());
        }
    }

    private static void newline(StringBuilder out, int indent, int level) {
        if (indent < 0) return;
        out.append('\n');
        for (int i = 0; i < indent * level; i++) out.append(' ');
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\b': out.append("\\b"); break;
                case '\t': out.append("\\t"); break;
                case '\n': out.append("\\n"); break;
                case '\f': out.append("\\f"); break;
                case '\r': out.append("\\r"); break;
                default:
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
