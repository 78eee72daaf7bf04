package dev.rollout.client;

/** A site file as fetched: its path in the site, its bytes and the bytes of its {@code .sigs}. */
final class SignedFile {
    final String path;
    final byte[] bytes;
    final byte[] signatures;

    SignedFile(String path, byte[] bytes, byte[] signatures) {
        this.path = path;
        this.bytes = bytes;
        this.signatures = signatures;
    }
}
