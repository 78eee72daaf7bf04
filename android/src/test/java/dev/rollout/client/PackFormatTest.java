package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Packs as docs/pack-format.md defines them: the checksum vectors, and the hostile catalogue (Tests/Fixtures/hostile),
 * each file refused by the device's parser with the Swift parser's message, or accepted when only the repository's
 * lint and history rules refuse it (`rollout pack lint` exits 1 for those, 65 for a file that is not a pack).
 */
class PackFormatTest {
    /**
     * The hostile packs that are well-formed packs: `rollout pack add` refuses them for their content (secrets,
     * markup, placeholders, ICU syntax) or against the repository's history, which a device does not check.
     */
    private static final Set<String> WELL_FORMED = new HashSet<>(Arrays.asList(
            "aws-access-key.json", "bidi-override.json", "changed-printf-placeholder.json",
            "content-version-backwards.json", "dropped-version-placeholder.json", "escaped-nul.json",
            "event-handler.json", "fallback-cycle.json", "fallback-missing.json", "icu-plural-without-other.json",
            "icu-unclosed.json", "icu-unknown-category.json", "javascript-url.json", "private-key.json",
            "protected-key-changed.json", "removed-keys.json", "same-id-different-content.json", "script-tag.json",
            "value-too-long.json"));

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyChecksumVectorHasItsCanonicalFormAndChecksum() throws Exception {
        List<Object> vectors = Json.array(Fixtures.json("checksum-vectors.json"));
        assertTrue(vectors.size() > 5, "only " + vectors.size() + " vectors");
        for (Object item : vectors) {
            Map<String, Object> v = Json.object(item);
            String name = Json.string(v.get("name"));
            Pack pack = Pack.parse(utf8(Json.string(v.get("input"))), name, false);
            assertEquals(Json.string(v.get("canonical")), new String(pack.canonicalBytes(), StandardCharsets.UTF_8),
                    name);
            assertEquals(Json.string(v.get("checksum")), pack.checksum(), name);
        }
    }

    @Test
    void aPackDeclaringItsChecksumParsesWithItVerified() throws Exception {
        List<Object> vectors = Json.array(Fixtures.json("checksum-vectors.json"));
        Map<String, Object> first = Json.object(vectors.get(0));
        Map<String, Object> declared = new LinkedHashMap<>(Json.object(Json.parse(Json.string(first.get("input")))));
        declared.put("checksum", Json.string(first.get("checksum")));
        Pack pack = Pack.parse(Json.canonical(declared), "en-US@1");
        assertEquals(Json.string(first.get("checksum")), pack.declaredChecksum());
        assertEquals("en-US@1", pack.id().toString());
        assertEquals("Welcome", pack.strings().get("home.title"));
    }

    @Test
    void everyHostilePackIsRefusedWithTheSwiftMessageOrIsAWellFormedPack() throws Exception {
        List<Object> catalogue = Json.array(Fixtures.json("hostile/catalogue.json"));
        assertTrue(catalogue.size() > 40, "only " + catalogue.size() + " hostile packs");
        int refused = 0;
        Set<String> seen = new HashSet<>();
        for (Object item : catalogue) {
            Map<String, Object> c = Json.object(item);
            String file = Json.string(c.get("file"));
            seen.add(file);
            byte[] bytes = Fixtures.bytes("hostile/" + file);
            if (WELL_FORMED.contains(file)) {
                Pack pack = Pack.parse(bytes, file);
                assertFalse(pack.strings().isEmpty(), file);
                continue;
            }
            DocumentException e = assertThrows(DocumentException.class, () -> Pack.parse(bytes, file), file);
            String message = e.getMessage();
            assertTrue(message.startsWith(file + ":"), file + ": the message names the file: " + message);
            String expected = Json.string(c.get("message"));
            assertTrue(message.contains(expected), file + ": expected \"" + expected + "\" in: " + message);
            refused++;
        }
        assertTrue(seen.containsAll(WELL_FORMED), "every well-formed file is in the catalogue");
        assertEquals(catalogue.size() - WELL_FORMED.size(), refused);
    }

    @Test
    void theAcceptedFixturesParse() throws Exception {
        for (String file : Arrays.asList("empty-value.json", "whitespace-value.json")) {
            Pack pack = Pack.parse(Fixtures.bytes("accepted/" + file), file);
            assertNotNull(pack.id(), file);
        }
    }

    private static final String GOOD = "{\"locale\": \"tr-TR\", \"schemaVersion\": 2, \"contentVersion\": 18,"
            + " \"minAppVersion\": \"4.8.0\", \"strings\": {\"b\": 1, \"a\": null, \"ok\": \"x\"}}";

    @Test
    void ofSeveralValuesThatAreNotStringsTheFirstKeyIsNamed() {
        DocumentException e = assertThrows(DocumentException.class, () -> Pack.parse(utf8(GOOD), "tr-TR@18"));
        assertEquals("tr-TR@18: strings[\"a\"] must be a string, found null", e.getMessage());
    }

    @Test
    void aContentVersionTooLargeToBeExactIsNamedAsSuch() {
        String pack = GOOD.replace("18,", "99999999999999999999,");
        DocumentException e = assertThrows(DocumentException.class, () -> Pack.parse(utf8(pack), "p.json"));
        assertEquals("p.json: \"contentVersion\" must be an integer, found 100000000000000000000, which is too large",
                e.getMessage());
    }

    @Test
    void aStoredPackIsReadWithoutItsChecksumWhenAskedTo() throws Exception {
        String wrong = GOOD.replace("{\"b\": 1, \"a\": null, \"ok\": \"x\"}", "{\"ok\": \"x\"}")
                .replace("}}", "}, \"checksum\": \"sha256:" + zeros(64) + "\"}");
        assertThrows(DocumentException.class, () -> Pack.parse(utf8(wrong), "p.json"));
        Pack read = Pack.parse(utf8(wrong), "p.json", false);
        assertEquals("tr-TR@18", read.id().toString());
        assertNull(read.declaredChecksum());
    }

    private static String zeros(int count) {
        char[] out = new char[count];
        Arrays.fill(out, '0');
        return new String(out);
    }

    @Test
    void bundleOnlyPatternsTakeKeysOutOfWhatIsShown() throws Exception {
        KeyPatterns patterns = KeyPatterns.parse(Arrays.asList("legal.*", "a?c"));
        assertNotNull(patterns);
        Map<String, String> strings = new LinkedHashMap<>();
        strings.put("legal.terms", "T");
        strings.put("legal", "L");
        strings.put("abc", "1");
        strings.put("abbc", "2");
        strings.put("a\u0301c", "3");
        Map<String, String> shown = patterns.removing(strings);
        assertEquals(Arrays.asList("legal", "abbc", "a\u0301c"), new ArrayList<>(shown.keySet()));
        // A character is what a reader sees: a letter and its accent are one.
        assertTrue(KeyPatterns.parse(Collections.singletonList("?c")).matches("a\u0301c"));
        assertNull(KeyPatterns.parse(Arrays.asList("legal.*", "has space")));
        assertNull(KeyPatterns.parse(Collections.singletonList("")));
        assertEquals(Collections.singletonList("ok"), KeyPatterns.valid(Arrays.asList("ok", "no\u00A0")).spellings());
        // Canonically equivalent keys are one key: a pattern in NFD matches the key in NFC.
        assertTrue(KeyPatterns.parse(Collections.singletonList("caf\u0065\u0301*")).matches("caf\u00e9.title"));
        assertArrayEquals(new String[0], KeyPatterns.NONE.spellings().toArray());
    }
}
