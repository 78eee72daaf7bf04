package dev.rollout.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Which percentile bucket a device is in for one rollout (docs/targeting.md, "Bucketing"):
 *
 * <pre>
 *     digest = SHA-256( UTF-8(salt) || 0x00 || UTF-8(installId) )
 *     bucket = (first 8 bytes of digest, big-endian unsigned) mod 10000
 * </pre>
 *
 * A device is inside a rule at B basis points when bucket &lt; B. The same install id and salt always give the same
 * bucket, so growing a share only adds devices; a new salt draws an independent sample.
 */
final class Bucketing {
    static final int BUCKETS = 10_000;

    private Bucketing() {}

    static int bucket(String installId, String salt) {
        MessageDigest sha = Sha256.newDigest();
        sha.update(salt.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(installId.getBytes(StandardCharsets.UTF_8));
        byte[] digest = sha.digest();
        long value = 0;
        for (int i = 0; i < 8; i++) value = value << 8 | (digest[i] & 0xFF);
        // The 64 bits are unsigned: a signed remainder would put half the devices in negative buckets.
        return (int) Long.remainderUnsigned(value, BUCKETS);
    }
}
