package dev.rollout.client.android;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rollout.client.BundledStrings;
import dev.rollout.client.RolloutClient;
import java.io.File;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a client made from a Context knows about the device. */
class RolloutAndroidTest {
    @Test
    void theCacheIsInTheNoBackupFolder(@TempDir Path scratch) {
        FakeContext context = new FakeContext(scratch.toFile(), "4.8.1");
        assertEquals(new File(scratch.toFile(), "rollout"), RolloutAndroid.cacheDirectory(context));
    }

    @Test
    void theAppVersionIsTheVersionNameOrNothing(@TempDir Path scratch) {
        assertEquals("4.8.1", RolloutAndroid.appVersion(new FakeContext(scratch.toFile(), "4.8.1")));
        assertEquals("", RolloutAndroid.appVersion(new FakeContext(scratch.toFile(), "")),
                "no android:versionName: matches no pack, the device keeps its bundled strings");
        assertEquals("", RolloutAndroid.appVersion(new FakeContext(scratch.toFile(), null)));
    }

    @Test
    void theLocaleIsATagTheClientReads() {
        assertEquals("tr-TR", RolloutAndroid.localeTag(new Locale("tr", "TR")));
        assertEquals("he-IL", RolloutAndroid.localeTag(new Locale("iw", "IL")), "Java's iw is he");
        assertEquals("id", RolloutAndroid.localeTag(new Locale("in")));
        assertEquals("zh-Hant-TW", RolloutAndroid.localeTag(Locale.forLanguageTag("zh-Hant-TW")));
        assertEquals("sr-Latn-RS", RolloutAndroid.localeTag(Locale.forLanguageTag("sr-Latn-RS")));
        assertEquals("en-US", RolloutAndroid.localeTag(Locale.forLanguageTag("en-US-u-mu-celsius-fw-mon")),
                "Android 14's regional preferences are not a language");
        assertEquals("ja-JP", RolloutAndroid.localeTag(new Locale("ja", "JP", "JP")));
        assertEquals("und", RolloutAndroid.localeTag(Locale.ROOT));
    }

    @Test
    void aClientFromTheDeviceStartsOnItsBundledStringsInItsLocale(@TempDir Path scratch) {
        FakeContext context = new FakeContext(scratch.toFile(), "4.8.1");
        RolloutAndroid.Device device = new RolloutAndroid.Device(RolloutAndroid.cacheDirectory(context),
                RolloutAndroid.appVersion(context), new Locale("tr", "TR"));
        assertEquals("TR", device.region);
        assertEquals("tr-TR", device.locale);
        BundledStrings bundled = new BundledStrings(Map.of("tr", Map.of("home_title", "Hoş geldin"),
                "en", Map.of("home_title", "Welcome")));
        RolloutClient client = RolloutAndroid.create(device, bundled,
                scratch.resolve("site/index.json").toUri(), "ed25519:" + "A".repeat(43) + "=",
                RolloutClient.Options.builder().defaultLocale("en").build());
        assertEquals("tr-TR", client.currentLocale());
        assertEquals("Hoş geldin", client.string("home_title"), "values-tr for a device in tr-TR");
        assertTrue(new File(scratch.toFile(), "rollout").isDirectory(), "the cache is made at start");
    }
}
