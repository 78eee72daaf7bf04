package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A device on the default transport whose site turns hostile after it took the baseline: each
 * file of the next publish in turn far too large, trickled, redirected away, missing or broken.
 * Each refresh fails with its reason, in time, without holding the body, and the device keeps
 * showing the packs it had.
 */
class HostileSiteTest {
    interface Handler {
        void handle(HttpExchange exchange) throws IOException, InterruptedException;
    }

    private final Map<String, Object> kit = Fixtures.kit("launches.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final Map<String, Object> sites = Json.object(kit.get("sites"));
    private final LaunchesConformanceTest.SettableClock clock =
            new LaunchesConformanceTest.SettableClock(Instant.parse(MemorySite.text(device.get("now"))));
    private final Map<String, Handler> hostile = new ConcurrentHashMap<>();
    private volatile Map<String, Object> served;
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task);
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext("/app/", exchange -> {
            String path = exchange.getRequestURI().getPath().substring("/app/".length());
            HttpExchange e = exchange;
            try {
                Handler handler = hostile.get(path);
                if (handler != null) {
                    handler.handle(e);
                    return;
                }
                Object file = served.get(path);
                if (file == null) {
                    e.sendResponseHeaders(404, -1);
                    return;
                }
                byte[] bytes = Base64.getDecoder().decode(MemorySite.text(file));
                e.sendResponseHeaders(200, bytes.length);
                e.getResponseBody().write(bytes);
            } catch (IOException | InterruptedException ignored) {
                // The device hung up: what these tests make it do.
            } finally {
                e.close();
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private RolloutClient onBaseline() {
        served = Json.object(sites.get("baseline"));
        URI index = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/app/index.json");
        RolloutClient client = new RolloutClient(MemorySite.bundled(kit.get("bundled")),
                MemorySite.scratch("hostile-site"), index, MemorySite.text(kit.get("publicKey")),
                MemorySite.text(device.get("appVersion")), MemorySite.text(device.get("region")), "tr-TR",
                RolloutClient.Options.builder().installId(MemorySite.text(device.get("installId")))
                        .defaultLocale(MemorySite.text(device.get("defaultLocale"))).clock(clock).timeoutMillis(1500)
                        .build());
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind());
        client.activatePending();
        assertEquals("tr-TR@17 title", client.string("title"));
        served = Json.object(sites.get("eighteen"));
        return client;
    }

    private static FailureReason reason(RefreshResult result) {
        if (result.kind() == RefreshResult.Kind.FAILED) return result.failure().reason();
        assertEquals(RefreshResult.Kind.PARTIAL, result.kind(), result.toString());
        return result.failures().get(0).reason();
    }

    private void assertKept(RolloutClient client) {
        assertEquals("tr-TR@17 title", client.string("title"));
        assertEquals(Collections.emptyList(), client.pendingPacks());
        client.activatePending();
        assertEquals("tr-TR@17 title", client.string("title"));
        hostile.clear();
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind(), "the site mended, the device takes it");
        client.activatePending();
        assertEquals("tr-TR@18 title", client.string("title"));
    }

    /**
     * 300 MB, chunked or with its length, at the pace of a fast network (64 kB a millisecond): a
     * loopback server's flood would instead fill the socket's buffers, which the JDK's
     * HttpURLConnection drains when an abandoned chunked body is closed (a JVM cost the transport
     * cannot reach; Android's stops reading at close).
     */
    private static void endless(HttpExchange exchange, long statedLength) throws IOException, InterruptedException {
        exchange.sendResponseHeaders(200, statedLength);
        OutputStream out = exchange.getResponseBody();
        byte[] chunk = new byte[65536];
        Arrays.fill(chunk, (byte) ' ');
        for (long sent = 0; sent < 300L << 20; sent += chunk.length) {
            out.write(chunk);
            out.flush();
            Thread.sleep(1);
        }
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void filesFarOverTheirLimitsAreTooLargeAndNeverHeld() {
        RolloutClient client = onBaseline();
        List<String> paths = Arrays.asList("index.json", "index.json.sig", "manifests/tr-TR.json",
                "manifests/tr-TR.json.sig", "packs/tr-TR/18.b476f767fbc46e37.json");
        for (String path : paths) {
            for (long stated : new long[] {0, 300L << 20}) {
                hostile.clear();
                hostile.put(path, exchange -> endless(exchange, stated));
                long before = allocated();
                RefreshResult result = client.refresh(true);
                long spent = allocated() - before;
                assertEquals(FailureReason.TOO_LARGE, reason(result), path + " " + stated + ": " + result);
                assertTrue(spent < 24 * SizeLimits.INDEX, path + ": allocated " + spent + " bytes");
                assertEquals("tr-TR@17 title", client.string("title"));
            }
        }
        assertKept(client);
    }

    @Test
    void aManifestTrickledAByteAtATimeTimesOutAtTheTimeOut() {
        RolloutClient client = onBaseline();
        hostile.put("manifests/tr-TR.json", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            for (int i = 0; i < 200; i++) {
                exchange.getResponseBody().write('{');
                exchange.getResponseBody().flush();
                Thread.sleep(100);
            }
        });
        long started = System.nanoTime();
        assertEquals(FailureReason.TIMED_OUT, reason(client.refresh(true)));
        assertTrue((System.nanoTime() - started) / 1_000_000L < 8000, "one time-out, not the server's 20 s");
        assertKept(client);
    }

    @Test
    void statusesRedirectsAndResetsAreTheirReasons() {
        RolloutClient client = onBaseline();
        Object[][] cases = {
            {"index.json", FailureReason.REDIRECT_REFUSED, (Handler) e -> redirect(e, "http://example.com/app/index.json")},
            {"index.json", FailureReason.REDIRECT_REFUSED, (Handler) e -> redirect(e, "file:///etc/passwd")},
            {"index.json", FailureReason.REDIRECT_REFUSED, (Handler) e -> redirect(e, "/app/index.json")},
            {"manifests/tr-TR.json", FailureReason.HTTP_STATUS, (Handler) e -> e.sendResponseHeaders(500, -1)},
            {"manifests/tr-TR.json.sig", FailureReason.NOT_FOUND, (Handler) e -> e.sendResponseHeaders(410, -1)},
            {"packs/tr-TR/18.b476f767fbc46e37.json", FailureReason.REDIRECT_REFUSED,
                    (Handler) e -> e.sendResponseHeaders(304, -1)},
        };
        for (Object[] c : cases) {
            hostile.clear();
            hostile.put((String) c[0], (Handler) c[2]);
            RefreshResult result = client.refresh(true);
            assertEquals(c[1], reason(result), c[0] + ": " + result);
            assertEquals("tr-TR@17 title", client.string("title"));
        }
        assertKept(client);
    }

    private static void redirect(HttpExchange exchange, String location) throws IOException {
        exchange.getResponseHeaders().set("Location", location);
        exchange.sendResponseHeaders(302, -1);
    }
}
