package dev.rollout.device;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request lines of {@code --batch}: JSON objects, arrays and strings only (what a test writes), so the device
 * program needs nothing of the library's package-private parser.
 */
final class BatchJson {
    private final String text;
    private int at;

    private BatchJson(String text) {
        this.text = text;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(String line) {
        BatchJson parser = new BatchJson(line);
        Object value = parser.value();
        parser.space();
        if (parser.at != line.length() || !(value instanceof Map)) throw parser.error("one JSON object per line");
        return (Map<String, Object>) value;
    }

    private IllegalArgumentException error(String expected) {
        return new IllegalArgumentException("--batch: expected " + expected + " at offset " + at + " of " + text);
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
    }

    private Object value() {
        space();
        if (at >= text.length()) throw error("a value");
        char c = text.charAt(at);
        if (c == '"') return string();
        if (c == '[') {
            at++;
            List<Object> items = new ArrayList<>();
            space();
            if (peek(']')) return items;
            do {
                items.add(value());
                space();
            } while (peek(','));
            if (!peek(']')) throw error("] or ,");
            return items;
        }
        if (c == '{') {
            at++;
            Map<String, Object> members = new LinkedHashMap<>();
            space();
            if (peek('}')) return members;
            do {
                space();
                String key = string();
                space();
                if (!peek(':')) throw error(":");
                members.put(key, value());
                space();
            } while (peek(','));
            if (!peek('}')) throw error("} or ,");
            return members;
        }
        throw error("a string, an array or an object");
    }

    private boolean peek(char c) {
        if (at < text.length() && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    private String string() {
        if (!peek('"')) throw error("a string");
        StringBuilder out = new StringBuilder();
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) break;
            char e = text.charAt(at++);
            switch (e) {
                case 'n': out.append('\n'); break;
                case 't': out.append('\t'); break;
                case 'r': out.append('\r'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'u':
                    if (at + 4 > text.length()) throw error("four hex digits");
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: out.append(e);
            }
        }
        throw error("the end of a string");
    }
}
