package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The conformance kit's signatures.json: only the exact .sig form verifies, as in the Swift client. */
class SignaturesConformanceTest {
    private static byte[] bytes(Object base64) {
        byte[] decoded = Base64s.decodeCanonical(Json.string(base64));
        assertNotNull(decoded, "the kit's base64 " + base64);
        return decoded;
    }

    @Test
    void onlyTheExactSignatureFormVerifies() throws Exception {
        Map<String, Object> file = Fixtures.kit("signatures.json");
        Ed25519.PublicKey key = Ed25519.PublicKey.parse(Json.string(file.get("publicKey")));
        Ed25519.PublicKey other = Ed25519.PublicKey.parse(Json.string(file.get("otherPublicKey")));
        assertNotNull(key);
        assertNotNull(other);
        List<Map<String, Object>> cases = Fixtures.cases(file, "cases", 10);
        Map<String, Object> good = null;
        for (Map<String, Object> c : cases) {
            String name = Json.string(c.get("name"));
            boolean valid = Json.bool(c.get("valid"));
            assertEquals(valid, DetachedSignature.verify(bytes(c.get("sig")), bytes(c.get("file")), key), name);
            if (name.equals("good")) good = c;
        }
        assertNotNull(good, "the kit has a good case");
        assertFalse(
            DetachedSignature.verify(bytes(good.get("sig")), bytes(good.get("file")), other),
            "the good signature under another key");
    }

    @Test
    void whatEncodeWritesVerifies() throws Exception {
        Map<String, Object> file = Fixtures.kit("signatures.json");
        Ed25519.PublicKey key = Ed25519.PublicKey.parse(Json.string(file.get("publicKey")));
        for (Object item : Json.array(file.get("cases"))) {
            Map<String, Object> c = Json.object(item);
            if (!Json.string(c.get("name")).equals("good")) continue;
            byte[] sig = bytes(c.get("sig"));
            byte[] raw = Base64s.decodeCanonical(new String(sig, 0, sig.length - 1, "US-ASCII"));
            assertEquals(89, DetachedSignature.encode(raw).length);
            assertTrue(DetachedSignature.verify(DetachedSignature.encode(raw), bytes(c.get("file")), key));
        }
    }
}
