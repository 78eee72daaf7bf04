package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A process killed at any point of a refresh, an activation or a start leaves the old packs or the
 * new ones, whole: the next start shows every string from one of them, never a mix, finds no
 * temporary file, and the next refresh finishes the job. And a full disk changes nothing.
 * The Swift client's kill sweeps (Tests/RolloutEndToEndTests, scripts/kill-harness.sh) in-process:
 * DeviceStorage's budget is where the process dies.
 */
class ActivationKillTest {
    private static final List<String> KEYS = Arrays.asList("title", "tr.key", "en.key", "bundled.key");

    private final Map<String, Object> kit = Fixtures.kit("launches.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final Map<String, Object> sites = Json.object(kit.get("sites"));
    private final MemorySite site = new MemorySite();

    private RolloutClient open(File cache, long budget) {
        RolloutClient.Options options = site.options(device).storageBudget(budget).build();
        return site.client(MemorySite.bundled(kit.get("bundled")), cache, MemorySite.text(kit.get("publicKey")), device,
                MemorySite.text(device.get("locale")), options);
    }

    private static List<String> strings(RolloutClient client) {
        List<String> texts = new ArrayList<>();
        for (String key : KEYS) texts.add(client.string(key));
        return texts;
    }

    private static List<String> ids(List<PackId> packs) {
        List<String> out = new ArrayList<>();
        for (PackId id : packs) out.add(id.toString());
        java.util.Collections.sort(out);
        return out;
    }

    private static List<String> temporaries(File cache) throws IOException {
        try (Stream<Path> paths = Files.walk(cache.toPath())) {
            return paths.map(Path::toString).filter(p -> p.contains(".tmp-")).collect(Collectors.toList());
        }
    }

    /** The step most sweeps kill: a refresh, then what it staged activated. */
    private static void refreshAndActivate(RolloutClient client) {
        client.refresh(true);
        client.activatePending();
    }

    /** A copy of the device at {@code base} after {@link #refreshAndActivate}: what a step left whole gives. */
    private RolloutClient finishedCopy(File base) {
        File done = MemorySite.scratch("kill-done");
        MemorySite.copyTree(base, done);
        RolloutClient finished = open(done, -1);
        refreshAndActivate(finished);
        return finished;
    }

    /** What the device does in the step under test; it may die anywhere in it. */
    private interface Step {
        void run(RolloutClient client);
    }

    /**
     * The cuts of a sweep: the unit before, at and after each operation the measured run completed,
     * every 97th unit between (a write cut short leaves a partial temporary file), and one past the
     * end, a process that finishes.
     */
    private static List<Long> cuts(List<Long> boundaries, long total) {
        TreeSet<Long> cuts = new TreeSet<>();
        for (long unit = 0; unit <= total; unit += 97) cuts.add(unit);
        for (long boundary : boundaries) {
            for (long d = -1; d <= 1; d++) {
                if (boundary + d >= 0 && boundary + d <= total) cuts.add(boundary + d);
            }
        }
        cuts.add(total + 1);
        return new ArrayList<>(cuts);
    }

    /**
     * Runs {@code step} from the cache at {@code base}, killed at every cut; after each, a new start
     * shows {@code before} or {@code after} whole, with no temporary file left. Returns how many cuts
     * were made.
     */
    private int sweep(File base, boolean dieInStart, Step step, List<String> before, List<String> after)
            throws IOException {
        File cache = MemorySite.scratch("kill");
        MemorySite.copyTree(base, cache);
        List<Long> boundaries = new ArrayList<>();
        long total;
        if (dieInStart) {
            // The start writes before a hook could be set: measured by what it spent of a budget, and
            // every few units cut, its few operations among them.
            RolloutClient measuring = open(cache, 1L << 40);
            total = (1L << 40) - measuring.storageBudget();
            for (long unit = 0; unit <= total; unit += unit < 24 ? 1 : 41) boundaries.add(unit);
        } else {
            RolloutClient measuring = open(cache, -1);
            measuring.storage.onOperation = boundaries::add;
            step.run(measuring);
            total = boundaries.isEmpty() ? 0 : boundaries.get(boundaries.size() - 1);
        }
        int made = 0;
        for (long cut : cuts(boundaries, total)) {
            MemorySite.copyTree(base, cache);
            boolean finished = true;
            try {
                RolloutClient dying = open(cache, dieInStart ? cut : -1);
                if (!dieInStart) dying.storageBudget(cut);
                step.run(dying);
            } catch (DeviceStorage.SimulatedCrash death) {
                finished = false;
            }
            RolloutClient reopened = open(cache, -1);
            List<String> shown = strings(reopened);
            assertTrue(shown.equals(before) || shown.equals(after), "cut at " + cut + ": " + shown);
            assertEquals(new ArrayList<String>(), temporaries(cache), "cut at " + cut + ": temporary files are cleared at start");
            if (made % 7 == 0 || !finished) {
                refreshAndActivate(reopened);
                assertEquals(after, strings(reopened), "cut at " + cut + ": the next refresh finishes the job");
            }
            made++;
        }
        return made;
    }

    /** A device on the baseline (tr-TR@17, tr@1), with the eighteen site served. */
    private File deviceOnBaseline() {
        File base = MemorySite.scratch("kill-base");
        site.serve(sites.get("baseline"));
        RolloutClient client = open(base, -1);
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind());
        client.activatePending();
        assertEquals("tr-TR@17", String.valueOf(client.activePack()));
        return base;
    }

    /** The nineteen site changes two locales (tr-TR@19 and tr@2): a round stages both or neither. */
    @Test
    void aRefreshAndActivationKilledAnywhereLeavesTheOldPacksOrTheNewOnesWhole() throws IOException {
        File base = deviceOnBaseline();
        List<String> before = strings(open(base, -1));
        site.serve(sites.get("nineteen"));
        RolloutClient finished = finishedCopy(base);
        List<String> after = strings(finished);
        assertEquals(Arrays.asList("tr-TR@19", "tr@2"), ids(finished.activePacks()));
        int cuts = sweep(base, false, ActivationKillTest::refreshAndActivate, before, after);
        assertTrue(cuts > 20, "cuts made: " + cuts);
    }

    @Test
    void aStartKilledWhilePromotingAStagedPackLeavesTheOldPackOrTheNewOneWhole() throws IOException {
        File base = deviceOnBaseline();
        List<String> before = strings(open(base, -1));
        site.serve(sites.get("eighteen"));
        assertEquals(RefreshResult.Kind.STAGED, open(base, -1).refresh(true).kind());
        File done = MemorySite.scratch("kill-done");
        MemorySite.copyTree(base, done);
        List<String> after = strings(open(done, -1));
        assertEquals("tr-TR@18", String.valueOf(open(done, -1).activePack()));
        int cuts = sweep(base, true, client -> {}, before, after);
        assertTrue(cuts > 3, "cuts made: " + cuts);
    }

    @Test
    void aRevertKilledAnywhereNeverShowsTheBlockedPackAgain() throws IOException {
        File base = deviceOnBaseline();
        site.serve(sites.get("eighteen"));
        RolloutClient onEighteen = open(base, -1);
        refreshAndActivate(onEighteen);
        List<String> before = strings(onEighteen);
        site.serve(sites.get("revert"));
        RolloutClient reverted = finishedCopy(base);
        List<String> after = strings(reverted);
        assertEquals("tr-TR@17", String.valueOf(reverted.activePack()));
        int cuts = sweep(base, false, ActivationKillTest::refreshAndActivate, before, after);
        assertTrue(cuts > 20, "cuts made: " + cuts);
    }

    @Test
    void aFullDiskFailsTheRefreshWithStorageFailedAndChangesNothing() throws IOException {
        File base = deviceOnBaseline();
        RolloutClient client = open(base, -1);
        List<String> before = strings(client);
        byte[] state = Files.readAllBytes(new File(base, DeviceState.FILE).toPath());
        site.serve(sites.get("eighteen"));
        client.spaceLeft(0);
        RefreshResult result = client.refresh(true);
        assertEquals(RefreshResult.Kind.FAILED, result.kind(), result.toString());
        assertEquals(FailureReason.STORAGE_FAILED, result.failure().reason());
        assertEquals(new ArrayList<PackId>(), client.activatePending());
        assertEquals(before, strings(client));
        assertTrue(Arrays.equals(state, Files.readAllBytes(new File(base, DeviceState.FILE).toPath())),
                "state.json is as it was");
        assertEquals(before, strings(open(base, -1)));
        assertEquals(new ArrayList<String>(), temporaries(base));

        client.spaceLeft(-1);
        assertEquals(RefreshResult.Kind.STAGED, client.refresh(true).kind(), "space again: the refresh stages 18");
        client.activatePending();
        assertEquals("tr-TR@18", String.valueOf(client.activePack()));
    }

    /** The index and manifests take effect, the packs do not fit: nothing is staged, and what was shown stays. */
    @Test
    void aDiskThatFillsDuringTheCommitStagesNothing() throws IOException {
        File base = deviceOnBaseline();
        RolloutClient client = open(base, -1);
        List<String> before = strings(client);
        site.serve(sites.get("nineteen"));
        long state = new File(base, DeviceState.FILE).length();
        client.spaceLeft(state + 256);
        RefreshResult result = client.refresh(true);
        assertEquals(RefreshResult.Kind.PARTIAL, result.kind(), result.toString());
        assertEquals(FailureReason.STORAGE_FAILED, result.failures().get(0).reason());
        assertEquals(new ArrayList<PackId>(), client.pendingPacks());
        assertEquals(new ArrayList<PackId>(), client.activatePending());
        assertEquals(before, strings(client));
        assertEquals(before, strings(open(base, -1)));
        assertEquals(new ArrayList<String>(), temporaries(base));
    }
}
