package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The kit's launches.json (and, through {@link #replay}, counters.json): each case one device on a
 * fresh cache, a site served from memory, every step on the real client, and after each step every
 * member of {@code expect} compared (docs/conformance.md, "launches.json and counters.json").
 */
class LaunchesConformanceTest {
    @Test
    void everyCrashLoopCaseIsDecidedAsTheVectorsSay() {
        assertTrue(replay("launches.json") >= 10, "the kit has its cases");
    }

    /** The device's clock, which a clock step sets. */
    static final class SettableClock extends Clock {
        private volatile Instant now;

        SettableClock(Instant now) {
            this.now = now;
        }

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    static Instant instant(String text) {
        Long seconds = Timestamp.parse(text);
        assertNotNull(seconds, text);
        return Instant.ofEpochSecond(seconds);
    }

    private static List<Object> ids(List<PackId> list) {
        List<Object> out = new ArrayList<>();
        for (PackId id : list) out.add(id.toString());
        return out;
    }

    /** Replays every case of {@code name}; returns how many there were. */
    static int replay(String name) {
        Map<String, Object> file = Fixtures.kit(name);
        Map<String, Object> device = Json.object(file.get("device"));
        BundledStrings bundled = MemorySite.bundled(file.get("bundled"));
        Map<String, Object> sites = Json.object(file.get("sites"));
        String publicKey = MemorySite.text(file.get("publicKey"));
        List<Map<String, Object>> cases = Fixtures.objects(file.get("cases"));
        for (Map<String, Object> c : cases) {
            String caseName = MemorySite.text(c.get("name"));
            File cache = MemorySite.scratch("device-conformance");
            SettableClock clock = new SettableClock(instant(MemorySite.text(device.get("now"))));
            MemorySite site = new MemorySite();
            RolloutClient.Options options = site.options(device).clock(clock)
                    .launchAttempts(Json.integer(c.get("launchAttempts")).intValue()).build();
            String locale = MemorySite.text(device.get("locale"));
            String region = MemorySite.text(device.get("region"));
            String appVersion = MemorySite.text(device.get("appVersion"));
            RolloutClient client = null;
            List<Map<String, Object>> steps = Fixtures.objects(c.get("steps"));
            for (int number = 0; number < steps.size(); number++) {
                Map<String, Object> step = steps.get(number);
                String action = MemorySite.text(step.get("do"));
                String at = name + ": " + caseName + ", step " + (number + 1) + " (" + action + ")";
                Map<String, Object> observed = new TreeMap<>();
                if (action.equals("launch")) {
                    // The previous process ends with its counts written; whether it reached its first
                    // screen is what its succeed step said.
                    if (client != null) client.saveCounters();
                    if (step.containsKey("region")) region = MemorySite.text(step.get("region"));
                    if (step.containsKey("appVersion")) appVersion = MemorySite.text(step.get("appVersion"));
                    client = new RolloutClient(bundled, cache, MemorySite.MANIFEST_URL, publicKey, appVersion, region,
                            locale, options);
                }
                assertNotNull(client, at + ": a case starts with a launch");
                switch (action) {
                    case "launch":
                        break;
                    case "refresh":
                        site.serve(sites.get(MemorySite.text(step.get("site"))));
                        observed.put("result", RefreshConformanceTest.kind(client.refresh(true)));
                        break;
                    case "activate":
                        observed.put("activated", ids(client.activatePending()));
                        break;
                    case "succeed":
                        List<PackId> confirmed = client.markLaunchSucceeded();
                        observed.put("confirmed", confirmed == null ? Json.NULL : ids(confirmed));
                        break;
                    case "markFailed":
                        PackId marked = client.markActivePackFailed();
                        observed.put("markedFailed", marked == null ? Json.NULL : marked.toString());
                        break;
                    case "session":
                        client.recordSession();
                        break;
                    case "crash":
                        client.recordCrash();
                        break;
                    case "reset":
                        client.resetCounters();
                        break;
                    case "convert":
                        client.recordConversion(MemorySite.text(step.get("name")));
                        break;
                    case "lookup":
                        observed.put("text", client.string(MemorySite.text(step.get("key"))));
                        break;
                    case "setLocale":
                        locale = MemorySite.text(step.get("locale"));
                        client.setLocale(locale);
                        break;
                    case "clock":
                        clock.set(instant(MemorySite.text(step.get("now"))));
                        break;
                    default:
                        throw new AssertionError(at + ": unknown step");
                }
                LaunchStatus status = client.launchStatus();
                observed.put("activePacks", ids(client.activePacks()));
                observed.put("pendingPacks", ids(client.pendingPacks()));
                observed.put("failed", ids(client.status().failed()));
                observed.put("armed", status.armed());
                observed.put("succeeded", status.succeeded());
                observed.put("awaitingSuccess", ids(status.awaitingSuccess()));
                observed.put("launchesSinceActivation", status.launchesSinceActivation());
                observed.put("failedLaunches", status.failedLaunches());
                observed.put("previousLaunchFailed", status.previousLaunchFailed());
                observed.put("rolledBack", ids(status.rolledBack()));
                observed.put("rollbacks", status.rollbacks());
                observed.put("crashCsv", client.metricsCsv(MetricKind.CRASH));
                observed.put("fallbackCsv", client.metricsCsv(MetricKind.FALLBACK));
                observed.put("outcomeCsv", client.outcomeCsv());
                Map<String, Object> expect = new TreeMap<>(Json.object(step.get("expect")));
                assertFalse(expect.isEmpty(), at + ": nothing expected");
                for (Map.Entry<String, Object> member : expect.entrySet()) {
                    assertEquals(canonical(member.getValue()), canonical(observed.get(member.getKey())),
                            at + ": " + member.getKey());
                }
            }
            if (client != null) client.saveCounters();
        }
        return cases.size();
    }

    /** A JSON value as text, so that a kit's Long and the client's long compare alike. */
    private static String canonical(Object value) {
        return value == null ? "(absent)" : new String(Json.canonical(value), java.nio.charset.StandardCharsets.UTF_8);
    }
}
