package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit's trust.json, run as docs/conformance.md "trust.json" orders it and as the Swift client's
 * ConformanceTests runs it: the key list (walking root changes when the roots the device trusts did not sign it; the
 * built-in roots, not the held list's, when the app's roots changed since it accepted that list), then the index's
 * publishing key at now, then the index's sequence and expiry.
 */
class TrustConformanceTest {
    private static byte[] base64(Object value) {
        byte[] bytes = Base64s.decodeCanonical(Json.string(value));
        assertNotNull(bytes, "the kit's base64 " + value);
        return bytes;
    }

    private static KeyList.Roots roots(List<Object> texts, Long threshold) {
        List<Ed25519.PublicKey> keys = new ArrayList<>();
        for (Object text : texts) {
            Ed25519.PublicKey key = Ed25519.PublicKey.parse(Json.string(text));
            if (key != null) keys.add(key);
        }
        return new KeyList.Roots(keys, threshold == null ? 1 : threshold);
    }

    private static long integer(Map<String, Object> object, String name) {
        Long value = Json.integer(object.get(name));
        return value == null ? 0 : value;
    }

    /** What the device decides, in the kit's words: accepted (key list and index) or refused (code, list held). */
    private static Map<String, Object> decide(Map<String, Object> c) throws Exception {
        Map<String, Object> device = Json.object(c.get("device"));
        KeyList.Roots builtIn = roots(Json.array(device.get("rootKeys")), Json.integer(device.get("threshold")));
        KeyList held = device.get("keyList") == Json.NULL
            ? null
            : KeyList.parse(base64(device.get("keyList")), "the held keys.json");
        Map<String, Object> recorded = Json.object(device.get("anchoredTo"));
        KeyList.Roots anchoredTo = recorded == null
            ? null
            : roots(new ArrayList<>(Json.object(recorded.get("keys")).values()), Json.integer(recorded.get("threshold")));
        KeyChain.Anchor anchor = new KeyChain.Anchor(builtIn, held, integer(device, "minimumKeysVersion"), anchoredTo);
        Long now = Timestamp.parse(Json.string(c.get("now")));
        assertNotNull(now);
        Map<String, byte[]> site = new HashMap<>();
        for (Map.Entry<String, Object> e : Json.object(c.get("site")).entrySet()) site.put(e.getKey(), base64(e.getValue()));

        Long holds = held == null ? null : held.version;
        Map<String, Object> outcome = new LinkedHashMap<>();
        try {
            SignedFile latest = signed(site, SiteLayout.KEYS);
            Map<Long, SignedFile> rotations = new HashMap<>();
            for (long version : KeyChain.rotationsNeeded(latest, anchor)) {
                if (site.containsKey(SiteLayout.keys(version))) rotations.put(version, signed(site, SiteLayout.keys(version)));
            }
            KeyList keys = KeyChain.accept(latest, rotations, anchor);
            holds = keys.version;
            SignedFile indexFile = signed(site, SiteLayout.INDEX);
            KeyChain.publisher(indexFile, keys, now);
            SiteIndex index;
            try {
                index = SiteIndex.parse(indexFile.bytes, SiteLayout.INDEX);
            } catch (DocumentException e) {
                throw TrustFailure.damaged(SiteLayout.INDEX, "not an index");
            }
            KeyChain.checkIndex(
                index, now, integer(device, "acceptedIndexSequence"), integer(device, "minimumIndexSequence"), true);
            Map<String, Object> accepted = new LinkedHashMap<>();
            accepted.put("keysVersion", keys.version);
            accepted.put("indexSequence", index.sequence);
            outcome.put("accepted", accepted);
        } catch (TrustFailure failure) {
            outcome.put("refused", failure.code());
            outcome.put("keysVersion", holds == null ? Json.NULL : holds);
        }
        return outcome;
    }

    private static SignedFile signed(Map<String, byte[]> site, String path) {
        byte[] bytes = site.get(path);
        byte[] signatures = site.get(SiteLayout.signatures(path));
        return new SignedFile(path, bytes == null ? new byte[0] : bytes, signatures == null ? new byte[0] : signatures);
    }

    @Test
    void everyTrustCaseIsDecidedAsTheVectorsSay() throws Exception {
        List<Map<String, Object>> cases = Fixtures.cases(Fixtures.kit("trust.json"), "cases", 25);
        List<String> disagreements = new ArrayList<>();
        for (Map<String, Object> c : cases) {
            // Compared as canonical JSON: the kit writes the expectation as JSON, and key order does not matter.
            String expected = new String(Json.canonical(c.get("expected")), StandardCharsets.UTF_8);
            String actual = new String(Json.canonical(decide(c)), StandardCharsets.UTF_8);
            if (!expected.equals(actual)) disagreements.add(Json.string(c.get("name")) + ": expected " + expected + ", got " + actual);
        }
        assertEquals(new ArrayList<String>(), disagreements);
    }
}
