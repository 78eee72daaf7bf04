package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;

/** {@code tr-TR@18}: a locale and a content version, the immutable name of one pack. */
public final class PackId implements Comparable<PackId> {
    private final String locale;
    private final int contentVersion;

    PackId(String locale, int contentVersion) {
        if (locale == null) throw new NullPointerException("locale");
        this.locale = locale;
        this.contentVersion = contentVersion;
    }

    /**
     * The pack id {@code text} writes, {@code LOCALE@VERSION} with a canonical BCP 47 locale and a version from 1.
     *
     * @throws IllegalArgumentException when it is not a pack id; the message says why
     */
    @NonNull
    public static PackId parse(@NonNull String text) {
        int at = text.indexOf('@');
        String versionText = at < 0 ? "" : text.substring(at + 1);
        boolean digits = !versionText.isEmpty();
        int leadingZeros = 0;
        for (int i = 0; i < versionText.length(); i++) {
            char c = versionText.charAt(i);
            if (c < '0' || c > '9') digits = false;
            if (c == '0' && leadingZeros == i) leadingZeros++;
        }
        String significant = versionText.substring(leadingZeros);
        long version = 0;
        if (digits && !significant.isEmpty() && significant.length() <= 18) version = Long.parseLong(significant);
        // Content versions are int here; no pack above 1,000,000,000 exists (Pack.MAXIMUM_CONTENT_VERSION).
        if (at < 0 || !digits || version < 1 || version > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "\"" + text + "\" is not a pack id; write LOCALE@VERSION, for example tr-TR@18");
        }
        String locale = text.substring(0, at);
        try {
            LocaleTags.parse(locale);
        } catch (LocaleTags.InvalidTagException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not a pack id: " + e.getMessage(), e);
        }
        return new PackId(locale, (int) version);
    }

    /** The pack's locale, a canonical BCP 47 tag such as {@code tr-TR}. */
    @NonNull
    public String locale() {
        return locale;
    }

    /** The pack's content version, from 1. */
    public int contentVersion() {
        return contentVersion;
    }

    /** {@code LOCALE@VERSION}, the form {@link #parse} reads. */
    @NonNull
    @Override
    public String toString() {
        return locale + "@" + contentVersion;
    }

    /** By locale (as Swift orders strings), then by content version. */
    @Override
    public int compareTo(@NonNull PackId other) {
        int byLocale = Graphemes.SWIFT_ORDER.compare(locale, other.locale);
        return byLocale != 0 ? byLocale : Integer.compare(contentVersion, other.contentVersion);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (!(other instanceof PackId)) return false;
        PackId that = (PackId) other;
        return contentVersion == that.contentVersion && locale.equals(that.locale);
    }

    @Override
    public int hashCode() {
        return locale.hashCode() * 31 + contentVersion;
    }
}
