package android.content.res;

import android.os.LocaleList;
import java.util.Locale;

/** Stand-in for android.content.res.Configuration (API 1; Parcelable and Comparable there): see ../../../README.md. */
public final class Configuration {
    /** API 1. */
    public Configuration(Configuration o) {}

    /** API 17. */
    public void setLocale(Locale loc) {
        throw new RuntimeException("Stub!");
    }

    /** API 24. */
    public LocaleList getLocales() {
        throw new RuntimeException("Stub!");
    }
}
