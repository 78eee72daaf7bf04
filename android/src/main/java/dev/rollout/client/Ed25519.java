package dev.rollout.client;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Ed25519 signature verification (RFC 8032), in Java because Android has no Ed25519 before API 33.
 *
 * <p>It decides exactly as OpenSSL 3 does, which the Swift client verifies with (RolloutCrypto/Ed25519.swift): S must
 * be below the group order L; the public key is decoded as OpenSSL decodes it (see {@link
 * Edwards25519#decodeLikeOpenSsl}); k = SHA-512(R || A || M) is reduced mod L; and the signature holds when the
 * encoding of [S]B - [k]A equals the 32 bytes R as written (cofactorless, and R is never decoded, so a non-canonical
 * R never matches).
 */
final class Ed25519 {
    static final int PUBLIC_KEY_BYTES = 32;
    static final int SIGNATURE_BYTES = 64;
    /** How public keys are written for people and apps: {@code ed25519:} and the base64 of the 32 raw bytes. */
    static final String PUBLIC_KEY_PREFIX = "ed25519:";

    private Ed25519() {}

    /** Whether {@code signature} is a valid signature by {@code publicKey} over {@code message}. */
    static boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey.length != PUBLIC_KEY_BYTES || signature.length != SIGNATURE_BYTES) return false;
        byte[] r = Arrays.copyOfRange(signature, 0, 32);
        BigInteger s = Edwards25519.fromLittleEndian(Arrays.copyOfRange(signature, 32, 64));
        if (s.compareTo(Edwards25519.L) >= 0) return false;
        Edwards25519.Point a = Edwards25519.decodeLikeOpenSsl(publicKey);
        if (a == null) return false;
        MessageDigest sha512 = sha512();
        sha512.update(r);
        sha512.update(publicKey);
        sha512.update(message);
        BigInteger k = Edwards25519.fromLittleEndian(sha512.digest()).mod(Edwards25519.L);
        Edwards25519.Point check = Edwards25519.doubleScalarMultiplyBase(s, k, a.negate());
        return MessageDigest.isEqual(check.encode(), r);
    }

    private static MessageDigest sha512() {
        try {
            return MessageDigest.getInstance("SHA-512");
        } catch (NoSuchAlgorithmException e) {
            // Every Java and Android runtime must provide SHA-512 (MessageDigest's documented guarantee).
            throw new IllegalStateException("SHA-512 is missing from this runtime", e);
        }
    }

    /** An Ed25519 public key: 32 raw bytes, written {@code ed25519:BASE64}. Immutable. */
    static final class PublicKey {
        private final byte[] raw;

        private PublicKey(byte[] raw) {
            this.raw = raw;
        }

        /** The key with these 32 raw bytes, or null when there are not 32. */
        static PublicKey of(byte[] raw) {
            return raw.length == PUBLIC_KEY_BYTES ? new PublicKey(raw.clone()) : null;
        }

        /**
         * The key {@code text} writes, or null: {@code ed25519:BASE64} (or the bare base64, as the Swift client also
         * reads it), whitespace ignored, canonical base64 of exactly 32 bytes.
         */
        static PublicKey parse(String text) {
            String body = text.startsWith(PUBLIC_KEY_PREFIX) ? text.substring(PUBLIC_KEY_PREFIX.length()) : text;
            StringBuilder compact = new StringBuilder(body.length());
            for (int i = 0; i < body.length(); i++) {
                char c = body.charAt(i);
                if (!isUnicodeWhitespace(c)) compact.append(c);
            }
            byte[] raw = Base64s.decodeCanonical(compact.toString());
            return raw == null ? null : of(raw);
        }

        /** Unicode's White_Space property, which Swift's Character.isWhitespace tests (Java's isWhitespace differs). */
        private static boolean isUnicodeWhitespace(char c) {
            return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680
                || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F
                || c == 0x3000;
        }

        /** A copy of the 32 raw bytes. */
        byte[] raw() {
            return raw.clone();
        }

        /** {@code ed25519:} and the base64 of the raw bytes: the one form a key list writes. */
        String text() {
            return PUBLIC_KEY_PREFIX + Base64s.encode(raw);
        }

        /**
         * The key's id: the first 16 hex digits of the SHA-256 of its 32 raw bytes (docs/keys.md, "Key ids").
         * Signatures name it; revocations use it.
         */
        String id() {
            return Sha256.hex(Sha256.digest(raw)).substring(0, 16);
        }

        /** Whether {@code signature} is this key's signature over {@code message}. */
        boolean verify(byte[] signature, byte[] message) {
            return Ed25519.verify(raw, message, signature);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof PublicKey && Arrays.equals(raw, ((PublicKey) other).raw);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(raw);
        }

        @Override
        public String toString() {
            return text();
        }
    }
}
