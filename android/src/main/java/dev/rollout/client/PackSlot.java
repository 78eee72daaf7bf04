package dev.rollout.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A pack as the device stores it: the signed manifest that listed it, its signature and the pack's
 * bytes, in one file so that one rename replaces all three (the Swift client's format):
 *
 * <pre>
 * rollout-slot/1 &lt;manifest bytes&gt; &lt;signature bytes&gt; &lt;pack bytes&gt;\n
 * &lt;manifest&gt;&lt;signature&gt;&lt;pack&gt;
 * </pre>
 */
final class PackSlot {
    static final String MAGIC = "rollout-slot/1";

    final byte[] manifest;
    final byte[] signature;
    final byte[] pack;

    PackSlot(byte[] manifest, byte[] signature, byte[] pack) {
        this.manifest = manifest;
        this.signature = signature;
        this.pack = pack;
    }

    byte[] bytes() {
        byte[] header = (MAGIC + " " + manifest.length + " " + signature.length + " " + pack.length + "\n")
                .getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[header.length + manifest.length + signature.length + pack.length];
        System.arraycopy(header, 0, out, 0, header.length);
        System.arraycopy(manifest, 0, out, header.length, manifest.length);
        System.arraycopy(signature, 0, out, header.length + manifest.length, signature.length);
        System.arraycopy(pack, 0, out, header.length + manifest.length + signature.length, pack.length);
        return out;
    }

    /** The slot in {@code bytes}, or null when they are not one whole slot. */
    static PackSlot parse(byte[] bytes) {
        if (bytes == null) return null;
        int newline = -1;
        for (int i = 0; i < Math.min(80, bytes.length); i++) {
            if (bytes[i] == '\n') {
                newline = i;
                break;
            }
        }
        if (newline < 0) return null;
        String[] header = new String(bytes, 0, newline, StandardCharsets.UTF_8).split(" ", -1);
        if (header.length != 4 || !header[0].equals(MAGIC)) return null;
        long m = number(header[1]);
        long s = number(header[2]);
        long p = number(header[3]);
        if (m < 0 || s < 0 || p < 0 || bytes.length != newline + 1 + m + s + p) return null;
        int start = newline + 1;
        return new PackSlot(
                Arrays.copyOfRange(bytes, start, start + (int) m),
                Arrays.copyOfRange(bytes, start + (int) m, start + (int) (m + s)),
                Arrays.copyOfRange(bytes, start + (int) (m + s), bytes.length));
    }

    /** A decimal count, or -1. */
    private static long number(String text) {
        if (text.isEmpty() || text.length() > 12) return -1;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') return -1;
        }
        return Long.parseLong(text);
    }
}
