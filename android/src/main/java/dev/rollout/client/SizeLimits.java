package dev.rollout.client;

/**
 * The most bytes a device reads of each file of a site (the kit's limits.json, the same in both
 * clients): a site, or whatever stands between it and the device, cannot make a device hold more.
 * The numbers of the one table, Swift's SiteSizeLimits, which also bounds {@code rollout
 * verify-site}; LimitsConformanceTest checks them against the kit. {@link HttpTransport} stops at
 * one byte past a limit.
 */
public final class SizeLimits {
    /** keys.json and keys/&lt;n&gt;.json. */
    public static final long KEY_LIST = 262_144;
    /** *.sig and *.sigs. */
    public static final long SIGNATURE = 16_384;
    public static final long INDEX = 1_048_576;
    /** manifests/&lt;locale&gt;.json. */
    public static final long MANIFEST = 1_048_576;
    /** A pack is read up to the size its manifest states, and never over this. */
    public static final long PACK = 16_777_216;

    private SizeLimits() {}

    /** The one wording of a file over its limit (the Swift client's and verify-site's). */
    static String tooLarge(Object file, long limit) {
        return file + ": larger than " + limit + " bytes, the most a device reads of this file";
    }

    /** A pack's limit: the size its manifest entry states, capped at {@link #PACK}. */
    static long pack(long stated) {
        return Math.max(0, Math.min(stated, PACK));
    }
}
