package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The signatures over one site file, each naming the key that made it: {@code FILE.sigs} beside index.json, every
 * manifest and every key list (docs/keys.md, "Wire format"; SignatureSet in RolloutModel/Trust/KeyList.swift).
 *
 * <pre>{"format":"rollout-signatures/1","signatures":[{"keyid":"9f86d081884c7d65","sig":"BASE64"}]}</pre>
 */
final class SignatureSet {
    static final String FORMAT = "rollout-signatures/1";
    /** More than this many signatures on one file is refused unread: a device never verifies an attacker's thousand. */
    static final int MAXIMUM_ENTRIES = 16;

    /** One signature and the id of the key that made it. */
    static final class Entry {
        final String keyId;
        /** The 64-byte Ed25519 signature over the file's exact bytes. */
        final byte[] signature;

        Entry(String keyId, byte[] signature) {
            this.keyId = keyId;
            this.signature = signature;
        }
    }

    final List<Entry> entries;

    SignatureSet(List<Entry> entries) {
        this.entries = Collections.unmodifiableList(new ArrayList<>(entries));
    }

    /** Reads a {@code .sigs} file; not signed itself, so any strict JSON of this shape is accepted. */
    static SignatureSet parse(byte[] bytes, String source) throws DocumentException {
        Map<String, Object> o = Wire.document(bytes, source, FORMAT);
        List<Object> items = Json.array(o.get("signatures"));
        if (items == null) throw DocumentException.in(source, "needs a \"signatures\" array");
        if (items.size() > MAXIMUM_ENTRIES) {
            throw DocumentException.in(source,
                "holds " + items.size() + " signatures; at most " + MAXIMUM_ENTRIES + " are read");
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Map<String, Object> e = Json.object(items.get(i));
            String id = e == null ? null : Json.string(e.get("keyid"));
            String text = e == null ? null : Json.string(e.get("sig"));
            if (id == null || text == null) {
                throw DocumentException.in(source, "signatures[" + i + "] needs \"keyid\" and \"sig\" strings");
            }
            if (!KeyList.isKeyId(id)) {
                throw DocumentException.in(source,
                    "signatures[" + i + "]: \"" + id + "\" is not a key id (16 lowercase hex digits)");
            }
            byte[] raw = Base64s.decodeCanonical(text);
            if (raw == null || raw.length != Ed25519.SIGNATURE_BYTES) {
                throw DocumentException.in(source,
                    "signatures[" + i + "]: \"sig\" is not the base64 of a 64-byte Ed25519 signature");
            }
            entries.add(new Entry(id, raw));
        }
        return new SignatureSet(entries);
    }

    /** The ids among {@code keys} (by id) with a signature here that verifies over {@code message}. */
    Set<String> signers(byte[] message, Map<String, Ed25519.PublicKey> keys) {
        Set<String> valid = new HashSet<>();
        for (Entry entry : entries) {
            if (valid.contains(entry.keyId)) continue;
            Ed25519.PublicKey key = keys.get(entry.keyId);
            if (key != null && key.verify(entry.signature, message)) valid.add(entry.keyId);
        }
        return valid;
    }
}
