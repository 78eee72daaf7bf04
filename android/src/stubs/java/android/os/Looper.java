package android.os;

/** Stand-in for android.os.Looper (API 1): see ../../README.md. */
public final class Looper {
    /** API 1. */
    public static Looper getMainLooper() {
        throw new RuntimeException("Stub!");
    }
}
