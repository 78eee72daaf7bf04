package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JSON is read and written exactly as the Swift client reads and writes it (StrictJSONParser, JSONWriter). */
class JsonTest {
    private static Object parse(String text) throws JsonException {
        return Json.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String refusal(byte[] bytes) {
        return assertThrows(JsonException.class, () -> Json.parse(bytes), Arrays.toString(bytes)).getMessage();
    }

    private static String refusal(String text) {
        return refusal(text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) out[i] = (byte) values[i];
        return out;
    }

    private static String canonical(Object value) {
        return new String(Json.canonical(value), StandardCharsets.UTF_8);
    }

    @Test
    void valuesHaveTheDocumentedJavaTypes() throws Exception {
        Map<String, Object> o = Json.object(parse(
            "{\"s\":\"x\",\"i\":-12,\"f\":1.5,\"e\":1e2,\"t\":true,\"n\":null,\"a\":[1,\"2\"],\"o\":{}}"));
        assertEquals(Arrays.asList("s", "i", "f", "e", "t", "n", "a", "o"), new ArrayList<>(o.keySet()), "document order");
        assertEquals("x", o.get("s"));
        assertEquals(-12L, o.get("i"));
        assertEquals(1.5, o.get("f"));
        assertEquals(100.0, o.get("e"), "an exponent makes it a number, not an integer");
        assertEquals(null, Json.integer(o.get("e")));
        assertEquals(Boolean.TRUE, o.get("t"));
        assertEquals(Json.NULL, o.get("n"));
        assertEquals(Arrays.asList(1L, "2"), o.get("a"));
        assertEquals(new LinkedHashMap<String, Object>(), o.get("o"));
    }

    @Test
    void integersBeyondTwoToThe53AreNumbersButNotIntegers() throws Exception {
        assertEquals(9_007_199_254_740_991L, parse("9007199254740991"));
        assertEquals(-9_007_199_254_740_991L, parse("-9007199254740991"));
        assertEquals(9.007199254740992e15, parse("9007199254740992"));
        assertEquals(null, Json.integer(parse("9007199254740993")));
        assertEquals(null, Json.integer(parse("123456789012345678901234567890")));
        assertEquals(0L, parse("-0"));
    }

    @Test
    void refusesWhatTwoParsersCouldReadDifferently() {
        assertTrue(refusal("{\"a\":1,\"a\":2}").contains("duplicate key \"a\" (first defined on line 1)"));
        assertTrue(refusal("{\"\u00e9\":1,\"e\u0301\":2}").contains("in another Unicode normalisation form"),
            "keys Swift's String equality sees as one");
        assertTrue(refusal("\"\\ud800\"").contains("unpaired surrogate \\uD800"));
        assertTrue(refusal("\"\\udc00\"").contains("unpaired surrogate \\uDC00"));
        assertTrue(refusal("\"\\ud800\\u0041\"").contains("unpaired surrogate"));
        assertTrue(refusal("\"a\tb\"").contains("control character byte 0x9 inside a string must be escaped"));
        assertTrue(refusal("{} {}").contains("unexpected content after the end of the document"));
        assertTrue(refusal("01").contains("leading zeros"));
        assertTrue(refusal("1.").contains("digits must follow '.'"));
        assertTrue(refusal("1e").contains("digits must follow the exponent"));
        assertTrue(refusal("1e400").contains("number 1e400 is out of range"));
        assertTrue(refusal("[1,]").contains("where a value should start"));
        assertTrue(refusal("{\"a\" 1}").contains("expected ':' after key \"a\""));
        assertTrue(refusal("'a'").contains("unexpected ''' where a value should start"));
        assertTrue(refusal("tru").contains("invalid literal (expected true)"));
        assertTrue(refusal("\"\\x\"").contains("invalid escape \\x"));
        assertTrue(refusal("").contains("unexpected end of document"));
        assertTrue(refusal("\"abc").contains("unterminated string"));
    }

    @Test
    void refusesInvalidUtf8InStrings() {
        assertTrue(refusal(bytes('"', 0xC0, 0x80, '"')).contains("invalid UTF-8 (byte 0xC0)"), "overlong NUL");
        assertTrue(refusal(bytes('"', 0xE0, 0x80, 0x80, '"')).contains("invalid UTF-8"), "overlong three bytes");
        assertTrue(refusal(bytes('"', 0xED, 0xA0, 0x80, '"')).contains("invalid UTF-8"), "an encoded surrogate");
        assertTrue(refusal(bytes('"', 0xF4, 0x90, 0x80, 0x80, '"')).contains("invalid UTF-8"), "above U+10FFFF");
        assertTrue(refusal(bytes('"', 0xE2, 0x82, '"')).contains("bad continuation"), "a cut sequence");
        assertTrue(refusal(bytes('"', 0xE2, 0x82)).contains("truncated sequence"));
        assertTrue(refusal(bytes('"', 0x80, '"')).contains("invalid UTF-8 (byte 0x80)"), "a lone continuation byte");
    }

    @Test
    void refusalsSayWhatTheSwiftParserSaysWhereItSaysIt() {
        JsonException duplicate = assertThrows(JsonException.class, () -> parse("{\n  \"k\": 1,\n  \"k\": 2\n}"));
        assertEquals("duplicate key \"k\" (first defined on line 2)", duplicate.reason());
        assertEquals(3, duplicate.line());
        assertEquals(3, duplicate.column());
        assertEquals("duplicate key \"é\" (first defined on line 1)",
            assertThrows(JsonException.class, () -> parse("{\"é\": 1, \"\\u00e9\": 2}")).reason(),
            "found after escapes are decoded");
        assertEquals(
            "duplicate key \"cafe\u0301\" (first defined on line 1 as the same text in another Unicode normalisation form)",
            assertThrows(JsonException.class, () -> parse("{\"caf\u00e9\": 1, \"cafe\u0301\": 2}")).reason());
        assertEquals(5, assertThrows(JsonException.class, () -> parse("\"ş\" x")).column());
        assertTrue(refusal("{\"a\": 1,}").contains("expected a quoted key"));
        assertTrue(refusal("NaN").contains("where a value should start"));
        assertTrue(refusal(bytes('"', 0xC3, 0x28, '"')).startsWith("line 1, column 2: invalid UTF-8"));
        assertTrue(refusal(bytes('"', 0xFF, '"')).contains("invalid UTF-8 (byte 0xFF)"));
    }

    @Test
    void readsValidUtf8AndEscapesToTheSameText() throws Exception {
        assertEquals("é€😀", parse("\"é€😀\""));
        assertEquals("é€😀\n\"\\/\b\f\r\t", parse("\"\\u00e9\\u20AC\\ud83d\\ude00\\n\\\"\\\\\\/\\b\\f\\r\\t\""));
        assertEquals("a\u0000b", parse("\"a\\u0000b\""));
    }

    @Test
    void nestingStopsAt64Levels() throws Exception {
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 64; i++) deep.append('[');
        for (int i = 0; i < 64; i++) deep.append(']');
        Json.parse(deep.toString());
        String tooDeep = "{\"a\":" + deep + "}";
        assertTrue(refusal(tooDeep).contains("nesting deeper than 64 levels"));
    }

    @Test
    void aByteOrderMarkIsSkippedAndErrorsArePositionedInCharacters() throws Exception {
        byte[] bom = bytes(0xEF, 0xBB, 0xBF, '{', '}');
        assertEquals(new LinkedHashMap<String, Object>(), Json.parse(bom));
        JsonException e = assertThrows(JsonException.class, () -> parse("{\n  \"é\": x}"));
        assertEquals(2, e.line());
        assertEquals(8, e.column(), "é is one column, though two bytes");
        assertEquals("line 2, column 8: unexpected 'x' where a value should start", e.getMessage());
        JsonException duplicate = assertThrows(JsonException.class, () -> parse("{\"a\":1,\n\"a\":2}"));
        assertEquals("line 2, column 1: duplicate key \"a\" (first defined on line 1)", duplicate.getMessage());
    }

    @Test
    void canonicalFormSortsByUtf16AndEscapesMinimally() throws Exception {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("\uE000", 1L);
        o.put("\uD83D\uDE00", 2L);
        o.put("b", "q\"\\\u0001\u001f\t\n\r\b\f/é");
        o.put("a", Arrays.asList(true, Json.NULL, 1.5));
        // U+1F600 is D83D DE00 in UTF-16, which sorts before E000 (in code points it would sort after).
        assertEquals("{\"a\":[true,null,1.5],\"b\":\"q\\\"\\\\\\u0001\\u001f\\t\\n\\r\\b\\f/é\",\"😀\":2,\"\uE000\":1}",
            canonical(o));
    }

    @Test
    void theSwiftWritersOwnExamplesGiveTheSameText() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("\uFF5E", 1L);
        o.put("😀", 2L);
        o.put("a", 3L);
        o.put("B", 4L);
        assertEquals("{\"B\":4,\"a\":3,\"😀\":2,\"～\":1}", canonical(o));
        assertEquals("\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001 \\u001f \u007F \u2028 é 😀 /\"",
            canonical("q\" b\\ \b\f\n\r\t \u0001 \u001F \u007F \u2028 é 😀 /"));
        double[] values = {0, -0.0, 1, -1, 17, 0.5, 0.1, 1e21, 1e20, 123_456_789_012_345_680_000.0, 1e-7, 0.000001,
            1.5e-10, 4.5, 2e-3, 9_007_199_254_740_992.0, 5e-324, 1.7976931348623157e308, 333333333.33333329};
        String[] texts = {"0", "0", "1", "-1", "17", "0.5", "0.1", "1e+21", "100000000000000000000",
            "123456789012345680000", "1e-7", "0.000001", "1.5e-10", "4.5", "0.002", "9007199254740992", "5e-324",
            "1.7976931348623157e+308", "333333333.3333333"};
        for (int i = 0; i < values.length; i++) assertEquals(texts[i], Json.formatNumber(values[i]), texts[i]);
    }

    @Test
    void numbersAreWrittenAsEcmaScriptWritesThem() {
        // RFC 8785 appendix B's samples (checked against node's JSON.stringify, as were 350,000 random doubles).
        String[][] samples = {
            {"0000000000000000", "0"}, {"8000000000000000", "0"}, {"0000000000000001", "5e-324"},
            {"8000000000000001", "-5e-324"}, {"7fefffffffffffff", "1.7976931348623157e+308"},
            {"ffefffffffffffff", "-1.7976931348623157e+308"}, {"4340000000000000", "9007199254740992"},
            {"c340000000000000", "-9007199254740992"}, {"4430000000000000", "295147905179352830000"},
            {"44b52d02c7e14af5", "9.999999999999997e+22"}, {"44b52d02c7e14af6", "1e+23"},
            {"44b52d02c7e14af7", "1.0000000000000001e+23"}, {"444b1ae4d6e2ef4e", "999999999999999700000"},
            {"444b1ae4d6e2ef4f", "999999999999999900000"}, {"444b1ae4d6e2ef50", "1e+21"},
            {"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"}, {"3eb0c6f7a0b5ed8d", "0.000001"},
            {"41b3de4355555553", "333333333.3333332"}, {"41b3de4355555554", "333333333.33333325"},
            {"41b3de4355555555", "333333333.3333333"}, {"41b3de4355555556", "333333333.3333334"},
            {"41b3de4355555557", "333333333.33333343"}, {"becbf647612f3696", "-0.0000033333333333333333"},
            {"43143ff3c1cb0959", "1424953923781206.2"},
        };
        for (String[] sample : samples) {
            double value = Double.longBitsToDouble(Long.parseUnsignedLong(sample[0], 16));
            assertEquals(sample[1], Json.formatNumber(value), sample[0]);
        }
        assertEquals("0.30000000000000004", Json.formatNumber(0.1 + 0.2));
        assertEquals("-12", canonical(-12L));
    }

    @Test
    void packChecksumInputsCanonicaliseToTheBytesTheSwiftSideHashes() throws Exception {
        List<Object> vectors = Json.array(Fixtures.json("checksum-vectors.json"));
        assertTrue(vectors.size() >= 5);
        for (Object item : vectors) {
            Map<String, Object> v = Json.object(item);
            Map<String, Object> value = Json.object(Json.parse(Json.string(v.get("input"))));
            // A pack's checksum is over the pack without its own checksum member (Pack.swift).
            value.remove("checksum");
            String expected = Json.string(v.get("canonical"));
            assertEquals(expected, canonical(value), Json.string(v.get("name")));
            assertEquals(
                Json.string(v.get("checksum")), "sha256:" + Sha256.hex(Sha256.digest(Json.canonical(value))),
                Json.string(v.get("name")));
        }
    }

    @Test
    void theConformanceKitReadsBackToItsOwnBytes() throws Exception {
        // The kit is JSONWriter.pretty's output: writing what was read must give every byte back.
        int files = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Fixtures.kitFolder(), "*.json")) {
            for (Path path : entries) {
                byte[] bytes = Files.readAllBytes(path);
                assertArrayEquals(bytes, Json.pretty(Json.parse(bytes)), path.getFileName().toString());
                files++;
            }
        }
        assertTrue(files >= 5, "only " + files + " kit files");
    }

    @Test
    void prettyIndentsByTwoAndEndsWithANewline() throws Exception {
        Object value = parse("{\"b\":[],\"a\":{\"x\":[1,{}]}}");
        assertEquals("{\n  \"a\": {\n    \"x\": [\n      1,\n      {}\n    ]\n  },\n  \"b\": []\n}\n",
            new String(Json.pretty(value), StandardCharsets.UTF_8));
    }
}
