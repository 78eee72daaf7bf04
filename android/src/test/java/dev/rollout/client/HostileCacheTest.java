package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A cache directory the app, the system or another process has mangled: a file where the folder
 * should be, state.json garbage or cut short, packs moved between locales, folders where files
 * should be. The client starts on whatever still verifies (else the bundle), never throws, and the
 * next refresh repairs it.
 */
class HostileCacheTest {
    private final Map<String, Object> kit = Fixtures.kit("launches.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final Map<String, Object> sites = Json.object(kit.get("sites"));
    private final MemorySite site = new MemorySite();
    private final LaunchesConformanceTest.SettableClock clock =
            new LaunchesConformanceTest.SettableClock(Instant.parse(MemorySite.text(device.get("now"))));

    private RolloutClient launch(File cache) {
        return site.client(MemorySite.bundled(kit.get("bundled")), cache, MemorySite.text(kit.get("publicKey")), device,
                MemorySite.text(device.get("locale")), site.options(device).clock(clock).build());
    }

    /** A cache holding the baseline's packs, active: tr-TR@17 and tr@1. */
    private File baseline() {
        File cache = MemorySite.scratch("hostile-cache");
        site.serve(sites.get("baseline"));
        RolloutClient client = launch(cache);
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind());
        client.activatePending();
        assertEquals("tr-TR@17 title", client.string("title"));
        assertEquals("tr@1 key", client.string("tr.key"));
        return cache;
    }

    private void assertRepairs(File cache) {
        RolloutClient again = launch(cache);
        RefreshResult result = again.refresh(true);
        assertTrue(result.kind() == RefreshResult.Kind.STAGED || result.kind() == RefreshResult.Kind.UP_TO_DATE,
                result.toString());
        again.activatePending();
        assertEquals("tr-TR@17 title", again.string("title"));
        assertEquals("tr@1 key", again.string("tr.key"));
    }

    @Test
    void aCacheDirectoryThatIsAFileLeavesTheBundleAndRefreshesFailAsStorage() throws IOException {
        File cache = new File(MemorySite.scratch("hostile-file"), "cache");
        Files.write(cache.toPath(), "not a folder".getBytes(StandardCharsets.UTF_8));
        site.serve(sites.get("baseline"));
        RolloutClient client = launch(cache);
        assertEquals("bundled tr-TR title", client.string("title"));
        RefreshResult result = client.refresh(true);
        assertTrue(result.kind() == RefreshResult.Kind.FAILED || result.kind() == RefreshResult.Kind.PARTIAL,
                result.toString());
        FailureReason reason = result.kind() == RefreshResult.Kind.FAILED ? result.failure().reason()
                : result.failures().get(0).reason();
        assertEquals(FailureReason.STORAGE_FAILED, reason, result.toString());
        assertEquals("bundled tr-TR title", client.string("title"));
        assertEquals("not a folder", new String(Files.readAllBytes(cache.toPath()), StandardCharsets.UTF_8));
    }

    @Test
    void aStateFileOfGarbageOrCutShortStartsFromThePacksOrTheBundle() throws IOException {
        File cache = baseline();
        byte[] whole = Files.readAllBytes(new File(cache, DeviceState.FILE).toPath());
        for (byte[] mangled : Arrays.asList(Arrays.copyOf(whole, whole.length / 2), new byte[0],
                "\u0000\u0000\u0000".getBytes(StandardCharsets.UTF_8), "[]".getBytes(StandardCharsets.UTF_8),
                "{\"indexSequence\":\"x\",\"staged\":7,\"failed\":[1,2]}".getBytes(StandardCharsets.UTF_8),
                new byte[] {(byte) 0xFF, (byte) 0xFE, '{', '}'})) {
            File copy = MemorySite.scratch("hostile-state");
            MemorySite.copyTree(cache, copy);
            Files.write(new File(copy, DeviceState.FILE).toPath(), mangled);
            RolloutClient client = launch(copy);
            String title = client.string("title");
            assertTrue(title.equals("tr-TR@17 title") || title.equals("bundled tr-TR title"), title);
            assertRepairs(copy);
        }
    }

    /** A locale's slot holding another locale's pack (a file moved by hand or a bug) is not that locale's. */
    @Test
    void packsSwappedBetweenLocalesAreNotReadUnderTheWrongLocale() throws IOException {
        File cache = baseline();
        File trTR = new File(cache, Slot.ACTIVE.file("tr-TR"));
        File tr = new File(cache, Slot.ACTIVE.file("tr"));
        File aside = new File(cache, "aside");
        Files.move(trTR.toPath(), aside.toPath());
        Files.move(tr.toPath(), trTR.toPath());
        Files.move(aside.toPath(), tr.toPath());
        RolloutClient client = launch(cache);
        assertEquals("bundled tr-TR title", client.string("title"), "tr@1's title is not tr-TR's");
        assertEquals("bundled tr key", client.string("tr.key"));
        assertRepairs(cache);
    }

    @Test
    void foldersWhereFilesBelongAndFilesWhereFoldersBelongAreDamage() throws IOException {
        File cache = baseline();
        File active = new File(cache, Slot.ACTIVE.file("tr-TR"));
        Files.delete(active.toPath());
        assertTrue(active.mkdirs());
        File trFolder = new File(cache, Slot.ACTIVE.file("tr")).getParentFile();
        for (File f : trFolder.listFiles()) Files.delete(f.toPath());
        Files.delete(trFolder.toPath());
        Files.write(trFolder.toPath(), new byte[] {1, 2, 3});
        RolloutClient client = launch(cache);
        assertEquals("bundled tr-TR title", client.string("title"));
        assertEquals("bundled tr key", client.string("tr.key"));
        // packs/tr cannot become a folder: that locale's pack cannot be staged, and says why.
        RefreshResult result = client.refresh(true);
        assertEquals(RefreshResult.Kind.PARTIAL, result.kind(), result.toString());
        assertEquals(FailureReason.STORAGE_FAILED, result.failures().get(0).reason(), result.toString());
        assertEquals("bundled tr key", client.string("tr.key"));
    }

    /** The same pack file copied over a slot of the right locale, with the manifest cut off: damage, not text. */
    @Test
    void aSlotCutShortIsDropped() throws IOException {
        File cache = baseline();
        File active = new File(cache, Slot.ACTIVE.file("tr-TR"));
        byte[] whole = Files.readAllBytes(active.toPath());
        Files.write(active.toPath(), Arrays.copyOf(whole, whole.length - 3));
        RolloutClient client = launch(cache);
        assertEquals("bundled tr-TR title", client.string("title"));
        assertRepairs(cache);
        Files.copy(new File(cache, Slot.ACTIVE.file("tr")).toPath(), active.toPath(),
                StandardCopyOption.REPLACE_EXISTING);
        assertEquals("bundled tr-TR title", launch(cache).string("title"));
    }
}
