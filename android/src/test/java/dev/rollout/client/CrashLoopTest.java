package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Crash-loop protection: a pack activated since the last launch that reached its first screen is
 * rolled back when launchAttempts launches in a row end before markLaunchSucceeded(), and a killed
 * start never loses that decision.
 */
class CrashLoopTest {
    private final Map<String, Object> kit = Fixtures.kit("launches.json");
    private final Map<String, Object> device = Json.object(kit.get("device"));
    private final Map<String, Object> sites = Json.object(kit.get("sites"));
    private final MemorySite site = new MemorySite();
    private final File cache = MemorySite.scratch("crash-loop");

    private RolloutClient launch(RolloutClient.Options.Builder options) {
        return site.client(MemorySite.bundled(kit.get("bundled")), cache, MemorySite.text(kit.get("publicKey")), device,
                MemorySite.text(device.get("locale")), options.build());
    }

    private RolloutClient launch() {
        return launch(site.options(device));
    }

    /**
     * A device whose launches reached their first screen on tr-TR@17, with tr-TR@18 staged: the next
     * start activates it.
     */
    private void deviceWithEighteenStaged() {
        site.serve(sites.get("baseline"));
        RolloutClient first = launch();
        first.refresh(true);
        first.activatePending();
        first.markLaunchSucceeded();
        assertTrue(first.launchStatus().armed());
        site.serve(sites.get("eighteen"));
        RolloutClient second = launch();
        second.markLaunchSucceeded();
        assertEquals(Collections.singletonList(PackId.parse("tr-TR@18")), second.refresh(true).staged());
    }

    @Test
    void aPackThatCrashesEveryLaunchIsRolledBackAfterTwoLaunchesAndNeverComesBack() {
        deviceWithEighteenStaged();
        RolloutClient dies = launch();
        assertEquals("tr-TR@18", String.valueOf(dies.activePack()));
        assertEquals(Collections.singletonList(PackId.parse("tr-TR@18")), dies.launchStatus().awaitingSuccess());
        RolloutClient diesAgain = launch();
        assertEquals("tr-TR@18", String.valueOf(diesAgain.activePack()), "one failed launch is not a loop");
        assertEquals(1, diesAgain.launchStatus().failedLaunches());

        RolloutClient rolledBack = launch();
        assertEquals("tr-TR@17", String.valueOf(rolledBack.activePack()));
        assertEquals("tr-TR@17 title", rolledBack.string("title"));
        LaunchStatus status = rolledBack.launchStatus();
        assertTrue(status.previousLaunchFailed());
        assertEquals(Collections.singletonList(PackId.parse("tr-TR@18")), status.rolledBack());
        assertEquals(1, status.rollbacks());
        assertEquals(Collections.singletonList(PackId.parse("tr-TR@18")), rolledBack.status().failed());

        RefreshResult again = rolledBack.refresh(true);
        assertEquals(RefreshResult.Kind.UP_TO_DATE, again.kind(), "the site still offers 18: " + again);
        rolledBack.activatePending();
        assertEquals("tr-TR@17", String.valueOf(launch().activePack()), "never activated again");
    }

    @Test
    void aStartKilledWhileRollingBackNeverShowsTheFailedPackAgain() {
        deviceWithEighteenStaged();
        launch();
        launch();
        File base = MemorySite.scratch("crash-loop-base");
        MemorySite.copyTree(cache, base);
        boolean finished = false;
        int cuts = 0;
        for (long cut = 0; !finished; cut += cut < 40 ? 1 : 29, cuts++) {
            MemorySite.copyTree(base, cache);
            try {
                launch(site.options(device).storageBudget(cut));
                finished = true;
            } catch (DeviceStorage.SimulatedCrash death) {
                // The process died in its start; the next one decides again.
            }
            RolloutClient next = launch();
            assertEquals("tr-TR@17", String.valueOf(next.activePack()), "cut at " + cut);
            assertTrue(next.status().failed().contains(PackId.parse("tr-TR@18")), "cut at " + cut);
        }
        assertTrue(cuts > 10, "cuts made: " + cuts);
    }

    @Test
    void aClientThatOnlyInspectsTheCacheCountsNoLaunchAndActivatesNothing() {
        deviceWithEighteenStaged();
        for (int i = 0; i < 3; i++) {
            RolloutClient inspector = launch(site.options(device).countsLaunch(false));
            assertEquals("tr-TR@17", String.valueOf(inspector.activePack()));
            assertEquals(Arrays.asList(PackId.parse("tr-TR@18")), inspector.pendingPacks());
            assertFalse(inspector.launchStatus().previousLaunchFailed());
        }
        RolloutClient app = launch();
        assertEquals("tr-TR@18", String.valueOf(app.activePack()), "the staged pack waited for a real start");
        assertEquals(0, app.launchStatus().failedLaunches(), "inspections are not launches that died");
    }

    @Test
    void markActivePackFailedReturnsToThePreviousPackAndIsNotAGuardRollback() {
        deviceWithEighteenStaged();
        RolloutClient app = launch();
        assertEquals(PackId.parse("tr-TR@18"), app.markActivePackFailed());
        assertEquals("tr-TR@17 title", app.string("title"));
        assertEquals(0, app.launchStatus().rollbacks());
        assertEquals(PackId.parse("tr-TR@17"), app.markActivePackFailed());
        assertEquals("bundled tr-TR title", app.string("title"), "no previous pack: the bundled strings");
        assertNull(app.markActivePackFailed());
        assertNull(launch().activePack());
    }
}
