package dev.rollout.client;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 digests and their lowercase hex, as manifests write them. */
final class Sha256 {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Sha256() {}

    /** The 32-byte SHA-256 digest of {@code bytes}. */
    static byte[] digest(byte[] bytes) {
        return newDigest().digest(bytes);
    }

    /** A fresh digest, for hashing a file as it streams in. */
    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            // Every Java and Android runtime must provide SHA-256 (MessageDigest's documented guarantee).
            throw new IllegalStateException("SHA-256 is missing from this runtime", e);
        }
    }

    /** Lowercase hex of any bytes (a digest, usually). */
    static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0x0F];
            out[2 * i + 1] = HEX[bytes[i] & 0x0F];
        }
        return new String(out);
    }
}
