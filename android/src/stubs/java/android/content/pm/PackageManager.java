package android.content.pm;

import android.util.AndroidException;

/** Stand-in for android.content.pm.PackageManager (API 1): see ../../../README.md. */
public abstract class PackageManager {
    public PackageManager() {}

    /** API 1 (API 33 adds an overload taking PackageInfoFlags; this one stays). */
    public abstract PackageInfo getPackageInfo(String packageName, int flags) throws NameNotFoundException;

    /** API 1. */
    public static class NameNotFoundException extends AndroidException {
        public NameNotFoundException() {}

        public NameNotFoundException(String name) {}
    }
}
