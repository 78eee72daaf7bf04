package dev.rollout.client.android;

import android.content.Context;
import android.content.res.Configuration;
import android.content.res.Resources;
import androidx.annotation.NonNull;
import dev.rollout.client.BundledStrings;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The app's bundled strings read through {@link Resources}, as the app shows them: the compiled
 * {@code res/values*} of the APK, escapes already read by aapt2, the translation Android picks for
 * each locale. The keys are the resource names packs use ({@code rollout pack import} names a key
 * after its {@code <string name>}).
 *
 * <p>Android cannot list an app's strings, so the app names them: with their ids
 * ({@code R.string.home_title}: compile-time checked, no lookup), or by name through
 * {@link #byName}, which calls {@code Resources.getIdentifier} once per name at start-up (a search
 * of the resource table by name, which Android's documentation discourages on hot paths; a few
 * hundred names cost milliseconds once). Reading from a copy of {@code res/} instead:
 * {@link BundledStrings#fromValuesDirectory}.
 */
public final class ResourceStrings {
    private enum Kind {
        STRING,
        LITERAL,
        PLURAL
    }

    private static final class Entry {
        final String key;
        final int id;
        final Kind kind;

        Entry(String key, int id, Kind kind) {
            this.key = key;
            this.id = id;
            this.kind = kind;
        }
    }

    private final List<Entry> entries;

    private ResourceStrings(List<Entry> entries) {
        this.entries = Collections.unmodifiableList(new ArrayList<>(entries));
    }

    @NonNull
    public static Builder builder() {
        return new Builder();
    }

    /** The keys and their resource ids, in the order given; build once and keep. */
    public static final class Builder {
        private final List<Entry> entries = new ArrayList<>();

        Builder() {}

        /** A {@code <string>} that is a format string ({@code getString(id, args...)}): {@code R.string.x}. */
        @NonNull
        public Builder string(@NonNull String key, int id) {
            entries.add(new Entry(Objects.requireNonNull(key, "key"), id, Kind.STRING));
            return this;
        }

        /** A {@code formatted="false"} string: every {@code %} is text (Resources does not say which these are). */
        @NonNull
        public Builder literal(@NonNull String key, int id) {
            entries.add(new Entry(Objects.requireNonNull(key, "key"), id, Kind.LITERAL));
            return this;
        }

        /** A {@code <plurals>}: {@code R.plurals.x}. */
        @NonNull
        public Builder plural(@NonNull String key, int id) {
            entries.add(new Entry(Objects.requireNonNull(key, "key"), id, Kind.PLURAL));
            return this;
        }

        @NonNull
        public ResourceStrings build() {
            return new ResourceStrings(entries);
        }
    }

    /**
     * The strings and plurals named {@code strings} and {@code plurals} in {@code packageName}
     * (the app's: {@code context.getPackageName()}), looked up by name once; a name the app does
     * not have is listed in the problems of {@link #read}.
     */
    @NonNull
    public static ResourceStrings byName(@NonNull Resources resources, @NonNull String packageName,
            @NonNull Collection<String> strings, @NonNull Collection<String> plurals) {
        Builder builder = new Builder();
        for (String name : strings) builder.string(name, resources.getIdentifier(name, "string", packageName));
        for (String name : plurals) builder.plural(name, resources.getIdentifier(name, "plurals", packageName));
        return builder.build();
    }

    /**
     * The strings for the device's locale and for {@code defaultLocale} (the language of the app's
     * {@code values/} folder, the client's {@code Options.defaultLocale}): what a client made at
     * launch needs. The client's bundled strings are read once: an app that lets the user pick
     * another language while it runs reads those languages too (the overload with a list of
     * locales) and then calls {@code setLocale} (docs/android.md, "What the app calls, and when").
     */
    @NonNull
    public BundledStrings read(@NonNull Context context, @NonNull String defaultLocale) {
        List<String> locales = new ArrayList<>();
        locales.add(RolloutAndroid.locale(context));
        return read(context, defaultLocale, locales);
    }

    /**
     * The strings for each of {@code locales} and {@code defaultLocale}, each read through a
     * configuration context of that locale ({@code createConfigurationContext}), so each is the
     * translation Android shows a device in that locale.
     *
     * <p>Android answers a locale it has no translation for with the text of {@code values/}.
     * Labelled as that locale, such a text would hide the pack of a later locale of the device's
     * chain (a Turkish pack for a key the app ships in English only), so a text equal to the
     * default locale's is left out of every other locale's table; lookup then reaches the default
     * locale's text last, as it should. A translation that really is the same ("OK") is left out
     * too, and shows the same.
     */
    @NonNull
    public BundledStrings read(@NonNull Context context, @NonNull String defaultLocale, @NonNull List<String> locales) {
        return read(locale -> {
            Configuration configuration = new Configuration(context.getResources().getConfiguration());
            configuration.setLocale(locale);
            return context.createConfigurationContext(configuration).getResources();
        }, defaultLocale, locales);
    }

    /** {@link #read(Context, String, List)} with the per-locale Resources given (tests give fakes). */
    BundledStrings read(Function<Locale, Resources> resourcesFor, String defaultLocale, List<String> locales) {
        BundledStrings.Builder builder = BundledStrings.builder();
        Resources defaults = resourcesFor.apply(Locale.forLanguageTag(defaultLocale));
        add(defaults, defaultLocale, builder, null);
        Set<String> others = new LinkedHashSet<>(locales);
        others.remove(defaultLocale);
        for (String locale : others) add(resourcesFor.apply(Locale.forLanguageTag(locale)), locale, builder, defaults);
        return builder.build();
    }

    /**
     * Adds {@code locale}'s texts to {@code builder}, except those {@code defaults} (the default
     * locale's Resources; null when reading that locale) gives too: for a plural, the same form for
     * every number asked.
     */
    private void add(Resources resources, String locale, BundledStrings.Builder builder, Resources defaults) {
        for (Entry entry : entries) {
            String file = (entry.kind == Kind.PLURAL ? "R.plurals." : "R.string.") + entry.key + " (" + locale + ")";
            if (entry.id == 0) {
                if (defaults == null) builder.problem(file, entry.key, "the app has no resource of this name");
                continue;
            }
            try {
                if (entry.kind == Kind.PLURAL) {
                    boolean[] asDefault = {defaults != null};
                    builder.androidQuantityText(locale, entry.key, n -> {
                        CharSequence text = resources.getQuantityText(entry.id, n);
                        if (asDefault[0]) {
                            asDefault[0] = text.toString().equals(defaults.getQuantityText(entry.id, n).toString());
                        }
                        return text;
                    }, file);
                    if (asDefault[0]) builder.remove(locale, entry.key);
                    continue;
                }
                String text = resources.getString(entry.id);
                if (defaults != null && text.equals(defaults.getString(entry.id))) continue;
                if (entry.kind == Kind.LITERAL) {
                    builder.androidLiteral(locale, entry.key, text, file);
                } else {
                    builder.androidString(locale, entry.key, text, file);
                }
            } catch (Resources.NotFoundException missing) {
                builder.problem(file, entry.key, "no such resource in this app (id 0x" + Integer.toHexString(entry.id)
                        + ", from another build?)");
            }
        }
    }
}
