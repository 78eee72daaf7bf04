package android.util;

/** Stand-in for android.util.AndroidException (API 1): see ../../README.md. */
public class AndroidException extends Exception {
    public AndroidException() {}

    public AndroidException(String name) {}
}
