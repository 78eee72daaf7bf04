package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The default transport against a real HTTP server on the loopback interface: a whole 200 body or
 * a failure with its reason (docs/conformance.md, "Failure reasons"), redirects only where the
 * device would go itself, and never more than the limit held in memory.
 */
class HttpTransportTest {
    private HttpServer server;
    private String base;
    private final AtomicInteger followed = new AtomicInteger();
    private final HttpTransport transport = new HttpTransport();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/file", exchange -> reply(exchange, 200, "hello".getBytes(StandardCharsets.UTF_8), true));
        server.createContext("/chunked", exchange -> reply(exchange, 200, new byte[100], false));
        server.createContext("/missing", exchange -> reply(exchange, 404, new byte[0], true));
        server.createContext("/gone", exchange -> reply(exchange, 410, new byte[0], true));
        server.createContext("/broken", exchange -> reply(exchange, 500, new byte[0], true));
        server.createContext("/moved", exchange -> redirect(exchange, "/file"));
        server.createContext("/away", exchange -> redirect(exchange, "http://example.com/file"));
        server.createContext("/to-file", exchange -> redirect(exchange, "file:///etc/passwd"));
        server.createContext("/loop", exchange -> redirect(exchange, "/loop"));
        server.createContext("/slow", exchange -> {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            reply(exchange, 200, new byte[1], true);
        });
        Map<String, Object> site = Json.object(Fixtures.kit("lookup.json").get("site"));
        server.createContext("/app/", exchange -> {
            String path = exchange.getRequestURI().getPath().substring("/app/".length());
            Object file = site.get(path);
            if (file == null) {
                reply(exchange, 404, new byte[0], true);
            } else {
                reply(exchange, 200, Base64.getDecoder().decode(MemorySite.text(file)), true);
            }
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void redirect(HttpExchange exchange, String location) throws IOException {
        followed.incrementAndGet();
        exchange.getResponseHeaders().set("Location", location);
        reply(exchange, 302, new byte[0], true);
    }

    private static void reply(HttpExchange exchange, int status, byte[] body, boolean length) throws IOException {
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : (length ? body.length : 0));
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private FailureReason refusal(String url, long limit) {
        return assertThrows(TransportException.class, () -> transport.fetch(URI.create(url), limit, 1000)).reason();
    }

    @Test
    void aWholeResponseIsItsBody() throws TransportException {
        assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), transport.fetch(URI.create(base + "/file"), 5, 2000));
    }

    @Test
    void statusesAreTheirReasons() {
        assertEquals(FailureReason.NOT_FOUND, refusal(base + "/missing", 100));
        assertEquals(FailureReason.NOT_FOUND, refusal(base + "/gone", 100));
        assertEquals(FailureReason.HTTP_STATUS, refusal(base + "/broken", 100));
    }

    @Test
    void aBodyOverItsLimitIsRefusedWithOrWithoutALength() {
        assertEquals(FailureReason.TOO_LARGE, refusal(base + "/file", 4));
        assertEquals(FailureReason.TOO_LARGE, refusal(base + "/chunked", 99));
    }

    @Test
    void redirectsAreFollowedOnlyWhereTheDeviceWouldGoItself() throws TransportException {
        assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), transport.fetch(URI.create(base + "/moved"), 5, 2000));
        assertEquals(FailureReason.REDIRECT_REFUSED, refusal(base + "/away", 100));
        assertEquals(FailureReason.REDIRECT_REFUSED, refusal(base + "/to-file", 100));
        followed.set(0);
        assertEquals(FailureReason.REDIRECT_REFUSED, refusal(base + "/loop", 100));
        assertTrue(followed.get() <= HttpTransport.MAXIMUM_REDIRECTS + 1, "a loop stops: " + followed.get());
    }

    @Test
    void aServerThatDoesNotAnswerInTimeIsTimedOut() {
        long started = System.nanoTime();
        assertEquals(FailureReason.TIMED_OUT, refusal(base + "/slow", 100));
        assertTrue(System.nanoTime() - started < 2_500_000_000L, "gave up at the time-out");
    }

    @Test
    void nothingListeningIsUnreachable() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        assertEquals(FailureReason.UNREACHABLE, refusal("http://127.0.0.1:" + port + "/file", 100));
    }

    @Test
    void onlyHttpsPlainHttpToALoopbackHostAndFilesAreFetched() {
        assertEquals(FailureReason.INSECURE_URL, refusal("http://example.com/index.json", 100));
        assertEquals(FailureReason.INSECURE_URL, refusal("http://127.0.0.1.evil.com/index.json", 100));
        assertEquals(FailureReason.INSECURE_URL, refusal("ftp://example.com/index.json", 100));
        for (String host : Arrays.asList("localhost", "::1", "[::1]", "127.0.0.1", "127.255.0.9")) {
            assertTrue(UrlRule.isLoopback(host), host);
        }
        for (String host : Arrays.asList("127.0.0.08", "127.0.0.1.evil.com", "128.0.0.1", "127.0.0", "127.0.0.256", "")) {
            assertFalse(UrlRule.isLoopback(host), host);
        }
    }

    @Test
    void aFileIsReadFromDiskUpToItsLimit() throws IOException, TransportException {
        File folder = MemorySite.scratch("http-file");
        File file = new File(folder, "index.json");
        Files.write(file.toPath(), "{}".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals("{}".getBytes(StandardCharsets.UTF_8), transport.fetch(file.toURI(), 2, 1000));
        assertEquals(FailureReason.TOO_LARGE, refusal(file.toURI().toString(), 1));
        assertEquals(FailureReason.NOT_FOUND, refusal(new File(folder, "none.json").toURI().toString(), 10));
        assertEquals(FailureReason.NOT_FOUND, refusal(folder.toURI().toString(), 10));
    }

    /** The kit's lookup site served over HTTP, then from a directory: the default transport stages it either way. */
    @Test
    void aClientOnTheDefaultTransportRefreshesFromAServerAndFromADirectory() throws IOException {
        Map<String, Object> file = Fixtures.kit("lookup.json");
        Map<String, Object> device = Json.object(file.get("device"));
        File directory = MemorySite.scratch("http-site");
        for (Map.Entry<String, Object> entry : Json.object(file.get("site")).entrySet()) {
            File target = new File(directory, entry.getKey());
            target.getParentFile().mkdirs();
            Files.write(target.toPath(), Base64.getDecoder().decode(MemorySite.text(entry.getValue())));
        }
        for (URI manifest : Arrays.asList(URI.create(base + "/app/index.json"), new File(directory, "index.json").toURI())) {
            RolloutClient client = new RolloutClient(MemorySite.bundled(file.get("bundled")), MemorySite.scratch("http"),
                    manifest, MemorySite.text(file.get("publicKey")), MemorySite.text(device.get("appVersion")),
                    MemorySite.text(device.get("region")), MemorySite.text(device.get("locale")),
                    RolloutClient.Options.builder().installId(MemorySite.text(device.get("installId"))).build());
            RefreshResult result = client.refresh(true);
            assertEquals(RefreshResult.Kind.STAGED, result.kind(), manifest + ": " + result);
            client.activatePending();
            assertEquals("tr-TR@17 title", client.string("title"), manifest.toString());
        }
    }
}
