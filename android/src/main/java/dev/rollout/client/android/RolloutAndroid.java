package dev.rollout.client.android;

import android.content.Context;
import android.content.pm.PackageManager;
import android.content.res.Configuration;
import android.os.Handler;
import android.os.LocaleList;
import android.os.Looper;
import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import dev.rollout.client.BundledStrings;
import dev.rollout.client.RolloutClient;
import dev.rollout.client.Trust;
import java.io.File;
import java.net.URI;
import java.util.IllformedLocaleException;
import java.util.Locale;
import java.util.concurrent.Executor;

/**
 * A {@link RolloutClient} for an Android app, from its {@link Context} (docs/android.md): the
 * cache in {@code getNoBackupFilesDir()/rollout}, the app version from the package's
 * {@code versionName}, the locale and region from the first locale of the configuration. Make one
 * client per process, on first use (an activity's start, or {@link RolloutRefreshWorker} when
 * WorkManager started the process, with {@code countsLaunch(false)}), and keep it for the life of
 * the process (docs/android.md, "Crash loops and background starts").
 */
public final class RolloutAndroid {
    private RolloutAndroid() {}

    /** A client on a key list signed by {@code trust}'s root keys. Never fails and never touches the network. */
    @NonNull
    public static RolloutClient create(@NonNull Context context, @NonNull BundledStrings bundled,
            @NonNull URI manifestUrl, @NonNull Trust trust, @Nullable RolloutClient.Options options) {
        return create(Device.of(context), bundled, manifestUrl, trust, options);
    }

    /** A client that pins one publishing key ({@code ed25519:BASE64}). Never fails and never touches the network. */
    @NonNull
    public static RolloutClient create(@NonNull Context context, @NonNull BundledStrings bundled,
            @NonNull URI manifestUrl, @NonNull String publicKey, @Nullable RolloutClient.Options options) {
        return create(Device.of(context), bundled, manifestUrl, publicKey, options);
    }

    static RolloutClient create(Device device, BundledStrings bundled, URI manifestUrl, Trust trust,
            RolloutClient.Options options) {
        return new RolloutClient(bundled, device.cacheDirectory, manifestUrl, trust, device.appVersion, device.region,
                device.locale, options);
    }

    static RolloutClient create(Device device, BundledStrings bundled, URI manifestUrl, String publicKey,
            RolloutClient.Options options) {
        return new RolloutClient(bundled, device.cacheDirectory, manifestUrl, publicKey, device.appVersion,
                device.region, device.locale, options);
    }

    /**
     * {@code getNoBackupFilesDir()/rollout}: private to the app, kept until it is uninstalled (not
     * cleared like the cache directory when storage runs low, which would forget the replay
     * protection and the failed list), and left out of Auto Backup, so that a restore on another
     * phone never brings back an old state.json.
     */
    @NonNull
    public static File cacheDirectory(@NonNull Context context) {
        return new File(context.getNoBackupFilesDir(), "rollout");
    }

    /**
     * The app's {@code versionName} ({@code 4.8.1}), as packs' minimum app versions and plans'
     * version ranges name it; empty when the package has none, which matches no pack: the device
     * keeps its bundled strings.
     */
    @NonNull
    public static String appVersion(@NonNull Context context) {
        try {
            String name = context.getPackageManager().getPackageInfo(context.getPackageName(), 0).versionName;
            return name == null ? "" : name;
        } catch (PackageManager.NameNotFoundException notInstalled) {
            return "";
        }
    }

    /**
     * The first locale of the configuration as a BCP 47 tag ({@code tr-TR}, {@code zh-Hant-TW},
     * {@code he} for Java's {@code iw}), without the Unicode extensions Android 14's regional
     * preferences add ({@code en-US-u-mu-celsius}): they name units and calendars, not a language.
     */
    @NonNull
    public static String locale(@NonNull Context context) {
        return localeTag(primaryLocale(context));
    }

    /** The region of the configuration's first locale ({@code TR}), or empty when it names none. */
    @NonNull
    public static String region(@NonNull Context context) {
        return primaryLocale(context).getCountry();
    }

    /**
     * An executor that runs on the app's main thread, for {@link RolloutClient#addChangeListener}
     * when the listener touches views or Compose state. API 28's {@code Context.getMainExecutor()}
     * does the same; this one works from API 26.
     */
    @NonNull
    public static Executor mainThread() {
        Handler handler = new Handler(Looper.getMainLooper());
        return handler::post;
    }

    private static Locale primaryLocale(Context context) {
        Configuration configuration = context.getResources().getConfiguration();
        LocaleList locales = configuration.getLocales();
        return locales.isEmpty() ? Locale.ROOT : locales.get(0);
    }

    /** {@code locale} as the client takes it: language, script, region and variant, no extensions. */
    static String localeTag(Locale locale) {
        Locale plain;
        try {
            plain = new Locale.Builder().setLocale(locale).clearExtensions().build();
        } catch (IllformedLocaleException legacy) {
            // ja_JP_JP and th_TH_TH (old calendar spellings) have variants BCP 47 cannot write.
            plain = new Locale(locale.getLanguage(), locale.getCountry());
        }
        return plain.toLanguageTag();
    }

    /** What a client needs to know about the device, read from a Context once. */
    static final class Device {
        final File cacheDirectory;
        final String appVersion;
        final String region;
        final String locale;

        Device(File cacheDirectory, String appVersion, Locale locale) {
            this.cacheDirectory = cacheDirectory;
            this.appVersion = appVersion;
            this.region = locale.getCountry();
            this.locale = localeTag(locale);
        }

        static Device of(Context context) {
            return new Device(cacheDirectory(context), appVersion(context), primaryLocale(context));
        }
    }
}
