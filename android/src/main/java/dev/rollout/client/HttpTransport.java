package dev.rollout.client;

import androidx.annotation.NonNull;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLException;

/**
 * Fetches over HttpURLConnection: https, or http to a loopback host; a file: URL is read from disk
 * (a site in a directory, for {@code rollout device} and tests). Any status but 200 fails. A
 * redirect is followed only to a URL the client would fetch itself (never a file). Reading stops at
 * the limit plus one byte, and the whole fetch, redirects included, gives up at the time-out.
 */
public final class HttpTransport implements Transport {
    /** Redirects followed at most, as browsers and URLSession do. */
    static final int MAXIMUM_REDIRECTS = 16;

    /**
     * Hangs up a connection at its fetch's deadline. A socket's read time-out bounds one read only: a
     * server that sends its status line, headers or body a byte at a time never trips it, and the
     * headers are read inside HttpURLConnection, out of reach of readLimited's own check.
     */
    private static final ScheduledThreadPoolExecutor DEADLINES = new ScheduledThreadPoolExecutor(1, daemon());
    /**
     * Where the hang-ups run: disconnect() can wait for a read in progress to return, and one such
     * wait must not hold back the deadlines of other fetches.
     */
    private static final ThreadPoolExecutor HANG_UPS =
            new ThreadPoolExecutor(4, 4, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<Runnable>(), daemon());

    static {
        // A fetch that ends in time forgets its hang-up at once, not at the deadline.
        DEADLINES.setRemoveOnCancelPolicy(true);
        HANG_UPS.allowCoreThreadTimeOut(true);
    }

    private static ThreadFactory daemon() {
        return task -> {
            Thread thread = Executors.defaultThreadFactory().newThread(task);
            thread.setName("rollout-http-deadline");
            thread.setDaemon(true);
            return thread;
        };
    }

    public HttpTransport() {}

    @Override
    @NonNull
    public byte[] fetch(@NonNull URI url, long maxBytes, int timeoutMillis) throws TransportException {
        String refusal = UrlRule.refusal(url);
        if (refusal != null) throw new TransportException(FailureReason.INSECURE_URL, refusal);
        if ("file".equalsIgnoreCase(url.getScheme())) return readFile(url, maxBytes);
        long deadline = System.nanoTime() + Math.max(1, timeoutMillis) * 1_000_000L;
        URI current = url;
        for (int redirects = 0; ; redirects++) {
            HttpURLConnection connection = open(current, deadline, timeoutMillis);
            AtomicBoolean expired = new AtomicBoolean();
            ScheduledFuture<?> hangUp = DEADLINES.schedule(() -> {
                expired.set(true);
                HANG_UPS.execute(connection::disconnect);
            }, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            try {
                int status = connection.getResponseCode();
                if (status >= 300 && status < 400) {
                    current = redirectTarget(url, current, connection.getHeaderField("Location"), redirects);
                    continue;
                }
                if (status == 404 || status == 410) {
                    throw new TransportException(FailureReason.NOT_FOUND, current + ": HTTP " + status);
                }
                if (status != 200) throw new TransportException(FailureReason.HTTP_STATUS, current + ": HTTP " + status);
                long length = connection.getContentLengthLong();
                if (length > maxBytes) throw tooLarge(current, maxBytes);
                byte[] data;
                try (InputStream body = connection.getInputStream()) {
                    data = readLimited(body, current, maxBytes, deadline, timeoutMillis);
                }
                // HttpURLConnection ends a fixed-length body cut short as if it were whole.
                if (length >= 0 && data.length != length) {
                    throw new TransportException(FailureReason.UNREACHABLE,
                            current + ": the connection closed after " + data.length + " of " + length + " bytes");
                }
                return data;
            } catch (IOException e) {
                if (expired.get()) throw timedOut(current, timeoutMillis);
                throw failure(current, e, timeoutMillis);
            } finally {
                hangUp.cancel(false);
                connection.disconnect();
            }
        }
    }

    private static HttpURLConnection open(URI url, long deadline, int timeoutMillis) throws TransportException {
        int left = remainingMillis(url, deadline, timeoutMillis);
        try {
            HttpURLConnection connection = (HttpURLConnection) url.toURL().openConnection();
            connection.setInstanceFollowRedirects(false);
            // A CDN may serve a stale manifest; the sequence checks catch that, and asking again costs little.
            connection.setUseCaches(false);
            connection.setConnectTimeout(left);
            connection.setReadTimeout(left);
            return connection;
        } catch (IOException | IllegalArgumentException e) {
            throw failure(url, e, timeoutMillis);
        }
    }

    private static URI redirectTarget(URI original, URI current, String location, int redirects)
            throws TransportException {
        // A redirect the device does not follow is the answer, and it is not the file.
        if (location == null) {
            throw new TransportException(FailureReason.REDIRECT_REFUSED, current + ": HTTP 3xx without a Location");
        }
        if (redirects >= MAXIMUM_REDIRECTS) {
            throw new TransportException(FailureReason.REDIRECT_REFUSED, original + ": more than " + MAXIMUM_REDIRECTS
                    + " redirects (a redirect loop?): the device stops following them");
        }
        URI next;
        try {
            next = current.resolve(new URI(location));
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new TransportException(FailureReason.REDIRECT_REFUSED,
                    original + ": redirected to an unreadable URL " + location);
        }
        String why = UrlRule.redirectRefusal(next);
        if (why != null) throw new TransportException(FailureReason.REDIRECT_REFUSED, original + ": redirected: " + why);
        return next;
    }

    private static int remainingMillis(URI url, long deadline, int timeoutMillis) throws TransportException {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0) throw timedOut(url, timeoutMillis);
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    private static byte[] readLimited(InputStream in, URI url, long maxBytes, long deadline, int timeoutMillis)
            throws IOException, TransportException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[16384];
        long total = 0;
        while (true) {
            if (deadline != 0) remainingMillis(url, deadline, timeoutMillis);
            if (Thread.currentThread().isInterrupted()) throw cancelled(url);
            long want = Math.min(buffer.length, maxBytes + 1 - total);
            int n = in.read(buffer, 0, (int) want);
            if (n < 0) return out.toByteArray();
            total += n;
            if (total > maxBytes) throw tooLarge(url, maxBytes);
            out.write(buffer, 0, n);
        }
    }

    private static byte[] readFile(URI url, long maxBytes) throws TransportException {
        File file;
        try {
            file = new File(url);
        } catch (IllegalArgumentException e) {
            throw new TransportException(FailureReason.NOT_FOUND, url + ": not a file path");
        }
        // A missing file is an error, as a 404 is over the network.
        if (!file.isFile()) throw new TransportException(FailureReason.NOT_FOUND, file + ": no such file");
        if (file.length() > maxBytes) throw tooLarge(url, maxBytes);
        try (InputStream in = new FileInputStream(file)) {
            return readLimited(in, url, maxBytes, 0, 0);
        } catch (IOException e) {
            throw new TransportException(FailureReason.UNREACHABLE, file + ": cannot be read", e);
        }
    }

    /**
     * What the connection threw, as a reason and a sentence of the client's own (the same as the
     * Swift client's): never the exception's raw text ("java.net.ConnectException: Connection
     * refused"), which names a class, not a cause.
     */
    private static TransportException failure(URI url, Exception e, int timeoutMillis) {
        if (e instanceof SocketTimeoutException) return timedOut(url, timeoutMillis);
        if (e instanceof InterruptedIOException || Thread.currentThread().isInterrupted()) return cancelled(url);
        String host = url.getHost() == null ? "" : url.getHost();
        String place = url.getPort() < 0 ? host : host + ":" + url.getPort();
        String why;
        if (e instanceof ConnectException) {
            why = "nothing accepts connections at " + place + " (connection refused)";
        } else if (e instanceof UnknownHostException) {
            why = "the host name " + host + " is not known (DNS lookup failed)";
        } else if (e instanceof SSLException) {
            why = "the TLS connection to " + place + " failed" + detail(e);
        } else {
            why = "no response (" + e.getClass().getSimpleName() + ")" + detail(e);
        }
        return new TransportException(FailureReason.UNREACHABLE, url + ": " + why, e);
    }

    /** ": " and the exception's message, when it has one. */
    private static String detail(Exception e) {
        String message = e.getMessage();
        return message == null || message.isEmpty() ? "" : ": " + message;
    }

    static TransportException timedOut(URI url, int timeoutMillis) {
        return new TransportException(FailureReason.TIMED_OUT, url + ": timed out after " + timeoutMillis + " ms");
    }

    static TransportException cancelled(URI url) {
        return new TransportException(FailureReason.CANCELLED, url + ": cancelled");
    }

    static TransportException tooLarge(URI url, long maxBytes) {
        return new TransportException(FailureReason.TOO_LARGE, SizeLimits.tooLarge(url, maxBytes));
    }
}
