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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * refresh() blocks its caller only: string() never waits for it (nor for the writers' lock), a
 * second refresh meanwhile is BUSY, the minimum interval holds across launches, a transport that
 * hangs past the time-out or a cancelled thread ends the round, and listeners hear each change on
 * their executor.
 */
class ClientThreadingTest {
    private final Map<String, Object> kit = Fixtures.kit("launches.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final Map<String, Object> sites = Json.object(kit.get("sites"));
    private final MemorySite site = new MemorySite();
    private final File cache = MemorySite.scratch("threading");
    private final LaunchesConformanceTest.SettableClock clock =
            new LaunchesConformanceTest.SettableClock(Instant.parse("2026-11-21T10:00:00Z"));
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private RolloutClient launch(RolloutClient.Options.Builder options) {
        return site.client(MemorySite.bundled(kit.get("bundled")), cache, MemorySite.text(kit.get("publicKey")), device,
                MemorySite.text(device.get("locale")), options.clock(clock).build());
    }

    private RolloutClient onBaseline() {
        site.serve(sites.get("baseline"));
        RolloutClient client = launch(site.options(device));
        client.refresh(true);
        client.activatePending();
        return client;
    }

    @Test
    void aRefreshWhileAnotherRunsIsBusyAndStringsDoNotWaitForIt() throws Exception {
        RolloutClient client = onBaseline();
        site.serve(sites.get("eighteen"));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        site.hook = url -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Future<RefreshResult> first = threads.submit(() -> client.refresh(true));
        assertTrue(inside.await(5, TimeUnit.SECONDS));
        assertEquals(RefreshResult.Kind.BUSY, client.refresh(true).kind());
        assertEquals("tr-TR@17 title", client.string("title"), "read while the refresh waits on the network");
        site.hook = null;
        release.countDown();
        assertEquals(RefreshResult.Kind.STAGED, first.get(5, TimeUnit.SECONDS).kind());
        assertEquals(RefreshResult.Kind.UP_TO_DATE, client.refresh(true).kind(), "not busy once it ended");
    }

    @Test
    void stringsAreReadWhileTheWritersLockIsHeld() throws Exception {
        RolloutClient client = onBaseline();
        Future<String> read;
        synchronized (client.lock) {
            read = threads.submit(() -> client.string("title"));
            assertEquals("tr-TR@17 title", read.get(5, TimeUnit.SECONDS));
        }
    }

    /**
     * Whatever a round does meanwhile (a blocked pack goes at once, its replacement comes with the
     * commit), a reader gets a text some published state gives: a pack's or a bundled one, never an
     * empty string or the key.
     */
    @Test
    void readersOnManyThreadsGetAPublishedTextNeverAnEmptyStringOrTheKey() throws Exception {
        RolloutClient client = onBaseline();
        List<String> titles = Arrays.asList("tr-TR@17 title", "tr-TR@18 title", "tr-TR@19 title", "bundled tr-TR title");
        List<String> trKeys = Arrays.asList("tr@1 key", "tr@2 key", "bundled tr key");
        AtomicBoolean done = new AtomicBoolean();
        List<Future<Set<String>>> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            readers.add(threads.submit(() -> {
                Set<String> wrong = new TreeSet<>();
                while (!done.get()) {
                    String title = client.string("title");
                    String tr = client.string("tr.key");
                    if (!titles.contains(title)) wrong.add(title);
                    if (!trKeys.contains(tr)) wrong.add(tr);
                }
                return wrong;
            }));
        }
        for (String name : new String[] {"eighteen", "nineteen", "revert"}) {
            site.serve(sites.get(name));
            client.refresh(true);
            client.activatePending();
        }
        done.set(true);
        for (Future<Set<String>> reader : readers) assertEquals(Collections.emptySet(), reader.get(5, TimeUnit.SECONDS));
    }

    @Test
    void theMinimumIntervalHoldsAcrossLaunchesAndForceIgnoresIt() {
        site.serve(sites.get("baseline"));
        RolloutClient.Options.Builder options = site.options(device).minimumRefreshIntervalMillis(3_600_000);
        RolloutClient client = launch(options);
        assertEquals(RefreshResult.Kind.STAGED, client.refresh().kind());
        int requests = site.requests.get();
        clock.set(Instant.parse("2026-11-21T10:20:00Z"));
        RefreshResult soon = client.refresh();
        assertEquals(RefreshResult.Kind.TOO_SOON, soon.kind());
        assertEquals(40 * 60_000L, soon.retryAfterMillis());
        RolloutClient relaunched = launch(options);
        assertEquals(RefreshResult.Kind.TOO_SOON, relaunched.refresh().kind(), "kept in state.json");
        assertEquals(requests, site.requests.get(), "no request was made");
        assertEquals(RefreshResult.Kind.UP_TO_DATE, relaunched.refresh(true).kind());
        clock.set(Instant.parse("2026-11-21T09:00:00Z"));
        assertEquals(RefreshResult.Kind.UP_TO_DATE, relaunched.refresh().kind(), "a clock set back ends the wait");
    }

    @Test
    void aTransportThatIgnoresTheTimeOutStillEndsTheRoundTimedOut() {
        RolloutClient client = onBaseline();
        site.serve(sites.get("eighteen"));
        site.hook = url -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        RolloutClient slow = launch(site.options(device).timeoutMillis(100));
        RefreshResult result = slow.refresh(true);
        assertEquals(RefreshResult.Kind.FAILED, result.kind());
        assertEquals(FailureReason.TIMED_OUT, result.failure().reason());
        assertEquals("tr-TR@17 title", client.string("title"));
    }

    @Test
    void anInterruptedRefreshIsCancelledAndChangesNothing() throws Exception {
        RolloutClient client = onBaseline();
        site.serve(sites.get("eighteen"));
        CountDownLatch inside = new CountDownLatch(1);
        site.hook = url -> {
            inside.countDown();
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException e) {
                // As HttpTransport does: the interrupt stays set for the round to see.
                Thread.currentThread().interrupt();
                throw new TransportException(FailureReason.CANCELLED, url + ": cancelled");
            }
        };
        LinkedBlockingQueue<RefreshResult> result = new LinkedBlockingQueue<>();
        Thread round = new Thread(() -> result.add(client.refresh(true)));
        round.start();
        assertTrue(inside.await(5, TimeUnit.SECONDS));
        round.interrupt();
        RefreshResult cancelled = result.poll(5, TimeUnit.SECONDS);
        assertEquals(FailureReason.CANCELLED, cancelled == null ? null : cancelled.failure().reason(), String.valueOf(cancelled));
        assertEquals("tr-TR@17 title", client.string("title"));
        assertEquals(Collections.emptyList(), client.pendingPacks());
        site.hook = null;
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind(), "the next round is not busy and stages 18");
    }

    @Test
    void listenersHearEachChangeOnTheirExecutorUntilClosed() throws Exception {
        RolloutClient client = onBaseline();
        LinkedBlockingQueue<Change> heard = new LinkedBlockingQueue<>();
        ExecutorService main = Executors.newSingleThreadExecutor();
        try {
            Subscription subscription = client.addChangeListener(main, heard::add);
            site.serve(sites.get("eighteen"));
            client.refresh(true);
            assertEquals(Collections.singletonList(PackId.parse("tr-TR@18")), client.activatePending());
            Change activated = heard.poll(5, TimeUnit.SECONDS);
            assertEquals(new Change(Change.Reason.ACTIVATED, Collections.singletonList(PackId.parse("tr-TR@18")), "tr-TR"),
                    activated);
            client.setLocale("tr");
            assertEquals(Change.Reason.LOCALE_CHANGED, heard.poll(5, TimeUnit.SECONDS).reason());
            subscription.close();
            subscription.close();
            client.setLocale("tr-TR");
            main.submit(() -> {}).get(5, TimeUnit.SECONDS);
            assertEquals(null, heard.poll(), "closed: told nothing more");
        } finally {
            main.shutdownNow();
        }
    }

    @Test
    void aListenerThatRefreshesOnAChangeOfARefreshIsNotToldBusy() throws Exception {
        RolloutClient client = onBaseline();
        site.serve(sites.get("eighteen"));
        client.refresh(true);
        client.activatePending();
        LinkedBlockingQueue<RefreshResult> results = new LinkedBlockingQueue<>();
        client.addChangeListener(Runnable::run, change -> results.add(client.refresh(true)));
        site.serve(sites.get("revert"));
        client.refresh(true);
        RefreshResult inListener = results.poll(5, TimeUnit.SECONDS);
        assertTrue(inListener != null && inListener.kind() != RefreshResult.Kind.BUSY, String.valueOf(inListener));
        assertEquals("tr-TR@17 title", client.string("title"), "the revert dropped 18 and brought back 17 at once");
    }

    /** An app's executor that was shut down, or a listener that throws, must not make the client throw. */
    @Test
    void aRefusingExecutorOrAThrowingListenerNeverReachesTheCallerAndTheNextListenerHears() throws Exception {
        RolloutClient client = onBaseline();
        ExecutorService gone = Executors.newSingleThreadExecutor();
        gone.shutdown();
        client.addChangeListener(gone, change -> {});
        client.addChangeListener(Runnable::run, change -> {
            throw new IllegalStateException("the app's listener failed");
        });
        LinkedBlockingQueue<Change> heard = new LinkedBlockingQueue<>();
        client.addChangeListener(Runnable::run, heard::add);
        site.serve(sites.get("eighteen"));
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind());
        assertEquals(Collections.singletonList(PackId.parse("tr-TR@18")), client.activatePending());
        client.setLocale("tr");
        assertEquals("tr", client.currentLocale());
        assertEquals(Change.Reason.ACTIVATED, heard.poll(5, TimeUnit.SECONDS).reason());
        assertEquals(Change.Reason.LOCALE_CHANGED, heard.poll(5, TimeUnit.SECONDS).reason());
    }
}
