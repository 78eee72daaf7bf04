package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * Issue 31: a redirect loop and an unreachable {@code http://[::1]:PORT} are refused with their
 * reason and a sentence of the client's own (the Swift client's wording), never the raw text of
 * the exception underneath ("java.net.ConnectException: Connection refused").
 */
class TransportMessageTest {
    private final HttpTransport transport = new HttpTransport();

    private TransportException refusal(String url) {
        return assertThrows(TransportException.class, () -> transport.fetch(URI.create(url), 100, 2000));
    }

    private static int closedPort(InetAddress address) throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, address)) {
            return socket.getLocalPort();
        }
    }

    private static void assertNoRawText(String message) {
        assertFalse(message.contains("java.net."), message);
        assertFalse(message.contains("Exception"), message);
    }

    @Test
    void aRedirectLoopIsRedirectRefusedInASentence() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/loop", exchange -> {
            exchange.getResponseHeaders().set("Location", "/loop");
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/loop";
            TransportException e = refusal(url);
            assertEquals(FailureReason.REDIRECT_REFUSED, e.reason());
            assertEquals(url + ": more than 16 redirects (a redirect loop?): the device stops following them",
                    e.getMessage());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aBodyOverItsLimitIsTooLargeInTheSwiftClientsWords() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/index.json", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write(new byte[101]);
            exchange.close();
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/index.json";
            TransportException e = refusal(url);
            assertEquals(FailureReason.TOO_LARGE, e.reason());
            assertEquals(url + ": larger than 100 bytes, the most a device reads of this file", e.getMessage());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void nothingListeningAtTheIPv6LoopbackIsUnreachableInASentence() throws IOException {
        int port = closedPort(InetAddress.getByName("::1"));
        String url = "http://[::1]:" + port + "/index.json";
        TransportException e = refusal(url);
        assertEquals(FailureReason.UNREACHABLE, e.reason());
        assertEquals(url + ": nothing accepts connections at [::1]:" + port + " (connection refused)", e.getMessage());
        assertNoRawText(e.getMessage());
    }

    @Test
    void nothingListeningAtTheIPv4LoopbackIsUnreachableInASentence() throws IOException {
        int port = closedPort(InetAddress.getByName("127.0.0.1"));
        TransportException e = refusal("http://127.0.0.1:" + port + "/index.json");
        assertEquals(FailureReason.UNREACHABLE, e.reason());
        assertTrue(e.getMessage().endsWith(": nothing accepts connections at 127.0.0.1:" + port + " (connection refused)"),
                e.getMessage());
        assertNoRawText(e.getMessage());
    }
}
