package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The default transport against a hostile server on the loopback interface, written byte by byte
 * on a raw socket: headers or a body trickled a byte at a time, a body cut short or reset half-way,
 * a body far over the limit. Each fails with its reason, in time, without holding the body.
 */
class HostileHttpTest {
    interface Behaviour {
        void serve(Socket socket) throws IOException, InterruptedException;
    }

    private ServerSocket listener;
    private Thread acceptor;
    private volatile Behaviour behaviour;
    private final List<Socket> sockets = new ArrayList<>();
    private final HttpTransport transport = new HttpTransport();

    @BeforeEach
    void start() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                Socket socket;
                try {
                    socket = listener.accept();
                } catch (IOException e) {
                    return;
                }
                synchronized (sockets) {
                    sockets.add(socket);
                }
                Thread worker = new Thread(() -> {
                    try (Socket s = socket) {
                        readRequest(s.getInputStream());
                        behaviour.serve(s);
                    } catch (IOException | InterruptedException ignored) {
                        // The client hung up: what the test is about.
                    }
                });
                worker.setDaemon(true);
                worker.start();
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void stop() throws IOException {
        listener.close();
        synchronized (sockets) {
            for (Socket socket : sockets) socket.close();
        }
    }

    private static void readRequest(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        while (matched < end.length) {
            int b = in.read();
            if (b < 0) throw new IOException("no request");
            matched = b == end[matched] ? matched + 1 : (b == end[0] ? 1 : 0);
        }
    }

    private static void write(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static void trickle(Socket socket, byte[] bytes, long pauseMillis, long forMillis)
            throws IOException, InterruptedException {
        OutputStream out = socket.getOutputStream();
        long until = System.currentTimeMillis() + forMillis;
        for (int i = 0; System.currentTimeMillis() < until; i++) {
            out.write(bytes[i % bytes.length]);
            out.flush();
            Thread.sleep(pauseMillis);
        }
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort() + path);
    }

    private FailureReason refusal(String path, long limit, int timeoutMillis) {
        return assertThrows(TransportException.class, () -> transport.fetch(url(path), limit, timeoutMillis)).reason();
    }

    /** Status line and headers a byte every 100 ms: no single read times out, the fetch must. */
    @Test
    void headersTrickledAByteAtATimeTimeOutAtTheTimeOut() {
        behaviour = socket -> trickle(socket, "HTTP/1.1 200 OK\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII),
                100, 15_000);
        long started = System.nanoTime();
        assertEquals(FailureReason.TIMED_OUT, refusal("/index.json", 1000, 1000));
        long took = (System.nanoTime() - started) / 1_000_000L;
        // Generous for a loaded machine, and far short of the server's 15 s.
        assertTrue(took < 6000, "gave up at the time-out, not when the server stopped: " + took + " ms");
    }

    @Test
    void aBodyTrickledAByteAtATimeTimesOutAtTheTimeOut() {
        behaviour = socket -> {
            write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
            trickle(socket, new byte[] {'{'}, 100, 15_000);
        };
        long started = System.nanoTime();
        assertEquals(FailureReason.TIMED_OUT, refusal("/index.json", 1_000_000, 1000));
        long took = (System.nanoTime() - started) / 1_000_000L;
        assertTrue(took < 6000, "gave up at the time-out: " + took + " ms");
    }

    /** A body shorter than its Content-Length is not the file: the connection broke. */
    @Test
    void aBodyCutShortOfItsLengthIsUnreachable() {
        behaviour = socket -> {
            write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n");
            write(socket, "{\"a\":1}");
        };
        assertEquals(FailureReason.UNREACHABLE, refusal("/index.json", 1000, 2000));
    }

    @Test
    void aChunkedBodyCutShortIsUnreachable() {
        behaviour = socket -> {
            write(socket, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            write(socket, "64\r\n{\"a\":1}");
        };
        assertEquals(FailureReason.UNREACHABLE, refusal("/index.json", 1000, 2000));
    }

    @Test
    void aConnectionResetHalfWayIsUnreachable() {
        behaviour = socket -> {
            write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
            socket.getOutputStream().write(new byte[5000]);
            socket.getOutputStream().flush();
            Thread.sleep(100);
            socket.setSoLinger(true, 0);
            socket.close();
        };
        assertEquals(FailureReason.UNREACHABLE, refusal("/index.json", 1_000_000, 2000));
    }

    /** 300 MB chunked with no length: refused at the limit, and the memory it took is about the limit. */
    @Test
    void aHugeBodyIsRefusedAtItsLimitWithoutHoldingIt() {
        behaviour = socket -> {
            write(socket, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
            byte[] chunk = new byte[65536];
            byte[] head = (Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i < 300 * 16; i++) {
                out.write(head);
                out.write(chunk);
                out.write('\r');
                out.write('\n');
                out.flush();
                // The pace of a fast network: a loopback flood fills the socket's buffers, which the
                // JDK drains when an abandoned chunked body is closed (HostileSiteTest.endless).
                Thread.sleep(1);
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        };
        long before = allocated();
        assertEquals(FailureReason.TOO_LARGE, refusal("/packs/tr-TR/18.json", SizeLimits.INDEX, 20_000));
        long spent = allocated() - before;
        assertTrue(spent < 16 * SizeLimits.INDEX, "allocated " + spent + " bytes for a 1 MB limit");
    }

    @Test
    void aStatedLengthOverTheLimitIsRefusedBeforeTheBody() {
        behaviour = socket -> {
            write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 314572800\r\n\r\n");
            trickle(socket, new byte[1], 100, 15_000);
        };
        long started = System.nanoTime();
        assertEquals(FailureReason.TOO_LARGE, refusal("/keys.json", SizeLimits.KEY_LIST, 10_000));
        assertTrue((System.nanoTime() - started) / 1_000_000L < 6000, "refused on the header");
    }

    /** Redirects to a plain-http host that is not loopback, spelled every way a Location can be. */
    @Test
    void redirectsAwayFromLoopbackOrToOtherSchemesAreRefused() {
        for (String location : new String[] {"//example.com/index.json", "http://example.com/index.json",
                "HTTP://EXAMPLE.COM/index.json", "http://127.0.0.1.evil.com/index.json", "ftp://127.0.0.1/index.json",
                "file:///etc/passwd", "jar:file:///x.jar!/index.json", "data:,{}"}) {
            behaviour = socket -> write(socket,
                    "HTTP/1.1 302 Found\r\nLocation: " + location + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            assertEquals(FailureReason.REDIRECT_REFUSED, refusal("/index.json", 1000, 2000), location);
        }
    }

    /** 304 with nothing cached is not the file, as URLSession reports a 3xx it did not follow. */
    @Test
    void notModifiedIsARefusedRedirectAndServerErrorsAreStatuses() {
        behaviour = socket -> write(socket, "HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n");
        assertEquals(FailureReason.REDIRECT_REFUSED, refusal("/index.json", 1000, 2000));
        behaviour = socket -> write(socket, "HTTP/1.1 206 Partial Content\r\nContent-Length: 2\r\n\r\n{}");
        assertEquals(FailureReason.HTTP_STATUS, refusal("/index.json", 1000, 2000));
        behaviour = socket -> write(socket, "HTTP/1.1 503 Busy\r\nContent-Length: 2\r\n\r\n{}");
        assertEquals(FailureReason.HTTP_STATUS, refusal("/index.json", 1000, 2000));
        behaviour = socket -> write(socket, "garbage\r\n\r\n");
        FailureReason garbage = refusal("/index.json", 1000, 2000);
        assertTrue(garbage == FailureReason.UNREACHABLE || garbage == FailureReason.HTTP_STATUS, garbage.code());
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
