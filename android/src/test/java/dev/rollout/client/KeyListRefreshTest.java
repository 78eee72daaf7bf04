package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A client on root keys (Trust) against a site signed by publishing keys of a key list (.sigs):
 * it refreshes, a rotation that revokes the key that signed its packs keeps them only once the new
 * key vouches for them again, and an index by an unknown or expired key changes nothing. The site is
 * the kit's baseline re-signed here (the JDK's Ed25519 signs; the client only verifies).
 */
class KeyListRefreshTest {
    private final Map<String, Object> kit = Fixtures.kit("launches.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final MemorySite site = new MemorySite();
    private final KeyPair root = generate();
    private final LaunchesConformanceTest.SettableClock clock =
            new LaunchesConformanceTest.SettableClock(LaunchesConformanceTest.instant("2026-11-21T10:00:00Z"));

    private static KeyPair generate() {
        try {
            return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    private static Ed25519.PublicKey publicKey(KeyPair pair) {
        byte[] encoded = pair.getPublic().getEncoded();
        return Ed25519.PublicKey.of(Arrays.copyOfRange(encoded, encoded.length - 32, encoded.length));
    }

    private static byte[] sigs(byte[] bytes, KeyPair... signers) {
        List<Object> entries = new ArrayList<>();
        try {
            for (KeyPair signer : signers) {
                Signature signature = Signature.getInstance("Ed25519");
                signature.initSign(signer.getPrivate());
                signature.update(bytes);
                Map<String, Object> entry = new TreeMap<>();
                entry.put("keyid", publicKey(signer).id());
                entry.put("sig", Base64.getEncoder().encodeToString(signature.sign()));
                entries.add(entry);
            }
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
        Map<String, Object> set = new TreeMap<>();
        set.put("format", SignatureSet.FORMAT);
        set.put("signatures", entries);
        return Json.canonical(set);
    }

    /**
     * keys.json of {@code version}, the root's list of publishing keys {@code publishing}, revoking
     * {@code revoked}.
     */
    private byte[] keyList(long version, List<KeyPair> publishing, List<KeyPair> revoked) {
        Map<String, Object> roots = new TreeMap<>();
        roots.put("threshold", 1L);
        roots.put("keys", Collections.singletonMap(publicKey(root).id(), publicKey(root).text()));
        Map<String, Object> keys = new TreeMap<>();
        for (KeyPair pair : publishing) {
            Map<String, Object> key = new TreeMap<>();
            key.put("publicKey", publicKey(pair).text());
            key.put("created", "2026-01-01T00:00:00Z");
            key.put("expires", "2027-01-01T00:00:00Z");
            keys.put(publicKey(pair).id(), key);
        }
        Map<String, Object> gone = new TreeMap<>();
        for (KeyPair pair : revoked) {
            Map<String, Object> revocation = new TreeMap<>();
            revocation.put("time", "2026-11-01T00:00:00Z");
            revocation.put("reason", "leaked");
            gone.put(publicKey(pair).id(), revocation);
        }
        Map<String, Object> list = new TreeMap<>();
        list.put("format", KeyList.FORMAT);
        list.put("version", version);
        list.put("time", "2026-11-01T00:00:00Z");
        list.put("roots", roots);
        list.put("publishing", keys);
        list.put("revoked", gone);
        list.put("rootChanges", new ArrayList<Object>(Collections.singletonList(1L)));
        return Json.canonical(list);
    }

    /**
     * The kit's baseline site, its index given {@code expires}, every file signed by {@code
     * publisher}, under key list {@code keys}.
     */
    private void serve(byte[] keys, KeyPair publisher, String expires, long sequenceBump) throws JsonException {
        Map<String, Object> baseline = Json.object(Json.object(kit.get("sites")).get("baseline"));
        Map<String, Object> files = new LinkedHashMap<>();
        for (Map.Entry<String, Object> entry : baseline.entrySet()) {
            if (!entry.getKey().endsWith(".sig")) files.put(entry.getKey(), entry.getValue());
        }
        Map<String, Object> index = Json.object(Json.parse(Base64.getDecoder().decode(MemorySite.text(files.get("index.json")))));
        index.put("expires", expires);
        index.put("sequence", Json.integer(index.get("sequence")) + sequenceBump);
        files.put("index.json", Base64.getEncoder().encodeToString(Json.canonical(index)));
        for (String path : new ArrayList<>(files.keySet())) {
            if (path.equals("index.json") || path.startsWith("manifests/")) {
                byte[] bytes = Base64.getDecoder().decode(MemorySite.text(files.get(path)));
                files.put(path + ".sigs", Base64.getEncoder().encodeToString(sigs(bytes, publisher)));
            }
        }
        files.put("keys.json", Base64.getEncoder().encodeToString(keys));
        files.put("keys.json.sigs", Base64.getEncoder().encodeToString(sigs(keys, root)));
        site.serve(files);
    }

    private RolloutClient launch(java.io.File cache, List<String> rootKeys) {
        return new RolloutClient(MemorySite.bundled(kit.get("bundled")), cache, MemorySite.MANIFEST_URL,
                new Trust(rootKeys, 1, null, 0), MemorySite.text(device.get("appVersion")),
                MemorySite.text(device.get("region")), MemorySite.text(device.get("locale")),
                site.options(device).clock(clock).build());
    }

    @Test
    void aDeviceOnRootKeysTakesASiteSignedByAPublishingKeyOfItsList() throws JsonException {
        KeyPair publisher = generate();
        serve(keyList(1, Collections.singletonList(publisher), Collections.<KeyPair>emptyList()), publisher,
                "2027-01-01T00:00:00Z", 0);
        RolloutClient client = launch(MemorySite.scratch("keys"), Collections.singletonList(publicKey(root).text()));
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind());
        client.activatePending();
        assertEquals("tr-TR@17 title", client.string("title"));
        assertEquals(Long.valueOf(1), client.status().keysVersion());
        assertTrue(client.status().indexExpires() != null && !client.status().isStale());
    }

    @Test
    void aRevokedPublishingKeyVouchesForNothingOnceTheNewListArrives() throws JsonException {
        java.io.File cache = MemorySite.scratch("keys-rotation");
        KeyPair leaked = generate();
        serve(keyList(1, Collections.singletonList(leaked), Collections.<KeyPair>emptyList()), leaked,
                "2027-01-01T00:00:00Z", 0);
        RolloutClient client = launch(cache, Collections.singletonList(publicKey(root).text()));
        client.refresh(true);
        client.activatePending();

        KeyPair next = generate();
        byte[] rotated = keyList(2, Collections.singletonList(next), Collections.singletonList(leaked));
        // The site's key list is rotated but its files still carry the leaked key's signatures.
        serve(rotated, leaked, "2027-01-01T00:00:00Z", 1);
        RefreshResult refused = client.refresh(true);
        assertEquals(RefreshResult.Kind.FAILED, refused.kind());
        assertEquals(FailureReason.REVOKED_KEY, refused.failure().reason());
        assertEquals("bundled tr-TR title", client.string("title"), "the packs the leaked key vouched for went at once");
        assertEquals("bundled tr-TR title", launch(cache, Collections.singletonList(publicKey(root).text())).string("title"));

        serve(rotated, next, "2027-01-01T00:00:00Z", 2);
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind());
        client.activatePending();
        assertEquals("tr-TR@17 title", client.string("title"));
        assertEquals(Long.valueOf(2), client.status().keysVersion());
    }

    @Test
    void anIndexByAnUnknownKeyOrPastItsExpiryChangesNothing() throws JsonException {
        KeyPair publisher = generate();
        byte[] keys = keyList(1, Collections.singletonList(publisher), Collections.<KeyPair>emptyList());
        RolloutClient client = launch(MemorySite.scratch("keys-refused"), Collections.singletonList(publicKey(root).text()));
        serve(keys, generate(), "2027-01-01T00:00:00Z", 0);
        RefreshResult unknown = client.refresh(true);
        assertEquals(FailureReason.UNKNOWN_KEY, unknown.failure() == null ? null : unknown.failure().reason(), unknown.toString());
        serve(keys, publisher, "2026-11-20T00:00:00Z", 0);
        RefreshResult expired = client.refresh(true);
        assertEquals(FailureReason.INDEX_EXPIRED, expired.failure() == null ? null : expired.failure().reason(), expired.toString());
        assertEquals("bundled tr-TR title", client.string("title"));
    }

    @Test
    void rootKeysThatDoNotParseAreMisconfigured() {
        RolloutClient client = launch(MemorySite.scratch("keys-bad"), Collections.singletonList("ed25519:nope"));
        RefreshResult result = client.refresh(true);
        assertEquals(FailureReason.MISCONFIGURED, result.failure().reason());
        assertEquals(0, site.requests.get(), "nothing is fetched");
        RolloutClient pinned = new RolloutClient(MemorySite.bundled(kit.get("bundled")), MemorySite.scratch("keys-bad"),
                MemorySite.MANIFEST_URL, "not a key", "4.8.1", "TR", "tr-TR", site.options(device).build());
        assertEquals(FailureReason.MISCONFIGURED, pinned.refresh(true).failure().reason());
        assertEquals("bundled tr-TR title", pinned.string("title"), "the bundled strings still show");
    }
}
