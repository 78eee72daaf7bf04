package dev.rollout.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Detached signatures ({@code .sig} files): the base64 of the 64-byte Ed25519 signature over the file's exact bytes,
 * and one newline (DetachedSignature in RolloutModel/Manifest.swift).
 */
final class DetachedSignature {
    private DetachedSignature() {}

    /** The exact bytes of a {@code .sig} file holding {@code signature}. */
    static byte[] encode(byte[] signature) {
        return (Base64s.encode(signature) + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Whether {@code signatureFile} holds {@code key}'s signature over {@code file}. Only the exact form
     * {@link #encode} writes is accepted: any other byte in the file, even one that decodes to the same signature, is a changed file.
     */
    static boolean verify(byte[] signatureFile, byte[] file, Ed25519.PublicKey key) {
        int length = signatureFile.length;
        if (length == 0 || signatureFile[length - 1] != '\n') return false;
        // Decoded as UTF-8 with replacement, as Swift's String(decoding:) does; anything not ASCII then fails below.
        String text = new String(signatureFile, 0, length - 1, StandardCharsets.UTF_8);
        byte[] signature = Base64s.decodeCanonical(text);
        if (signature == null || !Arrays.equals(encode(signature), signatureFile)) return false;
        return key.verify(signature, file);
    }
}
