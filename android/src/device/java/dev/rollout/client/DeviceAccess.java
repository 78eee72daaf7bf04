package dev.rollout.client;

/**
 * The library's package-private readers that scripts/android-device needs to parse its flags exactly as the client
 * parses the same texts (a time, an app version, a key). It lives with the device program,
 * never in the library jar: apps get no new public API from it.
 */
public final class DeviceAccess {
    private DeviceAccess() {}

    /** Seconds since the epoch for an ISO 8601 time as Timestamp.swift reads it, or null. */
    public static Long parseTimestamp(String text) {
        return Timestamp.parse(text);
    }

    public static String formatTimestamp(long seconds) {
        return Timestamp.format(seconds);
    }

    /** Whether {@code text} is an app version the client can compare (digits and dots). */
    public static boolean isAppVersion(String text) {
        return AppVersion.parse(text) != null;
    }

    /** The key's id for {@code ed25519:BASE64}, or null when it is not an Ed25519 public key. */
    public static String publicKeyId(String text) {
        Ed25519.PublicKey key = Ed25519.PublicKey.parse(text);
        return key == null ? null : key.id();
    }
}
