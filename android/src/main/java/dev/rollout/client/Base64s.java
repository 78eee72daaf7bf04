package dev.rollout.client;

import java.util.Base64;

/**
 * RFC 4648 base64 with padding, strict on decode (Base64 in RolloutCrypto/Ed25519.swift): one text means one byte
 * string, so a signature or key cannot be re-encoded into a second accepted spelling.
 */
final class Base64s {
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    private Base64s() {}

    /** Standard base64 with '=' padding. */
    static String encode(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /**
     * The bytes {@code text} encodes, or null unless it is canonical standard base64: the standard alphabet, '='
     * padding to a multiple of four, no whitespace, and zero in the bits the padding discards.
     */
    static byte[] decodeCanonical(String text) {
        int length = text.length();
        if (length % 4 != 0) return null;
        int[] values = new int[length];
        for (int position = 0; position < length; position++) {
            char c = text.charAt(position);
            if (c == '=') {
                if (position < length - 2) return null;
                for (int k = position; k < length; k++) {
                    if (text.charAt(k) != '=') return null;
                }
                values[position] = 0;
                continue;
            }
            int value = ALPHABET.indexOf(c);
            if (value < 0) return null;
            values[position] = value;
        }
        int padding = 0;
        if (length >= 1 && text.charAt(length - 1) == '=') padding++;
        if (length >= 2 && text.charAt(length - 2) == '=') padding++;
        if (padding == 1 && (values[length - 2] & 0x03) != 0) return null;
        if (padding == 2 && (values[length - 3] & 0x0F) != 0) return null;
        byte[] out = new byte[length / 4 * 3 - padding];
        int o = 0;
        for (int group = 0; group < length; group += 4) {
            int bits = values[group] << 18 | values[group + 1] << 12 | values[group + 2] << 6 | values[group + 3];
            for (int shift = 16; shift >= 0 && o < out.length; shift -= 8) {
                out[o++] = (byte) (bits >> shift);
            }
        }
        return out;
    }
}
