// bench/client-reads-jvm: how long one string() call of the Java client (android/) takes while the client refreshes,
// activates and switches locale against a real published site (a directory, through the client's file: transport),
// against the named peer in the same run: a HashMap behind a ReentrantLock doing the same lookups on the same threads.
// The JVM counterpart of bench/client-reads (docs/performance.md, "Client reads while refreshing").
//
// Eight reader threads read in bursts (50 calls, then 2 ms idle: a screen being built, not a busy loop), timing each
// call with System.nanoTime. After a warm-up (the JIT compiles the lookup paths, as they are on a device that has
// run a while), three phases of SECONDS each: the peer; the client idle; the client while a writer thread loops
// refresh(true), activatePending() and setLocale() between tr-TR and vi-VN.
//
// Usage: java -cp CLASSES BenchReads SITE_DIR PUBLIC_KEY [SECONDS]
import dev.rollout.client.BundledStrings;
import dev.rollout.client.RefreshResult;
import dev.rollout.client.RolloutClient;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.stream.Stream;

public final class BenchReads {
    private BenchReads() {}

    /** Call durations in nanoseconds: 10 ns buckets up to 100 µs (a HashMap lookup takes tens), 10 µs to 1 s. */
    static final class Histogram {
        final long[] fine = new long[10_000];
        final long[] coarse = new long[100_000];
        long count;
        long maximum;

        void add(long ns) {
            count++;
            maximum = Math.max(maximum, ns);
            if (ns < 100_000) {
                fine[(int) (ns / 10)]++;
            } else {
                coarse[(int) Math.min(ns / 10_000, coarse.length - 1)]++;
            }
        }

        synchronized void merge(Histogram other) {
            for (int i = 0; i < fine.length; i++) fine[i] += other.fine[i];
            for (int i = 0; i < coarse.length; i++) coarse[i] += other.coarse[i];
            count += other.count;
            maximum = Math.max(maximum, other.maximum);
        }

        /** The upper edge of the bucket holding the {@code q} quantile. */
        long quantile(double q) {
            long rank = (long) Math.ceil(count * q);
            long seen = 0;
            for (int i = 0; i < fine.length; i++) {
                seen += fine[i];
                if (seen >= rank) return (i + 1) * 10L;
            }
            for (int i = 0; i < coarse.length; i++) {
                seen += coarse[i];
                if (seen >= rank) return (i + 1) * 10_000L;
            }
            return maximum;
        }
    }

    static final String[] KEYS = {
        "home.title", "home.banner", "checkout.retry", "profile.greeting", "files.count", "cart.items", "no.such.key",
    };

    @SuppressWarnings({"unchecked", "rawtypes"})
    static final Map<String, String>[] ARGUMENTS = new Map[KEYS.length];

    static {
        for (int i = 0; i < KEYS.length; i++) ARGUMENTS[i] = new HashMap<>();
        ARGUMENTS[3].put("name", "Ada");
        ARGUMENTS[4].put("count", "3");
        ARGUMENTS[5].put("1", "3");
    }

    static int readers = 8;

    /** Runs {@code read} on the reader threads for {@code seconds}, while {@code writer} (if any) runs on another. */
    static Histogram measure(double seconds, IntFunction<String> read, Runnable writer, AtomicBoolean stop)
            throws InterruptedException {
        Histogram total = new Histogram();
        CountDownLatch done = new CountDownLatch(readers + (writer == null ? 0 : 1));
        for (int thread = 0; thread < readers; thread++) {
            final int start = thread;
            Thread reader = new Thread(() -> {
                Histogram local = new Histogram();
                long sink = 0;
                int i = start;
                while (!stop.get()) {
                    for (int n = 0; n < 50; n++) {
                        long begin = System.nanoTime();
                        sink += read.apply(i).length();
                        local.add(System.nanoTime() - begin);
                        i++;
                    }
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        break;
                    }
                }
                if (sink == 0) System.out.println("no text read");
                total.merge(local);
                done.countDown();
            });
            reader.start();
        }
        if (writer != null) {
            new Thread(() -> {
                writer.run();
                done.countDown();
            }).start();
        }
        Thread.sleep((long) (seconds * 1000));
        stop.set(true);
        done.await();
        return total;
    }

    static String us(long ns) {
        return String.format("%9.2f", ns / 1_000.0);
    }

    static void row(String label, Histogram h) {
        System.out.println(String.format("%-36s %9d ", label, h.count) + us(h.quantile(0.5)) + " "
                + us(h.quantile(0.99)) + " " + us(h.quantile(0.999)) + " " + us(h.maximum));
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: BenchReads SITE_DIR PUBLIC_KEY [SECONDS]");
            System.exit(64);
        }
        File site = new File(args[0], "index.json");
        String publicKey = args[1];
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 10;
        String readersText = System.getenv("READERS");
        if (readersText != null) readers = Integer.parseInt(readersText);

        Map<String, Map<String, String>> bundled = new HashMap<>();
        Map<String, String> en = new HashMap<>();
        en.put("home.title", "Welcome (bundled)");
        en.put("home.banner", "Sale (bundled)");
        en.put("checkout.retry", "Try again (bundled)");
        bundled.put("en-US", en);
        Map<String, String> tr = new HashMap<>();
        tr.put("home.title", "Hoş geldin (paket içi)");
        tr.put("checkout.retry", "Tekrar dene (paket içi)");
        tr.put("home.banner", "İndirim (paket içi)");
        bundled.put("tr-TR", tr);

        Path cache = Files.createTempDirectory("rollout-bench-client-jvm");
        try {
            RolloutClient.Options options = RolloutClient.Options.builder().installId("bench-device").build();
            RolloutClient client = new RolloutClient(new BundledStrings(bundled), cache.toFile(), site.toURI(),
                    publicKey, "4.8.1", "TR", "tr-TR", options);
            RefreshResult first = client.refresh(true);
            client.activatePending();
            if (client.activePack() == null) {
                System.out.println("the first refresh gave the device no pack: " + first);
                System.exit(3);
            }
            // The peer: the same keys in one HashMap behind a lock, the argument-free part of a lookup.
            Map<String, String> table = new HashMap<>(tr);
            table.put("profile.greeting", "Merhaba, Ada!");
            table.put("files.count", "3 dosya");
            table.put("cart.items", "3 ürün");
            ReentrantLock lock = new ReentrantLock();
            IntFunction<String> peerRead = i -> {
                lock.lock();
                try {
                    return table.getOrDefault(KEYS[i % KEYS.length], "…");
                } finally {
                    lock.unlock();
                }
            };
            IntFunction<String> clientRead = i -> client.string(KEYS[i % KEYS.length], ARGUMENTS[i % KEYS.length]);

            // Warm-up: both paths compiled by the JIT before anything is measured.
            measure(Math.min(3, seconds), peerRead, null, new AtomicBoolean());
            measure(Math.min(3, seconds), clientRead, null, new AtomicBoolean());

            Histogram peer = measure(seconds, peerRead, null, new AtomicBoolean());
            Histogram idle = measure(seconds, clientRead, null, new AtomicBoolean());
            Map<String, Integer> results = new TreeMap<>();
            int[] flips = {0};
            AtomicBoolean stop = new AtomicBoolean();
            Histogram busy = measure(seconds, clientRead, () -> {
                while (!stop.get()) {
                    RefreshResult result = client.refresh(true);
                    results.merge(result.kind().toString(), 1, Integer::sum);
                    client.activatePending();
                    client.setLocale(flips[0] % 2 == 0 ? "vi-VN" : "tr-TR");
                    flips[0]++;
                }
            }, stop);

            System.out.println("jvm: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                    + ", " + Runtime.getRuntime().availableProcessors() + " cores");
            System.out.println("readers: " + readers + " threads, bursts of 50 calls then 2 ms idle, " + seconds
                    + " s a phase (after a warm-up)");
            System.out.println("writer: " + flips[0] + " rounds of refresh(true) + activatePending + setLocale: "
                    + results);
            System.out.println(
                    "what                                     calls    p50 µs    p99 µs  p99.9 µs    max µs");
            row("peer: HashMap behind a ReentrantLock", peer);
            row("string(), client idle", idle);
            row("string(), while refreshing", busy);
            double[] ratios = new double[3];
            double[] quantiles = {0.5, 0.99, 0.999};
            for (int i = 0; i < 3; i++) {
                ratios[i] = (double) busy.quantile(quantiles[i]) / peer.quantile(quantiles[i]);
            }
            System.out.println(String.format(
                    "INFO client-reads-jvm while refreshing / peer HashMap+lock: p50 %.1fx, p99 %.1fx, p99.9 %.1fx",
                    ratios[0], ratios[1], ratios[2]));
            double tail = busy.quantile(0.999) / 1_000_000.0;
            System.out.println(String.format(
                    "INFO client-reads-jvm p99.9 while refreshing: %.3f ms (the Swift client's goal: under 1 ms)",
                    tail));
        } finally {
            try (Stream<Path> walk = Files.walk(cache)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                System.err.println("warning: " + cache + " left behind: " + e.getMessage());
            }
        }
        System.exit(0);
    }
}
