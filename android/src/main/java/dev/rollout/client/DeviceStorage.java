package dev.rollout.client;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The client's cache directory: whole files written beside their final name, flushed, and renamed
 * into place, so that a process killed at any moment leaves either the old file or the new one.
 *
 * <pre>
 *   &lt;cache&gt;/install-id                 the device's install id (bucketing)
 *   &lt;cache&gt;/state.json                 index sequence, chains, blocked and failed packs
 *   &lt;cache&gt;/packs/&lt;locale&gt;/active      the pack in use, with the signed manifest that vouched for it
 *   &lt;cache&gt;/packs/&lt;locale&gt;/pending     verified, waiting for activatePending() or the next start
 *   &lt;cache&gt;/packs/&lt;locale&gt;/previous    the last good pack before active
 * </pre>
 *
 * Not thread-safe: the client calls the writing methods with its writers' lock held.
 */
final class DeviceStorage {
    /** Tests: the process "dies" here. An Error, so that no catch of the client's swallows it. */
    static final class SimulatedCrash extends Error {
        private static final long serialVersionUID = 1L;

        SimulatedCrash() {
            super("simulated process death");
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    final File directory;
    /**
     * Tests: the units (bytes, and renames and removals, one each) the process may still write
     * before it dies: the write in progress stops there and every later one throws SimulatedCrash.
     * Negative: no limit.
     */
    long budget = -1;
    /**
     * Tests: the bytes the disk has left (negative: no limit). A write that needs more fails as a
     * full disk does, with an IOException, and leaves nothing behind.
     */
    long spaceLeft = -1;
    /** Tests: told the units spent so far after each write, rename and removal completes (kill sweeps cut there). */
    java.util.function.LongConsumer onOperation;
    private long spent;

    DeviceStorage(File directory) {
        this.directory = directory;
    }

    Path path(String name) {
        return new File(directory, name).toPath();
    }

    /** The file's bytes, or null when it does not exist or cannot be read. */
    byte[] read(String name) {
        try {
            return Files.readAllBytes(path(name));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    boolean exists(String name) {
        return Files.exists(path(name));
    }

    /** The names in a folder, sorted; none when it does not exist. */
    List<String> children(String name) {
        String[] names = path(name).toFile().list();
        if (names == null) return Collections.emptyList();
        List<String> sorted = new ArrayList<>(Arrays.asList(names));
        Collections.sort(sorted);
        return sorted;
    }

    private long spend(long units) {
        if (budget == 0) throw new SimulatedCrash();
        long allowed = budget < 0 ? units : Math.min(budget, units);
        if (budget > 0) budget -= allowed;
        spent += allowed;
        return allowed;
    }

    private void done() {
        if (onOperation != null) onOperation.accept(spent);
    }

    /**
     * Writes {@code bytes} to {@code name} atomically: a temporary file beside it, fsync, rename,
     * fsync of the folder.
     */
    void write(String name, byte[] bytes) throws IOException {
        Path target = path(name);
        Path folder = target.getParent();
        Files.createDirectories(folder);
        if (spaceLeft >= 0 && bytes.length > spaceLeft) throw new IOException(target + ": No space left on device");
        Path temporary = folder.resolve(target.getFileName() + ".tmp-" + Long.toHexString(RANDOM.nextLong()));
        try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            int allowed = (int) spend(bytes.length);
            ByteBuffer buffer = ByteBuffer.wrap(bytes, 0, allowed);
            while (buffer.hasRemaining()) channel.write(buffer);
            // A dead process cleans nothing up: the partial temporary file stays for the next start.
            if (allowed < bytes.length) throw new SimulatedCrash();
            channel.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        if (spaceLeft >= 0) spaceLeft -= bytes.length;
        spend(1);
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        syncFolder(folder);
        done();
    }

    /** Renames one file over another, atomically. */
    void rename(String from, String to) throws IOException {
        spend(1);
        Path target = path(to);
        Files.move(path(from), target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncFolder(target.getParent());
        done();
    }

    void remove(String name) throws IOException {
        if (!exists(name)) return;
        spend(1);
        try {
            Files.delete(path(name));
        } catch (NoSuchFileException e) {
            // Gone already: what the caller wanted.
        }
        done();
    }

    /** What a killed process left behind: temporary files that never got their rename. */
    void removeTemporaries() {
        removeTemporaries(directory);
    }

    private static void removeTemporaries(File folder) {
        File[] entries = folder.listFiles();
        if (entries == null) return;
        for (File entry : entries) {
            if (entry.isDirectory()) {
                removeTemporaries(entry);
            } else if (entry.getName().contains(".tmp-")) {
                entry.delete();
            }
        }
    }

    /** Makes a rename durable: without it, a power cut may bring back the old name. */
    private static void syncFolder(Path folder) {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | RuntimeException e) {
            // Some file systems cannot open a folder; the rename stands, only its durability is weaker.
        }
    }
}
