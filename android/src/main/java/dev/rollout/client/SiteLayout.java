package dev.rollout.client;

/** Where things live in a published site (docs/manifest.md), relative to the directory of index.json. */
final class SiteLayout {
    static final String INDEX = "index.json";
    /** The newest key list, signed by the root keys. */
    static final String KEYS = "keys.json";

    private SiteLayout() {}

    static String manifest(String locale) {
        return "manifests/" + locale + ".json";
    }

    /** Packs live under paths that include their digest: the bytes at a path never change. */
    static String pack(PackId id, String sha256) {
        String prefix = sha256.substring(0, Math.min(16, sha256.length()));
        return "packs/" + id.locale() + "/" + id.contentVersion() + "." + prefix + ".json";
    }

    static String signature(String path) {
        return path + ".sig";
    }

    /** The signatures that name their keys (docs/keys.md): what a device on a key list reads. */
    static String signatures(String path) {
        return path + ".sigs";
    }

    /** The key list of a version at which the root keys changed, kept for devices that trust older roots. */
    static String keys(long version) {
        return "keys/" + version + ".json";
    }

    /**
     * The one pack URL a device accepts for a manifest entry: exactly the path {@link #pack} names, for a canonical
     * locale and a lowercase hex SHA-256. Anything else (absolute, {@code ..}, another host, another digest) is
     * refused, so a signed manifest can only point inside the site and at the bytes it vouches for (docs/manifest.md,
     * "Pack URLs").
     */
    static boolean isSafePackUrl(String url, PackId id, String sha256) {
        if (!Wire.isSha256Hex(sha256) || id.contentVersion() < 1 || LocaleTags.tryParse(id.locale()) == null) {
            return false;
        }
        return url.equals(pack(id, sha256));
    }
}
