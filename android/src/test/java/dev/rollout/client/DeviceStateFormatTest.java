package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cache the Swift client wrote reads the same here (Tests/RolloutClientTests/DeviceStateFormatTests.swift):
 * the files below are written byte by byte as the Swift builds write them, not by the code under
 * test, so an app moving between the two clients, or a change to the format, fails here first.
 */
class DeviceStateFormatTest {
    /** state.json of a device on a pinned key, every member written (the Swift test's bytes). */
    static final String STATE =
            "{\n" +
            "  \"blocked\": {\n" +
            "    \"tr-TR\": [\n" +
            "      16\n" +
            "    ]\n" +
            "  },\n" +
            "  \"bundleOnly\": {\n" +
            "    \"tr-TR\": [\n" +
            "      \"legal.*\"\n" +
            "    ]\n" +
            "  },\n" +
            "  \"chains\": {\n" +
            "    \"tr-TR\": [\n" +
            "      \"tr-TR\",\n" +
            "      \"tr\",\n" +
            "      \"en-US\"\n" +
            "    ]\n" +
            "  },\n" +
            "  \"counters\": [\n" +
            "    {\n" +
            "      \"appVersion\": \"4.8.0\",\n" +
            "      \"crashes\": 1,\n" +
            "      \"day\": \"2026-11-20\",\n" +
            "      \"fallbacks\": 3,\n" +
            "      \"lookups\": 40,\n" +
            "      \"pack\": \"tr-TR@17\",\n" +
            "      \"region\": \"TR\",\n" +
            "      \"sessions\": 2\n" +
            "    }\n" +
            "  ],\n" +
            "  \"defaultLocale\": \"en-US\",\n" +
            "  \"failed\": [\n" +
            "    \"tr-TR@15\"\n" +
            "  ],\n" +
            "  \"fallbackChains\": {\n" +
            "    \"tr-TR\": [\n" +
            "      \"tr-TR\",\n" +
            "      \"tr\",\n" +
            "      \"en-US\"\n" +
            "    ]\n" +
            "  },\n" +
            "  \"format\": \"rollout-device/1\",\n" +
            "  \"indexExpires\": \"2026-12-21T09:00:00Z\",\n" +
            "  \"indexSequence\": 3,\n" +
            "  \"killed\": [],\n" +
            "  \"lastRefresh\": 1795165200,\n" +
            "  \"launch\": {\n" +
            "    \"armed\": true,\n" +
            "    \"confirmed\": {\n" +
            "      \"tr-TR\": \"tr-TR@17\"\n" +
            "    },\n" +
            "    \"good\": [\n" +
            "      \"tr-TR@17\"\n" +
            "    ],\n" +
            "    \"rollbacks\": 1,\n" +
            "    \"rolledBack\": [\n" +
            "      \"tr-TR@15\"\n" +
            "    ],\n" +
            "    \"trial\": {}\n" +
            "  },\n" +
            "  \"staged\": [\n" +
            "    \"tr@1\"\n" +
            "  ]\n" +
            "}\n";

    private File directory;
    private String publicKey;

    @BeforeEach
    void writeCache() throws IOException {
        directory = MemorySite.scratch("state-format");
        Map<String, Object> lookup = Fixtures.kit("lookup.json");
        publicKey = MemorySite.text(lookup.get("publicKey"));
        Map<String, Object> site = Json.object(lookup.get("site"));
        write("state.json", STATE.getBytes(StandardCharsets.UTF_8));
        write("install-id", "5F0C2A7E-1111-2222-3333-444455556666".getBytes(StandardCharsets.UTF_8));
        write("packs/tr-TR/active", slot(site, "tr-TR", "packs/tr-TR/17.71738fca6a352ba2.json"));
        write("packs/tr/pending", slot(site, "tr", "packs/tr/1.d490c1670aa67337.json"));
    }

    private static byte[] file(Map<String, Object> site, String path) {
        return Base64.getDecoder().decode(MemorySite.text(site.get(path)));
    }

    /** rollout-slot/1 <manifest bytes> <signature bytes> <pack bytes>\n, then the three. */
    private static byte[] slot(Map<String, Object> site, String locale, String pack) throws IOException {
        byte[] manifest = file(site, "manifests/" + locale + ".json");
        byte[] signature = file(site, "manifests/" + locale + ".json.sig");
        byte[] packBytes = file(site, pack);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(("rollout-slot/1 " + manifest.length + " " + signature.length + " " + packBytes.length + "\n")
                .getBytes(StandardCharsets.UTF_8));
        out.write(manifest);
        out.write(signature);
        out.write(packBytes);
        return out.toByteArray();
    }

    private void write(String name, byte[] bytes) throws IOException {
        File file = new File(directory, name);
        file.getParentFile().mkdirs();
        Files.write(file.toPath(), bytes);
    }

    private RolloutClient client(boolean countsLaunch) {
        return new RolloutClient(new BundledStrings(Collections.singletonMap("en-US", Collections.singletonMap("title", "bundled title"))),
                directory, URI.create("https://cdn.example.com/site/index.json"), publicKey, "4.8.1", "TR", "tr-TR",
                RolloutClient.Options.builder().countsLaunch(countsLaunch)
                        .clock(Clock.fixed(Instant.ofEpochSecond(1_795_251_600L), ZoneOffset.UTC)).build());
    }

    @Test
    void stateWrittenBySwiftReadsBackAndIsWrittenAgainByteForByte() {
        DeviceState state = DeviceState.parse(STATE.getBytes(StandardCharsets.UTF_8));
        assertNotNull(state);
        assertEquals(STATE, new String(state.bytes(), StandardCharsets.UTF_8));
        assertEquals(Collections.singletonList("tr-TR@15"), state.launch.rolledBack);
        assertEquals(Collections.singleton("tr@1"), state.staged);
        assertEquals("date,locale,pack,region,app_version,sessions,crashes\n2026-11-20,tr-TR,tr-TR@17,TR,4.8.0,2,1\n",
                state.counters.csv(MetricKind.CRASH));
    }

    @Test
    void aCacheWrittenBySwiftLoadsWithItsPacksAndMemory() throws IOException {
        RolloutClient device = client(false);
        assertEquals("5F0C2A7E-1111-2222-3333-444455556666", device.installId());
        assertEquals(PackId.parse("tr-TR@17"), device.activePack());
        assertEquals("date,locale,pack,region,app_version,lookups,fallbacks\n2026-11-20,tr-TR,tr-TR@17,TR,4.8.0,40,3\n",
                device.metricsCsv(MetricKind.FALLBACK));
        assertEquals("tr-TR@17 title", device.string("title"));
        assertEquals(Collections.singletonList(PackId.parse("tr@1")), device.pendingPacks());
        Status status = device.status();
        assertEquals(Arrays.asList("tr-TR", "tr", "en-US"), status.chain());
        assertEquals(PackId.parse("tr-TR@17"), status.packs().get("tr-TR").active());
        assertEquals(PackId.parse("tr@1"), status.packs().get("tr").pending());
        assertEquals(Collections.singletonList(PackId.parse("tr-TR@15")), status.failed());
        assertEquals(Collections.singletonMap("tr-TR", Collections.singletonList(16)), status.blocked());
        assertEquals(3, status.indexSequence());
        assertEquals(Instant.ofEpochSecond(1_795_165_200L), status.lastRefresh());
        assertEquals(Instant.ofEpochSecond(1_797_843_600L), status.indexExpires());
        assertFalse(status.isStale());
        assertTrue(status.launch().armed());
        assertEquals(Collections.singletonList(PackId.parse("tr-TR@15")), status.launch().rolledBack());
        assertEquals(1, status.launch().rollbacks());
        // A client that only looks at the cache writes nothing.
        assertArrayEquals(STATE.getBytes(StandardCharsets.UTF_8), Files.readAllBytes(new File(directory, "state.json").toPath()));
    }

    @Test
    void aLaunchOnACacheWrittenBySwiftActivatesWhatItStaged() {
        RolloutClient device = client(true);
        assertEquals(Arrays.asList(PackId.parse("tr@1"), PackId.parse("tr-TR@17")), device.activePacks());
        assertEquals(Collections.emptyList(), device.pendingPacks());
        assertFalse(new File(directory, "packs/tr/pending").exists());
        assertTrue(new File(directory, "packs/tr/active").exists());
    }
}
