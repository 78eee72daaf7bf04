package dev.rollout.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A resource file's {@code <!DOCTYPE resources [<!ENTITY name "text">]>}, read as aapt2's XML parser
 * (expat) reads it: each {@code &name;} in the document is the entity's text, itself read as XML.
 * External entities and DTDs ({@code SYSTEM}, {@code PUBLIC}) and parameter entities are refused,
 * never opened; an expansion past {@link #LIMIT} characters ("billion laughs") is refused. The
 * DOCTYPE is replaced by as many line breaks as it spans. The Java twin of AndroidEntities.swift in
 * Sources/RolloutImport: both must give the same document.
 */
final class AndroidEntities {
    /** The most characters (code points) entity references may add to one file. */
    static final int LIMIT = 1 << 20;

    /** Why a file's DOCTYPE is not read, and on which line. */
    static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;
        final int line;

        Refusal(int line, String reason) {
            super(reason);
            this.line = line;
        }
    }

    private final int[] s;
    private int i;
    private final Map<String, int[]> entities = new HashMap<>();
    private int budget = LIMIT;

    private AndroidEntities(int[] s) {
        this.s = s;
    }

    /**
     * The document with its DOCTYPE's entities expanded, or null when it declares no DOCTYPE (or is
     * not UTF-8, which the XML parser reads as it declares).
     */
    static byte[] expand(byte[] data) throws Refusal {
        if (!containsDoctype(data)) return null;
        String text = new String(data, StandardCharsets.UTF_8);
        if (!Arrays.equals(text.getBytes(StandardCharsets.UTF_8), data)) return null;
        return string(new AndroidEntities(text.codePoints().toArray()).document()).getBytes(StandardCharsets.UTF_8);
    }

    private static boolean containsDoctype(byte[] data) {
        byte[] needle = "<!DOCTYPE".getBytes(StandardCharsets.UTF_8);
        outer:
        for (int k = 0; k + needle.length <= data.length; k++) {
            for (int n = 0; n < needle.length; n++) if (data[k + n] != needle[n]) continue outer;
            return true;
        }
        return false;
    }

    private static String string(int[] codePoints, int from, int to) {
        StringBuilder out = new StringBuilder();
        for (int k = from; k < to; k++) out.appendCodePoint(codePoints[k]);
        return out.toString();
    }

    private static String string(int[] codePoints) {
        return string(codePoints, 0, codePoints.length);
    }

    /** A growing array of code points. */
    private static final class Points {
        int[] items = new int[256];
        int size;

        void add(int c) {
            if (size == items.length) items = Arrays.copyOf(items, size * 2);
            items[size++] = c;
        }

        void add(String text) {
            for (int k = 0; k < text.length(); k++) add(text.charAt(k));
        }

        int[] toArray() {
            return Arrays.copyOf(items, size);
        }
    }

    private int line(int at) {
        int line = 1;
        for (int k = 0; k < Math.min(at, s.length); k++) if (s[k] == '\n') line++;
        return line;
    }

    private Refusal refuse(String reason, int at) {
        return new Refusal(line(at), reason);
    }

    private boolean starts(String prefix, int at) {
        if (at + prefix.length() > s.length) return false;
        for (int k = 0; k < prefix.length(); k++) if (s[at + k] != prefix.charAt(k)) return false;
        return true;
    }

    private static boolean isSpace(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private void skipSpaces() {
        while (i < s.length && isSpace(s[i])) i++;
    }

    private void skipPast(String end) {
        while (i < s.length && !starts(end, i)) i++;
        i = Math.min(s.length, i + end.length());
    }

    private String name() {
        StringBuilder out = new StringBuilder();
        while (i < s.length && !isSpace(s[i]) && "\"'>[]%;&<".indexOf(s[i]) < 0) out.appendCodePoint(s[i++]);
        return out.toString();
    }

    private int[] quoted() throws Refusal {
        if (i >= s.length || (s[i] != '"' && s[i] != '\'')) throw refuse("a DOCTYPE declaration is not complete", i);
        int quote = s[i];
        int start = i + 1;
        int end = start;
        while (end < s.length && s[end] != quote) end++;
        if (end >= s.length) throw refuse("a quoted value is not closed", i);
        i = end + 1;
        int[] out = new int[end - start];
        for (int k = start; k < end; k++) out[k - start] = s[k];
        return out;
    }

    private int[] document() throws Refusal {
        while (i < s.length) {
            if (isSpace(s[i])) {
                i++;
            } else if (starts("<?", i)) {
                skipPast("?>");
            } else if (starts("<!--", i)) {
                skipPast("-->");
            } else {
                break;
            }
        }
        if (!starts("<!DOCTYPE", i)) return s;
        int doctype = i;
        doctypeDeclaration();
        int blank = line(i) - line(doctype);
        Points out = new Points();
        for (int k = 0; k < doctype; k++) out.add(s[k]);
        for (int k = 0; k < blank; k++) out.add('\n');
        body(i, out);
        return out.toArray();
    }

    private void doctypeDeclaration() throws Refusal {
        int start = i;
        i += "<!DOCTYPE".length();
        skipSpaces();
        name();
        skipSpaces();
        if (starts("SYSTEM", i) || starts("PUBLIC", i)) {
            throw refuse("an external DTD (<!DOCTYPE … " + (starts("SYSTEM", i) ? "SYSTEM" : "PUBLIC")
                    + " …>) is not read: declare its entities in the file, <!ENTITY name \"text\">", start);
        }
        if (i < s.length && s[i] == '[') {
            i++;
            internalSubset();
        }
        skipSpaces();
        if (i >= s.length || s[i] != '>') throw refuse("the DOCTYPE declaration is not closed", start);
        i++;
    }

    private void internalSubset() throws Refusal {
        while (true) {
            skipSpaces();
            if (i >= s.length) throw refuse("the DOCTYPE's [ is not closed", i);
            if (s[i] == ']') {
                i++;
                return;
            } else if (starts("<!ENTITY", i)) {
                entityDeclaration();
            } else if (starts("<!--", i)) {
                skipPast("-->");
            } else if (starts("<?", i)) {
                skipPast("?>");
            } else if (s[i] == '%') {
                throw refuse("a parameter entity reference (%name;) is not read: declare the entities in the file", i);
            } else if (starts("<!", i)) {
                // <!ELEMENT>, <!ATTLIST>, <!NOTATION>: nothing a string's text needs.
                while (i < s.length && s[i] != '>') {
                    if (s[i] == '"' || s[i] == '\'') quoted();
                    else i++;
                }
                i++;
            } else {
                throw refuse("the DOCTYPE holds something that is not a declaration", i);
            }
        }
    }

    private void entityDeclaration() throws Refusal {
        int start = i;
        i += "<!ENTITY".length();
        skipSpaces();
        if (i < s.length && s[i] == '%') {
            throw refuse("a parameter entity (<!ENTITY % …>) is not read: declare general entities, "
                    + "<!ENTITY name \"text\">", start);
        }
        String entity = name();
        skipSpaces();
        if (starts("SYSTEM", i) || starts("PUBLIC", i)) {
            String kind = starts("SYSTEM", i) ? "SYSTEM" : "PUBLIC";
            i += kind.length();
            skipSpaces();
            String location;
            try {
                location = string(quoted());
            } catch (Refusal noLiteral) {
                location = "";
            }
            throw refuse("the external entity " + entity + " (" + kind + " \"" + location
                    + "\") is not read: write its text in the file, <!ENTITY " + entity + " \"text\">", start);
        }
        int[] literal = quoted();
        skipSpaces();
        if (i >= s.length || s[i] != '>') throw refuse("the declaration of " + entity + " is not closed", start);
        i++;
        if (entity.isEmpty()) throw refuse("an entity declaration has no name", start);
        if (!entities.containsKey(entity)) entities.put(entity, replacementText(literal, line(start)));
    }

    /** An entity's literal as its replacement text: character references are read now (XML 1.0, 4.5). */
    private static int[] replacementText(int[] literal, int line) throws Refusal {
        Points out = new Points();
        int j = 0;
        while (j < literal.length) {
            if (literal[j] == '%') throw new Refusal(line, "a parameter entity reference (%name;) is not read");
            int end = indexOf(literal, ';', j, literal.length);
            if (literal[j] == '&' && j + 2 < literal.length && literal[j + 1] == '#' && end >= 0) {
                String digits = string(literal, j + 2, end);
                int value = number(digits);
                if (value < 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
                    throw new Refusal(line, "&#" + digits + "; is no character");
                }
                out.add(value);
                j = end + 1;
            } else {
                out.add(literal[j++]);
            }
        }
        return out.toArray();
    }

    /** A character reference's number ({@code 38}, {@code x26}), or -1. */
    private static int number(String digits) {
        int radix = digits.startsWith("x") ? 16 : 10;
        String written = radix == 16 ? digits.substring(1) : digits.startsWith("+") ? digits.substring(1) : digits;
        if (written.isEmpty() || written.length() > 8) return -1;
        int value = 0;
        for (int k = 0; k < written.length(); k++) {
            int digit = Character.digit(written.charAt(k), radix);
            if (digit < 0 || written.charAt(k) > 'f') return -1;
            value = value * radix + digit;
        }
        return value;
    }

    private static int indexOf(int[] text, int c, int from, int to) {
        for (int k = from; k < to; k++) if (text[k] == c) return k;
        return -1;
    }

    private static final String[][] UNEXPANDED_SECTIONS = {{"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}};

    /** The document after the DOCTYPE, each declared entity's reference replaced by its text. */
    private void body(int start, Points out) throws Refusal {
        int j = start;
        boolean inTag = false;
        outer:
        while (j < s.length) {
            int c = s[j];
            if (!inTag) {
                for (String[] section : UNEXPANDED_SECTIONS) {
                    if (starts(section[0], j)) {
                        int from = j;
                        i = j;
                        skipPast(section[1]);
                        j = i;
                        for (int k = from; k < j; k++) out.add(s[k]);
                        continue outer;
                    }
                }
            }
            if (c == '<') inTag = true;
            else if (c == '>') inTag = false;
            int semicolon = c == '&' ? indexOf(s, ';', j, Math.min(s.length, j + 64)) : -1;
            if (semicolon < 0) {
                out.add(c);
                j++;
                continue;
            }
            reference(string(s, j + 1, semicolon), j, inTag, new ArrayList<>(), out);
            j = semicolon + 1;
        }
    }

    /**
     * What {@code &name;} stands for, appended to {@code out}: itself when the XML parser reads it
     * (a character reference, one of XML's five), else the declared entity's text with the
     * references in it expanded. Every character an entity adds counts against the budget.
     */
    private void reference(String name, int at, boolean inAttribute, List<String> open, Points out)
            throws Refusal {
        if (name.startsWith("#") || Arrays.asList("lt", "gt", "amp", "apos", "quot").contains(name)) {
            out.add("&" + name + ";");
            return;
        }
        int[] text = entities.get(name);
        if (text == null) throw refuse("&" + name + "; is not declared in the file's DOCTYPE, and aapt2 refuses it too", at);
        if (open.contains(name)) throw refuse("the entity " + name + " refers to itself", at);
        int j = 0;
        while (j < text.length) {
            int semicolon = text[j] == '&' ? indexOf(text, ';', j, text.length) : -1;
            if (semicolon >= 0) {
                List<String> inner = new ArrayList<>(open);
                inner.add(name);
                reference(string(text, j + 1, semicolon), at, inAttribute, inner, out);
                j = semicolon + 1;
                continue;
            }
            if (--budget < 0) {
                throw refuse("its entities expand to more than " + LIMIT
                        + " characters (a \"billion laughs\"), which is not read", at);
            }
            // In an attribute value a quote from an entity is text, not the value's end.
            if (inAttribute && (text[j] == '"' || text[j] == '\'')) {
                out.add("&#" + text[j] + ";");
            } else {
                out.add(text[j]);
            }
            j++;
        }
    }
}
