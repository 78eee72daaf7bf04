package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Exposures and conversions on a device (docs/experiments.md): the assignment from the own locale's verified manifest
 * at refresh, an exposure on the first string() of a varied key in a session, conversions once per session and name
 * (remembered until the exposure), the outcome CSV's bytes, and state.json as the Swift client writes it. The site is
 * the kit's "eighteen" (packs 17 and 18) with an experiment in its tr-TR plan, signed here (the JDK's Ed25519 signs).
 */
class ExperimentClientTest {
    private static final String HEADER = "date,locale,pack,region,app_version,metric,exposures,conversions\n";

    private final Map<String, Object> kit = Fixtures.kit("counters.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final String installId = MemorySite.text(device.get("installId"));
    private final int bucket = Bucketing.bucket(installId, ExperimentPlanTest.SALT);
    private final MemorySite site = new MemorySite();
    private final File cache = MemorySite.scratch("experiments");
    private final KeyPair publisher = generate();
    private final LaunchesConformanceTest.SettableClock clock =
            new LaunchesConformanceTest.SettableClock(Instant.parse("2026-11-21T10:00:00Z"));

    private static KeyPair generate() {
        try {
            return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    private String publicKey() {
        byte[] encoded = publisher.getPublic().getEncoded();
        return Ed25519.PublicKey.of(Arrays.copyOfRange(encoded, encoded.length - 32, encoded.length)).text();
    }

    private byte[] sig(byte[] bytes) {
        try {
            Signature signature = Signature.getInstance("Ed25519");
            signature.initSign(publisher.getPrivate());
            signature.update(bytes);
            return DetachedSignature.encode(signature.sign());
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    private static Object parse(byte[] bytes) {
        try {
            return Json.parse(bytes);
        } catch (JsonException e) {
            throw new AssertionError(e);
        }
    }

    private static Object parse(String json) {
        return parse(json.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Serves the "eighteen" site with {@code experiment} (JSON, or null for none) as the tr-TR plan's, no rules, every
     * sequence bumped by {@code bump}, signed by the publisher.
     */
    private void serve(String experiment, long bump) {
        Map<String, Object> eighteen = Json.object(Json.object(kit.get("sites")).get("eighteen"));
        Map<String, Object> files = new LinkedHashMap<>();
        for (Map.Entry<String, Object> entry : eighteen.entrySet()) {
            if (!entry.getKey().endsWith(".sig")) files.put(entry.getKey(), entry.getValue());
        }
        Map<String, Object> index = Json.object(parse(Base64.getDecoder().decode(MemorySite.text(files.get("index.json")))));
        index.put("sequence", Json.integer(index.get("sequence")) + bump);
        for (Object entry : Json.object(index.get("locales")).values()) {
            Map<String, Object> locale = Json.object(entry);
            locale.put("sequence", Json.integer(locale.get("sequence")) + bump);
        }
        files.put("index.json", Base64.getEncoder().encodeToString(Json.canonical(index)));
        for (String path : new ArrayList<>(files.keySet())) {
            if (!path.startsWith("manifests/")) continue;
            Map<String, Object> manifest = Json.object(parse(Base64.getDecoder().decode(MemorySite.text(files.get(path)))));
            manifest.put("sequence", Json.integer(manifest.get("sequence")) + bump);
            if (path.equals("manifests/tr-TR.json")) {
                Map<String, Object> plan = Json.object(manifest.get("plan"));
                plan.put("rules", new ArrayList<Object>());
                if (experiment != null) plan.put("experiment", parse(experiment));
            }
            files.put(path, Base64.getEncoder().encodeToString(Json.canonical(manifest)));
        }
        for (String path : new ArrayList<>(files.keySet())) {
            if (path.equals("index.json") || path.startsWith("manifests/")) {
                byte[] bytes = Base64.getDecoder().decode(MemorySite.text(files.get(path)));
                files.put(path + ".sig", Base64.getEncoder().encodeToString(sig(bytes)));
            }
        }
        site.serve(files);
    }

    /** The device in control (tr-TR@17) or in the treatment (tr-TR@18). */
    private String experiment(boolean control) {
        int split = control ? bucket + 1 : bucket;
        return ExperimentPlanTest.experiment("[]", "*", ExperimentPlanTest.variant(17, "4.8.0", 0, split),
                ExperimentPlanTest.variant(18, "4.8.0", split, 10000));
    }

    private RolloutClient launch(boolean continuesSession) {
        return site.client(MemorySite.bundled(kit.get("bundled")), cache, publicKey(), device,
                MemorySite.text(device.get("locale")),
                site.options(device).clock(clock).continuesSession(continuesSession).build());
    }

    private RolloutClient refreshed(String experiment) {
        serve(experiment, 0);
        RolloutClient client = launch(false);
        RefreshResult result = client.refresh(true);
        assertTrue(result.kind() == RefreshResult.Kind.STAGED || result.kind() == RefreshResult.Kind.UP_TO_DATE,
                "the re-signed site refreshes: " + result);
        return client;
    }

    private static String row(String pack, String metric, long exposures, long conversions) {
        return "2026-11-21,tr-TR," + pack + ",TR,4.8.1," + metric + "," + exposures + "," + conversions + "\n";
    }

    @Test
    void theFirstReadOfAVariedKeyInASessionIsItsExposureInTheAssignedVariantWhicheverPackIsActive() {
        RolloutClient app = refreshed(experiment(false));
        assertNotNull(app.status().experiment());
        assertEquals("tr-TR@18", app.status().experiment().pack().toString());
        assertFalse(app.status().experiment().isControl());
        assertEquals(Arrays.asList("checkout.pay", "title"), app.status().experiment().keys());
        // Not activated: the device shows no pack of its own yet, and counts in its assigned variant all the same.
        assertNull(app.activePack());
        app.recordSession();
        app.string("title");
        app.string("title");
        app.string("checkout.pay");
        app.string("bundled.key");
        assertEquals(HEADER + row("tr-TR@18", "checkout", 1, 0) + row("tr-TR@18", "signup", 1, 0), app.outcomeCsv());
        app.recordSession();
        app.string("bundled.key");
        assertEquals(HEADER + row("tr-TR@18", "checkout", 1, 0) + row("tr-TR@18", "signup", 1, 0), app.outcomeCsv(),
                "a session that reads no varied key is not exposed");
        app.string("checkout.pay");
        assertEquals(HEADER + row("tr-TR@18", "checkout", 2, 0) + row("tr-TR@18", "signup", 2, 0), app.outcomeCsv());
        assertEquals(HEADER + row("tr-TR@18", "signup", 2, 0), app.outcomeCsv("signup"), "one metric's rows");
    }

    @Test
    void beforeTheFirstSessionOfTheProcessNothingIsCounted() {
        RolloutClient app = refreshed(experiment(true));
        app.string("title");
        assertFalse(app.recordConversion("checkout"));
        assertEquals(HEADER, app.outcomeCsv());
        app.recordSession();
        app.string("title");
        assertEquals(HEADER + row("tr-TR@17", "checkout", 1, 0) + row("tr-TR@17", "signup", 1, 0), app.outcomeCsv());
    }

    @Test
    void aConversionBeforeTheExposureIsCountedWithIt() {
        RolloutClient app = refreshed(experiment(true));
        app.recordSession();
        assertTrue(app.recordConversion("checkout"), "it counts for this session");
        assertEquals(HEADER, app.outcomeCsv(), "not before the exposure");
        app.string("title");
        assertEquals(HEADER + row("tr-TR@17", "checkout", 1, 1) + row("tr-TR@17", "signup", 1, 0), app.outcomeCsv());
    }

    @Test
    void aConversionCountsOncePerSessionAndNameAndNeverWithoutAnExposure() {
        RolloutClient app = refreshed(experiment(true));
        app.recordSession();
        app.string("title");
        assertTrue(app.recordConversion("checkout"));
        assertFalse(app.recordConversion("checkout"), "once per session");
        assertTrue(app.recordConversion("signup"));
        assertEquals(HEADER + row("tr-TR@17", "checkout", 1, 1) + row("tr-TR@17", "signup", 1, 1), app.outcomeCsv());
        app.recordSession();
        assertTrue(app.recordConversion("checkout"), "a new session: remembered for its exposure");
        assertEquals(HEADER + row("tr-TR@17", "checkout", 1, 1) + row("tr-TR@17", "signup", 1, 1), app.outcomeCsv(),
                "a session never exposed counts no conversion");
    }

    @Test
    void anUnknownMetricIsIgnored() {
        RolloutClient app = refreshed(experiment(true));
        app.recordSession();
        assertFalse(app.recordConversion("purchase"));
        app.string("title");
        assertFalse(app.recordConversion("purchase"));
        assertEquals(HEADER + row("tr-TR@17", "checkout", 1, 0) + row("tr-TR@17", "signup", 1, 0), app.outcomeCsv());
    }

    @Test
    void aDeviceNotInTheExperimentCountsNothing() {
        assertTrue(bucket >= 2, "the device's bucket leaves room below it: " + bucket);
        RolloutClient app = refreshed(ExperimentPlanTest.experiment("[]", "*",
                ExperimentPlanTest.variant(17, "4.8.0", 0, 1), ExperimentPlanTest.variant(18, "4.8.0", 1, bucket)));
        assertNull(app.status().experiment());
        app.recordSession();
        app.string("title");
        assertFalse(app.recordConversion("checkout"));
        assertEquals(HEADER, app.outcomeCsv());
        RolloutClient other = refreshed(ExperimentPlanTest.experiment("[\"AZ\"]", "*",
                ExperimentPlanTest.variant(17, "4.8.0", 0, 5000), ExperimentPlanTest.variant(18, "4.8.0", 5000, 10000)));
        other.recordSession();
        other.string("title");
        assertEquals(HEADER, other.outcomeCsv(), "another region's experiment");
    }

    @Test
    void aRefreshWhosePlanHasNoExperimentTakesTheDeviceOut() {
        RolloutClient app = refreshed(experiment(true));
        assertNotNull(app.status().experiment());
        serve(null, 1);
        assertEquals(RefreshResult.Kind.UP_TO_DATE, app.refresh(true).kind());
        assertNull(app.status().experiment());
        app.recordSession();
        app.string("title");
        assertEquals(HEADER, app.outcomeCsv());
    }

    @Test
    void rowsOutliveTheProcessAndOnlyAToolThatPlaysOneDeviceContinuesItsSession() {
        RolloutClient app = refreshed(experiment(true));
        app.recordSession();
        app.string("title");
        assertTrue(app.saveCounters());
        String counted = HEADER + row("tr-TR@17", "checkout", 1, 0) + row("tr-TR@17", "signup", 1, 0);
        RolloutClient tool = launch(true);
        assertEquals(counted, tool.outcomeCsv());
        assertNotNull(tool.status().experiment(), "the assignment is kept: no refresh needed");
        assertTrue(tool.recordConversion("checkout"), "rollout device: the last launch's session goes on");
        tool.string("title");
        String converted = HEADER + row("tr-TR@17", "checkout", 1, 1) + row("tr-TR@17", "signup", 1, 0);
        assertEquals(converted, tool.outcomeCsv(),
                "that session was exposed already: its conversion counts, its second read does not");
        assertTrue(tool.saveCounters());
        RolloutClient next = launch(false);
        assertEquals(converted, next.outcomeCsv());
        assertFalse(next.recordConversion("signup"), "an app's new process has no session before recordSession()");
    }

    @Test
    void resetForgetsTheRowsAndTheSessionGoesOn() {
        RolloutClient app = refreshed(experiment(true));
        app.recordSession();
        app.string("title");
        app.resetCounters();
        assertEquals(HEADER, app.outcomeCsv());
        app.waitForSaves();
        assertTrue(app.recordConversion("checkout"));
        assertEquals(HEADER, app.outcomeCsv(), "a conversion whose exposure was reset is not written");
        // The next day (on the same day, as in the Swift client, the reset session's conversion shares the row).
        clock.set(Instant.parse("2026-11-22T10:00:00Z"));
        app.recordSession();
        app.string("title");
        assertEquals(HEADER + "2026-11-22,tr-TR,tr-TR@17,TR,4.8.1,checkout,1,0\n"
                + "2026-11-22,tr-TR,tr-TR@17,TR,4.8.1,signup,1,0\n", launchAfterSave(app).outcomeCsv());
    }

    private RolloutClient launchAfterSave(RolloutClient app) {
        assertTrue(app.saveCounters());
        return launch(false);
    }

    @Test
    void theOutcomeCsvIsSortedAndQuotedAsTheOtherCsvs() {
        Outcomes outcomes = new Outcomes();
        outcomes.startSession();
        ExperimentAssignment b = new ExperimentAssignment("tr-TR",
                new ExperimentAssignment.Tag("e", "s", PackIds.parse("tr-TR@18")), false,
                new java.util.HashSet<>(Arrays.asList("k")), Arrays.asList("zeta", "alpha"));
        ExperimentAssignment a = new ExperimentAssignment("tr-TR",
                new ExperimentAssignment.Tag("e", "s", PackIds.parse("tr-TR@17")), true,
                new java.util.HashSet<>(Arrays.asList("k")), Arrays.asList("zeta", "alpha"));
        assertTrue(outcomes.expose(b, new Outcomes.Place("2026-11-22", "T\"R,1", "4.8")));
        assertTrue(outcomes.convert("zeta", b));
        outcomes.startSession();
        assertTrue(outcomes.convert("alpha", a));
        assertTrue(outcomes.expose(a, new Outcomes.Place("2026-11-22", "TR", "4.8")));
        outcomes.startSession();
        assertTrue(outcomes.expose(a, new Outcomes.Place("2026-11-21", "TR", "4.10")));
        assertEquals(HEADER
                + "2026-11-21,tr-TR,tr-TR@17,TR,4.10,alpha,1,0\n"
                + "2026-11-21,tr-TR,tr-TR@17,TR,4.10,zeta,1,0\n"
                + "2026-11-22,tr-TR,tr-TR@17,TR,4.8,alpha,1,1\n"
                + "2026-11-22,tr-TR,tr-TR@17,TR,4.8,zeta,1,0\n"
                + "2026-11-22,tr-TR,tr-TR@18,\"T\"\"R,1\",4.8,alpha,1,0\n"
                + "2026-11-22,tr-TR,tr-TR@18,\"T\"\"R,1\",4.8,zeta,1,1\n", outcomes.csv(null));
        assertFalse(outcomes.expose(a, new Outcomes.Place("2026-11-23", "TR", "4.8")), "one exposure a session");
        assertTrue(outcomes.expose(b, new Outcomes.Place("2026-11-23", "TR", "4.8")),
                "another variant's assignment starts the session's memory afresh");
    }

    @Test
    void theRowsArePastTheLimitOldestDayFirst() {
        Outcomes outcomes = new Outcomes();
        ExperimentAssignment a = new ExperimentAssignment("tr-TR",
                new ExperimentAssignment.Tag("e", "s", PackIds.parse("tr-TR@17")), true,
                new java.util.HashSet<>(Arrays.asList("k")), Arrays.asList("m"));
        Instant day = Instant.parse("2026-01-01T10:00:00Z");
        for (int i = 0; i < Outcomes.MAXIMUM_ROWS + 5; i++) {
            outcomes.startSession();
            String date = day.plusSeconds(86_400L * i).toString().substring(0, 10);
            outcomes.expose(a, new Outcomes.Place(date, "TR", "4.8"));
        }
        String[] rows = outcomes.csv(null).split("\n");
        assertEquals(Outcomes.MAXIMUM_ROWS + 1, rows.length);
        assertTrue(rows[1].startsWith("2026-01-06,"), rows[1]);
    }

    /** state.json's experiment members, as the Swift client writes them (DeviceState.bytes, Outcomes.swift). */
    static final String STATE = "{\n"
            + "  \"blocked\": {},\n"
            + "  \"chains\": {},\n"
            + "  \"counters\": [],\n"
            + "  \"experiment\": {\n"
            + "    \"control\": false,\n"
            + "    \"keys\": [\n"
            + "      \"checkout.pay\",\n"
            + "      \"title\"\n"
            + "    ],\n"
            + "    \"locale\": \"tr-TR\",\n"
            + "    \"metrics\": [\n"
            + "      \"checkout\",\n"
            + "      \"signup\"\n"
            + "    ],\n"
            + "    \"name\": \"checkout-copy\",\n"
            + "    \"pack\": \"tr-TR@18\",\n"
            + "    \"salt\": \"exp-salt\"\n"
            + "  },\n"
            + "  \"failed\": [],\n"
            + "  \"format\": \"rollout-device/1\",\n"
            + "  \"indexSequence\": 2,\n"
            + "  \"killed\": [],\n"
            + "  \"launch\": {\n"
            + "    \"armed\": false,\n"
            + "    \"confirmed\": {},\n"
            + "    \"good\": [],\n"
            + "    \"rollbacks\": 0,\n"
            + "    \"rolledBack\": [],\n"
            + "    \"trial\": {}\n"
            + "  },\n"
            + "  \"outcomeSession\": {\n"
            + "    \"converted\": [\n"
            + "      \"checkout\"\n"
            + "    ],\n"
            + "    \"exposed\": {\n"
            + "      \"appVersion\": \"4.8.1\",\n"
            + "      \"day\": \"2026-11-21\",\n"
            + "      \"region\": \"TR\"\n"
            + "    },\n"
            + "    \"name\": \"checkout-copy\",\n"
            + "    \"pack\": \"tr-TR@18\",\n"
            + "    \"salt\": \"exp-salt\"\n"
            + "  },\n"
            + "  \"outcomes\": [\n"
            + "    {\n"
            + "      \"appVersion\": \"4.8.1\",\n"
            + "      \"conversions\": 1,\n"
            + "      \"day\": \"2026-11-21\",\n"
            + "      \"exposures\": 1,\n"
            + "      \"metric\": \"checkout\",\n"
            + "      \"pack\": \"tr-TR@18\",\n"
            + "      \"region\": \"TR\"\n"
            + "    }\n"
            + "  ],\n"
            + "  \"staged\": []\n"
            + "}\n";

    @Test
    void theExperimentMembersOfStateJsonReadBackToTheSameBytes() {
        DeviceState state = DeviceState.parse(STATE.getBytes(StandardCharsets.UTF_8));
        assertNotNull(state);
        assertEquals("tr-TR@18", state.experiment.tag.pack.toString());
        assertEquals(STATE, new String(state.bytes(), StandardCharsets.UTF_8));
        assertEquals(HEADER + row("tr-TR@18", "checkout", 1, 1), state.outcomes.csv(null));
    }

    @Test
    void aStateWrittenBeforeExperimentsLoadsWithoutThemAndIsWrittenAsBefore() {
        String old = STATE.replaceAll("(?s)  \"experiment\": \\{.*?\n  \\},\n", "")
                .replaceAll("(?s)  \"outcomeSession\": \\{.*?\n  \\],\n", "");
        assertFalse(old.contains("experiment") || old.contains("outcome"), old);
        DeviceState state = DeviceState.parse(old.getBytes(StandardCharsets.UTF_8));
        assertNotNull(state);
        assertNull(state.experiment);
        assertTrue(state.outcomes.isEmpty());
        assertEquals(old, new String(state.bytes(), StandardCharsets.UTF_8));
    }

    @Test
    void theDeviceWritesTheSwiftMembersOfStateJson() throws Exception {
        RolloutClient app = refreshed(experiment(false));
        app.recordSession();
        app.string("title");
        app.recordConversion("checkout");
        assertTrue(app.saveCounters());
        Map<String, Object> written = Json.object(parse(java.nio.file.Files.readAllBytes(
                new File(cache, DeviceState.FILE).toPath())));
        Map<String, Object> expected = Json.object(parse(STATE));
        for (String member : new String[] {"experiment", "outcomeSession"}) {
            assertEquals(new String(Json.canonical(expected.get(member)), StandardCharsets.UTF_8),
                    new String(Json.canonical(written.get(member)), StandardCharsets.UTF_8), member);
        }
        List<Object> rows = Json.array(written.get("outcomes"));
        assertEquals(2, rows.size());
        assertEquals(new String(Json.canonical(Json.array(expected.get("outcomes")).get(0)), StandardCharsets.UTF_8),
                new String(Json.canonical(rows.get(0)), StandardCharsets.UTF_8));
    }
}
