package dev.rollout.client;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A site served from memory under https://site.example/app/ (any path the files do not hold is a
 * 404), and the conformance kit's files, for the tests of the client.
 */
final class MemorySite implements Transport {
    static final URI MANIFEST_URL = URI.create("https://site.example/app/index.json");

    private volatile Map<String, byte[]> files = Collections.emptyMap();
    final AtomicInteger requests = new AtomicInteger();
    /** Tests: called before each fetch (to block, to count, to fail). */
    volatile Hook hook;

    interface Hook {
        void before(URI url) throws TransportException;
    }

    MemorySite() {}

    /** Serves a kit vector's {@code site} member: path to base64 bytes. */
    MemorySite serve(Object site) {
        Map<String, byte[]> decoded = new HashMap<>();
        Map<String, Object> o = Json.object(site);
        if (o != null) {
            for (Map.Entry<String, Object> entry : o.entrySet()) {
                decoded.put(entry.getKey(), Base64.getDecoder().decode(Json.string(entry.getValue())));
            }
        }
        files = decoded;
        return this;
    }

    MemorySite put(String path, byte[] bytes) {
        Map<String, byte[]> next = new HashMap<>(files);
        next.put(path, bytes);
        files = next;
        return this;
    }

    byte[] file(String path) {
        return files.get(path);
    }

    @Override
    public byte[] fetch(URI url, long maxBytes, int timeoutMillis) throws TransportException {
        requests.incrementAndGet();
        Hook h = hook;
        if (h != null) h.before(url);
        String path = url.getPath().replaceFirst("^/app/", "");
        byte[] bytes = files.get(path);
        if (bytes == null) throw new TransportException(FailureReason.NOT_FOUND, url + ": HTTP 404");
        if (bytes.length > maxBytes) throw new TransportException(FailureReason.TOO_LARGE, url + ": over " + maxBytes);
        return bytes.clone();
    }

    // The conformance kit

    static String text(Object value) {
        String s = Json.string(value);
        return s == null ? "" : s;
    }

    /** A kit's {@code bundled} member: locale to key to text. */
    static BundledStrings bundled(Object value) {
        Map<String, Map<String, String>> strings = new HashMap<>();
        Map<String, Object> o = Json.object(value);
        if (o != null) {
            for (Map.Entry<String, Object> locale : o.entrySet()) {
                Map<String, String> table = new HashMap<>();
                for (Map.Entry<String, Object> e : Json.object(locale.getValue()).entrySet()) {
                    table.put(e.getKey(), text(e.getValue()));
                }
                strings.put(locale.getKey(), table);
            }
        }
        return new BundledStrings(strings);
    }

    private static final List<File> SCRATCH = Collections.synchronizedList(new ArrayList<File>());

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (SCRATCH) {
                for (File directory : SCRATCH) {
                    try {
                        deleteTree(directory.toPath());
                    } catch (IOException e) {
                        // Left for the system's temporary directory cleaner.
                    }
                }
            }
        }));
    }

    /** A fresh, empty cache directory under the system's temporary one, deleted when the tests end. */
    static File scratch(String name) {
        try {
            File directory = Files.createTempDirectory("rollout-" + name + "-").toFile();
            SCRATCH.add(directory);
            return directory;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Replaces {@code to} with a copy of the directory tree {@code from} (a cache copied between runs). */
    static void copyTree(File from, File to) {
        try {
            deleteTree(to.toPath());
            try (Stream<Path> paths = Files.walk(from.toPath())) {
                for (Path path : paths.collect(Collectors.toList())) {
                    Path target = to.toPath().resolve(from.toPath().relativize(path).toString());
                    if (Files.isDirectory(path)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> paths = Files.walk(root)) {
            List<Path> all = paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).collect(Collectors.toList());
            for (Path path : all) Files.delete(path);
        }
    }

    /** Options for a kit device ({@code device} member) fetching from this site. */
    RolloutClient.Options.Builder options(Map<String, Object> device) {
        return RolloutClient.Options.builder().transport(this).installId(text(device.get("installId")))
                .defaultLocale(text(device.get("defaultLocale")));
    }

    /** A client for a kit device, on a pinned key. */
    RolloutClient client(BundledStrings bundled, File cache, String publicKey, Map<String, Object> device,
            String locale, RolloutClient.Options options) {
        return new RolloutClient(bundled, cache, MANIFEST_URL, publicKey, text(device.get("appVersion")),
                text(device.get("region")), locale, options);
    }
}
