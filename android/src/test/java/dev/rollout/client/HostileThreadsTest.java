package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An app that hammers the client: string() on eight threads, the status calls on another, while
 * one thread refreshes, activates, switches locale and marks packs failed in a loop for seconds.
 * No call throws, and every text is one a published state gives: a pack's, a bundled one, or the
 * placeholder for a key the locale has nowhere; never empty, never the key.
 */
class HostileThreadsTest {
    private final Map<String, Object> kit = Fixtures.kit("launches.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final Map<String, Object> sites = Json.object(kit.get("sites"));
    private final MemorySite site = new MemorySite();
    private final File cache = MemorySite.scratch("hostile-threads");
    private final LaunchesConformanceTest.SettableClock clock =
            new LaunchesConformanceTest.SettableClock(Instant.parse(MemorySite.text(device.get("now"))));
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void stringsStayWholeWhileEverythingElseRunsInALoop() throws Exception {
        site.serve(sites.get("baseline"));
        RolloutClient client = site.client(MemorySite.bundled(kit.get("bundled")), cache,
                MemorySite.text(kit.get("publicKey")), device, "tr-TR", site.options(device).clock(clock).build());
        List<String> titles = Arrays.asList("tr-TR@17 title", "tr-TR@18 title", "tr-TR@19 title", "tr@1 title",
                "tr@2 title", "bundled tr-TR title", "bundled tr title", "bundled en-US title");
        List<String> trKeys = Arrays.asList("tr@1 key", "tr@2 key", "bundled tr key", "…");
        AtomicBoolean done = new AtomicBoolean();
        List<Future<Set<String>>> workers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            workers.add(threads.submit(() -> {
                Set<String> wrong = new TreeSet<>();
                long reads = 0;
                while (!done.get()) {
                    String title = client.string("title");
                    String tr = client.string("tr.key", Collections.singletonMap("n", "1"));
                    if (!titles.contains(title)) wrong.add("title: " + title);
                    if (!trKeys.contains(tr)) wrong.add("tr.key: " + tr);
                    reads++;
                }
                assertTrue(reads > 0);
                return wrong;
            }));
        }
        workers.add(threads.submit(() -> {
            while (!done.get()) {
                client.status();
                client.activePacks();
                client.activePack();
                client.pendingPacks();
                client.launchStatus();
                client.currentLocale();
                client.metricsCsv(MetricKind.FALLBACK);
            }
            return Collections.<String>emptySet();
        }));
        String[] names = {"baseline", "eighteen", "nineteen", "revert"};
        String[] locales = {"tr-TR", "tr", "en-US", "tr-TR"};
        long until = System.nanoTime() + 3_000_000_000L;
        for (int round = 0; System.nanoTime() < until; round++) {
            site.serve(sites.get(names[round % names.length]));
            client.setLocale(locales[round % locales.length]);
            client.refresh(true);
            if (round % 3 == 0) client.markActivePackFailed();
            client.activatePending();
        }
        done.set(true);
        Set<String> wrong = new TreeSet<>();
        for (Future<Set<String>> worker : workers) wrong.addAll(worker.get(10, TimeUnit.SECONDS));
        assertEquals(Collections.emptySet(), wrong);
    }
}
