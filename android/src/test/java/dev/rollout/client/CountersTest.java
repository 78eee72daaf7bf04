package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The counters outlive the process that counted them, are written without the app waiting, and stay bounded. */
class CountersTest {
    private static final String CRASH_HEADER = "date,locale,pack,region,app_version,sessions,crashes\n";
    private static final String FALLBACK_HEADER = "date,locale,pack,region,app_version,lookups,fallbacks\n";

    private final Map<String, Object> kit = Fixtures.kit("counters.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final MemorySite site = new MemorySite();
    private final File cache = MemorySite.scratch("counters");
    private final LaunchesConformanceTest.SettableClock clock =
            new LaunchesConformanceTest.SettableClock(Instant.parse("2026-11-21T10:00:00Z"));

    private RolloutClient launch() {
        return site.client(MemorySite.bundled(kit.get("bundled")), cache, MemorySite.text(kit.get("publicKey")), device,
                MemorySite.text(device.get("locale")), site.options(device).clock(clock).build());
    }

    private RolloutClient onBaseline() {
        site.serve(Json.object(kit.get("sites")).get("baseline"));
        RolloutClient client = launch();
        client.refresh(true);
        client.activatePending();
        return client;
    }

    @Test
    void countsSavedWhenTheProcessEndsAreExportedByTheNextOne() {
        RolloutClient app = onBaseline();
        app.string("title");
        app.string("bundled.key");
        app.recordSession();
        assertTrue(app.saveCounters());
        RolloutClient next = launch();
        assertEquals(FALLBACK_HEADER + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,2,1\n", next.metricsCsv(MetricKind.FALLBACK));
        assertEquals(CRASH_HEADER + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n", next.metricsCsv(MetricKind.CRASH));
    }

    @Test
    void aSessionIsWrittenInTheBackgroundWithoutASaveCall() {
        RolloutClient app = onBaseline();
        app.recordSession();
        app.waitForSaves();
        assertEquals(CRASH_HEADER + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n", launch().metricsCsv(MetricKind.CRASH),
                "a process killed after recordSession() still counted it");
    }

    @Test
    void manyLookupsAreWrittenInTheBackgroundSoAKilledProcessLosesFewOfThem() {
        RolloutClient app = onBaseline();
        // Not ten seconds after the activation's write: that spacing has nothing to do with the count.
        app.counterSaver.intervalNanos = 0;
        for (int i = 0; i < 2048; i++) app.string("title");
        app.waitForSaves();
        String written = launch().metricsCsv(MetricKind.FALLBACK);
        assertFalse(written.equals(FALLBACK_HEADER), "some lookups were written: " + written);
        long lookups = Long.parseLong(written.split("\n")[1].split(",")[5]);
        assertTrue(lookups >= 1000 && lookups <= 2048, "written: " + written);
    }

    @Test
    void aFullDiskKeepsTheCountsInMemoryUntilAWriteSucceeds() {
        RolloutClient app = onBaseline();
        app.string("title");
        app.spaceLeft(0);
        assertFalse(app.saveCounters());
        assertEquals(FALLBACK_HEADER + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n", app.metricsCsv(MetricKind.FALLBACK));
        app.spaceLeft(-1);
        assertTrue(app.saveCounters());
        assertEquals(FALLBACK_HEADER + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n", launch().metricsCsv(MetricKind.FALLBACK));
    }

    @Test
    void theOldestDaysGoFirstPastTheRowLimit() {
        RolloutClient app = onBaseline();
        Instant day = Instant.parse("2026-01-01T10:00:00Z");
        for (int i = 0; i < Counters.MAXIMUM_ROWS + 5; i++) {
            clock.set(day.plusSeconds(86_400L * i));
            app.string("title");
        }
        assertTrue(app.saveCounters());
        String[] rows = launch().metricsCsv(MetricKind.FALLBACK).split("\n");
        assertEquals(Counters.MAXIMUM_ROWS + 1, rows.length, "a header and the row limit");
        assertTrue(rows[1].startsWith("2026-01-06,"), "the five oldest days went: " + rows[1]);
    }

    @Test
    void resetForgetsTheCountsOnDiskToo() {
        RolloutClient app = onBaseline();
        app.string("title");
        app.recordSession();
        app.resetCounters();
        assertEquals(FALLBACK_HEADER, app.metricsCsv(MetricKind.FALLBACK));
        app.waitForSaves();
        assertEquals(CRASH_HEADER, launch().metricsCsv(MetricKind.CRASH));
    }

    @Test
    void aRegionWithACommaIsQuotedAsRfc4180Says() {
        assertEquals("\"T\"\"R,1\"", Counters.field("T\"R,1"));
        assertEquals("TR", Counters.field("TR"));
    }
}
