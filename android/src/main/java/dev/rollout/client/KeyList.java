package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The key list a site publishes as keys.json (docs/keys.md; KeyList in RolloutModel/Trust/KeyList.swift): the root
 * keys and how many of them must sign a list, the publishing keys that may sign indexes and manifests, the revoked
 * ids, and a version that only grows. Root keys sign it; a device accepts a list only if it is newer than the one it
 * holds and signed by the roots it trusts ({@link KeyChain#accept}). Immutable; times are seconds since the epoch.
 */
final class KeyList {
    static final String FORMAT = "rollout-keys/1";
    /** Limits a device applies before it trusts anything in a list. */
    static final int MAXIMUM_ROOTS = 16;
    static final int MAXIMUM_KEYS = 256;
    /**
     * A device fetches one keys/&lt;n&gt;.json per root change it walks, as an unsigned list asks: without a bound, a
     * site could make it fetch without end.
     */
    static final int MAXIMUM_ROOT_CHANGES = 64;

    /** The root keys, by id, and how many of them must sign a key list. */
    static final class Roots {
        /** By key id, in id order. */
        final Map<String, Ed25519.PublicKey> keys;
        final long threshold;

        /** {@code keys} by their ids (a key given twice counts once) and the threshold. */
        Roots(Collection<Ed25519.PublicKey> keys, long threshold) {
            TreeMap<String, Ed25519.PublicKey> byId = new TreeMap<>();
            for (Ed25519.PublicKey key : keys) byId.putIfAbsent(key.id(), key);
            this.keys = Collections.unmodifiableMap(byId);
            this.threshold = threshold;
        }

        /** The key ids, sorted. */
        List<String> ids() {
            return new ArrayList<>(keys.keySet());
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Roots)) return false;
            Roots that = (Roots) other;
            return threshold == that.threshold && keys.equals(that.keys);
        }

        @Override
        public int hashCode() {
            return keys.hashCode() * 31 + Long.hashCode(threshold);
        }
    }

    /** A key that may sign indexes and manifests until it expires. */
    static final class PublishingKey {
        final Ed25519.PublicKey publicKey;
        final long created;
        /** After this a device accepts no index or manifest it signs; packs it vouched for stay. */
        final long expires;

        PublishingKey(Ed25519.PublicKey publicKey, long created, long expires) {
            this.publicKey = publicKey;
            this.created = created;
            this.expires = expires;
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof PublishingKey)) return false;
            PublishingKey that = (PublishingKey) other;
            return publicKey.equals(that.publicKey) && created == that.created && expires == that.expires;
        }

        @Override
        public int hashCode() {
            return Objects.hash(publicKey, created, expires);
        }
    }

    /** When and why a key was revoked. */
    static final class Revocation {
        final long time;
        final String reason;

        Revocation(long time, String reason) {
            this.time = time;
            this.reason = reason;
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Revocation)) return false;
            Revocation that = (Revocation) other;
            return time == that.time && reason.equals(that.reason);
        }

        @Override
        public int hashCode() {
            return Objects.hash(time, reason);
        }
    }

    final long version;
    final long time;
    final Roots roots;
    /** By key id, in id order. */
    final Map<String, PublishingKey> publishing;
    /** By key id, in id order. */
    final Map<String, Revocation> revoked;
    /**
     * The versions at which the root keys changed, oldest first (1 included): the site keeps each of those lists at
     * keys/&lt;version&gt;.json, so a device that trusts older roots can walk from them to the current ones.
     */
    final List<Long> rootChanges;

    KeyList(long version, long time, Roots roots, Map<String, PublishingKey> publishing,
            Map<String, Revocation> revoked, List<Long> rootChanges) {
        this.version = version;
        this.time = time;
        this.roots = roots;
        this.publishing = Collections.unmodifiableMap(new TreeMap<>(publishing));
        this.revoked = Collections.unmodifiableMap(new TreeMap<>(revoked));
        this.rootChanges = Collections.unmodifiableList(new ArrayList<>(rootChanges));
    }

    /** Whether {@code text} is a key id: 16 lowercase hex digits. */
    static boolean isKeyId(String text) {
        if (text.length() != 16) return false;
        for (int i = 0; i < 16; i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
        }
        return true;
    }

    /** The role of a key id in this list, for messages: "root", "publishing", "revoked", or null. */
    String role(String id) {
        if (roots.keys.containsKey(id)) return "root";
        if (publishing.containsKey(id)) return "publishing";
        if (revoked.containsKey(id)) return "revoked";
        return null;
    }

    /** The list as JSON values (Json's types). */
    Map<String, Object> json() {
        Map<String, Object> rootKeys = new TreeMap<>();
        for (Map.Entry<String, Ed25519.PublicKey> e : roots.keys.entrySet()) {
            rootKeys.put(e.getKey(), e.getValue().text());
        }
        Map<String, Object> rootsJson = new TreeMap<>();
        rootsJson.put("threshold", roots.threshold);
        rootsJson.put("keys", rootKeys);
        Map<String, Object> publishingJson = new TreeMap<>();
        for (Map.Entry<String, PublishingKey> e : publishing.entrySet()) {
            Map<String, Object> key = new TreeMap<>();
            key.put("publicKey", e.getValue().publicKey.text());
            key.put("created", Timestamp.format(e.getValue().created));
            key.put("expires", Timestamp.format(e.getValue().expires));
            publishingJson.put(e.getKey(), key);
        }
        Map<String, Object> revokedJson = new TreeMap<>();
        for (Map.Entry<String, Revocation> e : revoked.entrySet()) {
            Map<String, Object> revocation = new TreeMap<>();
            revocation.put("time", Timestamp.format(e.getValue().time));
            revocation.put("reason", e.getValue().reason);
            revokedJson.put(e.getKey(), revocation);
        }
        Map<String, Object> out = new TreeMap<>();
        out.put("format", FORMAT);
        out.put("version", version);
        out.put("time", Timestamp.format(time));
        out.put("roots", rootsJson);
        out.put("publishing", publishingJson);
        out.put("revoked", revokedJson);
        out.put("rootChanges", new ArrayList<Object>(rootChanges));
        return out;
    }

    /** The bytes that are published and signed: RFC 8785 canonical JSON. */
    byte[] bytes() {
        return Json.canonical(json());
    }

    private static final Wire.Kind WIRE = Wire.Kind.object(
        "format", Wire.Kind.STRING, "version", Wire.Kind.integer(1), "time", Wire.Kind.STRING,
        "roots", Wire.Kind.object("threshold", Wire.Kind.integer(1), "keys", Wire.Kind.map(Wire.Kind.STRING)),
        "publishing", Wire.Kind.map(Wire.Kind.object(
            "publicKey", Wire.Kind.STRING, "created", Wire.Kind.STRING, "expires", Wire.Kind.STRING)),
        "revoked", Wire.Kind.map(Wire.Kind.object("time", Wire.Kind.STRING, "reason", Wire.Kind.STRING)),
        "rootChanges", Wire.Kind.array(Wire.Kind.integer(1)));

    /** Reads a key list, refusing one no device may trust ({@link #problem()}); the message starts with source. */
    static KeyList parse(byte[] bytes, String source) throws DocumentException {
        Map<String, Object> o = Wire.document(bytes, source, FORMAT, WIRE, "keys");
        Long version = Json.integer(o.get("version"));
        String timeText = Json.string(o.get("time"));
        Long time = timeText == null ? null : Timestamp.parse(timeText);
        Map<String, Object> rootsObject = Json.object(o.get("roots"));
        Long threshold = rootsObject == null ? null : Json.integer(rootsObject.get("threshold"));
        Map<String, Object> rootKeys = rootsObject == null ? null : Json.object(rootsObject.get("keys"));
        Map<String, Object> publishingValues = Json.object(o.get("publishing"));
        Map<String, Object> revokedValues = Json.object(o.get("revoked"));
        List<Object> changeValues = Json.array(o.get("rootChanges"));
        if (version == null || time == null || threshold == null || rootKeys == null || publishingValues == null
            || revokedValues == null || changeValues == null) {
            throw DocumentException.in(source,
                "a key list needs version, time, roots (threshold, keys), publishing, revoked and rootChanges");
        }
        List<Long> changes = new ArrayList<>();
        for (Object change : changeValues) {
            Long n = Json.integer(change);
            if (n != null) changes.add(n);
        }
        if (rootKeys.size() + publishingValues.size() + revokedValues.size() > MAXIMUM_KEYS
            || rootKeys.size() > MAXIMUM_ROOTS) {
            throw DocumentException.in(source,
                "lists more keys than a device reads (" + MAXIMUM_ROOTS + " roots, " + MAXIMUM_KEYS + " keys in all)");
        }
        if (changes.size() > MAXIMUM_ROOT_CHANGES) {
            throw DocumentException.in(source,
                "lists " + changes.size() + " root changes; a device walks at most " + MAXIMUM_ROOT_CHANGES);
        }
        List<Ed25519.PublicKey> roots = new ArrayList<>();
        for (Map.Entry<String, Object> e : new TreeMap<>(rootKeys).entrySet()) {
            roots.add(key(source, e.getKey(), Json.string(e.getValue()), "roots.keys." + e.getKey()));
        }
        Map<String, PublishingKey> publishing = new TreeMap<>();
        for (Map.Entry<String, Object> e : new TreeMap<>(publishingValues).entrySet()) {
            String id = e.getKey();
            Map<String, Object> p = orEmpty(Json.object(e.getValue()));
            long created = timestamp(source, Json.string(p.get("created")), "publishing." + id + ".created");
            long expires = timestamp(source, Json.string(p.get("expires")), "publishing." + id + ".expires");
            Ed25519.PublicKey publicKey =
                key(source, id, Json.string(p.get("publicKey")), "publishing." + id + ".publicKey");
            publishing.put(id, new PublishingKey(publicKey, created, expires));
        }
        Map<String, Revocation> revoked = new TreeMap<>();
        for (Map.Entry<String, Object> e : new TreeMap<>(revokedValues).entrySet()) {
            String id = e.getKey();
            if (!isKeyId(id)) throw DocumentException.in(source, "revoked lists \"" + id + "\", which is not a key id");
            Map<String, Object> r = orEmpty(Json.object(e.getValue()));
            long revokedAt = timestamp(source, Json.string(r.get("time")), "revoked." + id + ".time");
            String reason = Json.string(r.get("reason"));
            revoked.put(id, new Revocation(revokedAt, reason == null ? "" : reason));
        }
        KeyList list = new KeyList(version, time, new Roots(roots, threshold), publishing, revoked, changes);
        String problem = list.problem();
        if (problem != null) throw DocumentException.in(source, problem);
        return list;
    }

    private static Map<String, Object> orEmpty(Map<String, Object> object) {
        return object == null ? Collections.<String, Object>emptyMap() : object;
    }

    /** A key written exactly as a key list writes it ({@code ed25519:BASE64}), listed under its own id. */
    private static Ed25519.PublicKey key(String source, String id, String text, String path) throws DocumentException {
        Ed25519.PublicKey key = text == null ? null : Ed25519.PublicKey.parse(text);
        if (key == null || !text.equals(key.text())) {
            throw DocumentException.in(source, path + " is not an Ed25519 public key written ed25519:BASE64");
        }
        if (!key.id().equals(id)) {
            throw DocumentException.in(source, path + " is listed as " + id + ", but its id is " + key.id());
        }
        return key;
    }

    private static long timestamp(String source, String text, String path) throws DocumentException {
        Long seconds = text == null ? null : Timestamp.parse(text);
        if (seconds == null) throw DocumentException.in(source, path + " is not an ISO 8601 time");
        return seconds;
    }

    /**
     * What makes a list one no device may trust, or null: each key has one role, a revoked key is neither root nor
     * publishing, the threshold can be met, the root changes are in order.
     */
    String problem() {
        if (roots.keys.isEmpty()) return "lists no root key";
        if (roots.threshold < 1 || roots.threshold > roots.keys.size()) {
            return "needs " + roots.threshold + " root signature(s) but lists " + roots.keys.size() + " root key(s)";
        }
        for (String id : publishing.keySet()) {
            if (roots.keys.containsKey(id)) {
                return "key " + id + " is both a root and a publishing key; a key has one role";
            }
        }
        for (String id : revoked.keySet()) {
            if (roots.keys.containsKey(id) || publishing.containsKey(id)) {
                return "key " + id + " is revoked and still listed as a "
                    + (roots.keys.containsKey(id) ? "root" : "publishing") + " key";
            }
        }
        for (Map.Entry<String, PublishingKey> e : publishing.entrySet()) {
            if (e.getValue().expires < e.getValue().created) {
                return "publishing key " + e.getKey() + " expires before it was created";
            }
        }
        boolean ordered = !rootChanges.isEmpty() && rootChanges.get(0) == 1
            && rootChanges.get(rootChanges.size() - 1) <= version;
        for (int i = 1; ordered && i < rootChanges.size(); i++) ordered = rootChanges.get(i - 1) < rootChanges.get(i);
        if (!ordered) return "rootChanges must start at 1, grow, and not pass the version (" + version + ")";
        return null;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof KeyList)) return false;
        KeyList that = (KeyList) other;
        return version == that.version && time == that.time && roots.equals(that.roots)
            && publishing.equals(that.publishing) && revoked.equals(that.revoked)
            && rootChanges.equals(that.rootChanges);
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, time, roots, publishing, revoked, rootChanges);
    }
}
