package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What trust.json does not reach: the checks of a cached file (no clock), the legacy .sig of a pack an app cached
 * before it had a key list, and a held key list kept as its bytes. Keys are made by the JDK's own Ed25519 (a test
 * JVM has it; Android before API 33 does not, hence Ed25519.java).
 */
class KeyChainTest {
    private static final long DAY = 86_400;
    private static final long NOW = 1_796_000_000L;

    /** A key pair from the JDK, with its raw public key as the library reads it. */
    static final class Signer {
        final KeyPair pair;
        final Ed25519.PublicKey publicKey;

        Signer() throws Exception {
            pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
            byte[] encoded = pair.getPublic().getEncoded();
            // X.509 SubjectPublicKeyInfo for Ed25519: a fixed 12-byte header, then the 32 raw bytes.
            publicKey = Ed25519.PublicKey.of(Arrays.copyOfRange(encoded, encoded.length - 32, encoded.length));
        }

        byte[] sign(byte[] message) throws Exception {
            Signature signature = Signature.getInstance("Ed25519");
            signature.initSign(pair.getPrivate());
            signature.update(message);
            return signature.sign();
        }

        String id() {
            return publicKey.id();
        }
    }

    private static byte[] sigs(Map<String, byte[]> signatures) {
        StringBuilder out = new StringBuilder("{\"format\":\"rollout-signatures/1\",\"signatures\":[");
        String separator = "";
        for (Map.Entry<String, byte[]> e : signatures.entrySet()) {
            out.append(separator).append("{\"keyid\":\"").append(e.getKey()).append("\",\"sig\":\"")
                .append(Base64s.encode(e.getValue())).append("\"}");
            separator = ",";
        }
        return out.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private final Signer root;
    private final Signer current;
    private final Signer expired;
    private final Signer revoked;
    private final KeyList list;

    KeyChainTest() throws Exception {
        root = new Signer();
        current = new Signer();
        expired = new Signer();
        revoked = new Signer();
        Map<String, KeyList.PublishingKey> publishing = new HashMap<>();
        publishing.put(current.id(), new KeyList.PublishingKey(current.publicKey, NOW - 10 * DAY, NOW + 300 * DAY));
        publishing.put(expired.id(), new KeyList.PublishingKey(expired.publicKey, NOW - 400 * DAY, NOW - DAY));
        Map<String, KeyList.Revocation> revocations = new HashMap<>();
        revocations.put(revoked.id(), new KeyList.Revocation(NOW - 2 * DAY, "laptop stolen"));
        list = new KeyList(3, NOW - DAY, new KeyList.Roots(Collections.singletonList(root.publicKey), 1), publishing,
            revocations, Collections.singletonList(1L));
    }

    private SignedFile signedBy(Signer signer, byte[] bytes) throws Exception {
        return new SignedFile("manifests/tr-TR.json", bytes, sigs(Collections.singletonMap(signer.id(), signer.sign(bytes))));
    }

    @Test
    void signaturesTheJdkMakesVerifyAndAChangedMessageDoesNot() throws Exception {
        java.util.Random random = new java.util.Random(29);
        for (int i = 0; i < 64; i++) {
            Signer signer = i % 8 == 0 ? new Signer() : current;
            byte[] message = new byte[random.nextInt(300)];
            random.nextBytes(message);
            byte[] signature = signer.sign(message);
            assertTrue(signer.publicKey.verify(signature, message), "message " + i);
            if (message.length > 0) {
                message[random.nextInt(message.length)] ^= (byte) (1 << random.nextInt(8));
                assertFalse(signer.publicKey.verify(signature, message), "message " + i + " changed");
            }
        }
    }

    @Test
    void anExpiredPublishingKeyStillVouchesForWhatADeviceCachedButNotForANewDownload() throws Exception {
        SignedFile file = signedBy(expired, "{}".getBytes(StandardCharsets.UTF_8));
        assertEquals(expired.id(), KeyChain.publisher(file, list, null));
        TrustFailure failure = assertThrows(TrustFailure.class, () -> KeyChain.publisher(file, list, NOW));
        assertEquals("expired-key", failure.code());
        assertEquals(FailureReason.EXPIRED_KEY, failure.reason());
        assertTrue(failure.getMessage().startsWith("manifests/tr-TR.json: signed by publishing key " + expired.id()
            + ", which expired at "), failure.getMessage());
    }

    @Test
    void aRevokedKeyVouchesForNothingEvenCached() throws Exception {
        SignedFile file = signedBy(revoked, "{}".getBytes(StandardCharsets.UTF_8));
        TrustFailure failure = assertThrows(TrustFailure.class, () -> KeyChain.publisher(file, list, null));
        assertEquals("revoked-key", failure.code());
        assertEquals("manifests/tr-TR.json: signed by " + revoked.id() + ", a revoked publishing key (laptop stolen)",
            failure.getMessage());
    }

    @Test
    void aLegacySigIsVouchedForByAnUnrevokedPublishingKeyOfTheList() throws Exception {
        byte[] manifest = "{\"locale\":\"tr-TR\"}".getBytes(StandardCharsets.UTF_8);
        assertEquals(current.id(), KeyChain.legacySigner(manifest, DetachedSignature.encode(current.sign(manifest)), list));
        assertEquals(expired.id(), KeyChain.legacySigner(manifest, DetachedSignature.encode(expired.sign(manifest)), list),
            "expiry never takes away what a device has");
        assertNull(KeyChain.legacySigner(manifest, DetachedSignature.encode(revoked.sign(manifest)), list));
        assertNull(KeyChain.legacySigner(manifest, DetachedSignature.encode(root.sign(manifest)), list), "a root key");
        byte[] other = "{\"locale\":\"de-DE\"}".getBytes(StandardCharsets.UTF_8);
        assertNull(KeyChain.legacySigner(other, DetachedSignature.encode(current.sign(manifest)), list));
    }

    @Test
    void aKeyListReadsBackFromTheBytesADeviceSaves() throws Exception {
        KeyList read = KeyList.parse(list.bytes(), "state.json keyList");
        assertEquals(list, read);
        assertArrayEquals(list.bytes(), read.bytes());
        Map<String, Object> kit = Fixtures.kit("trust.json");
        Map<String, Object> first = Json.object(Json.array(kit.get("cases")).get(0));
        byte[] published = Base64s.decodeCanonical(Json.string(Json.object(first.get("site")).get("keys.json")));
        assertArrayEquals(published, KeyList.parse(published, "keys.json").bytes(), "a published list is canonical");
    }

    @Test
    void anIndexIsCheckedForReplayMinimumAndExpiry() throws Exception {
        KeyChain.checkIndex(5, NOW + DAY, NOW, 5, 5, true);
        KeyChain.checkIndex(5, null, NOW, 0, 0, false);
        List<String> codes = Arrays.asList(
            code(() -> KeyChain.checkIndex(4, NOW + DAY, NOW, 5, 0, true)),
            code(() -> KeyChain.checkIndex(4, NOW + DAY, NOW, 0, 5, true)),
            code(() -> KeyChain.checkIndex(5, null, NOW, 0, 0, true)),
            code(() -> KeyChain.checkIndex(5, NOW, NOW, 0, 0, false)));
        assertEquals(Arrays.asList("index-replayed", "below-minimum-sequence", "index-without-expiry", "index-expired"),
            codes);
    }

    private interface Check {
        void run() throws TrustFailure;
    }

    private static String code(Check check) {
        return assertThrows(TrustFailure.class, check::run).code();
    }
}
