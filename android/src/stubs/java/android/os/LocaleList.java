package android.os;

import java.util.Locale;

/** Stand-in for android.os.LocaleList (API 24; Parcelable there): see ../../README.md. */
public final class LocaleList {
    /** API 24. */
    public Locale get(int index) {
        throw new RuntimeException("Stub!");
    }

    /** API 24. */
    public boolean isEmpty() {
        throw new RuntimeException("Stub!");
    }
}
