package dev.rollout.client;

import androidx.annotation.NonNull;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The crash-loop guard as the app (or {@code rollout device status}) sees it. */
public final class LaunchStatus {
    private final boolean armed;
    private final boolean succeeded;
    private final List<PackId> awaitingSuccess;
    private final long launchesSinceActivation;
    private final long failedLaunches;
    private final int launchAttempts;
    private final boolean previousLaunchFailed;
    private final List<PackId> rolledBack;
    private final long rollbacks;

    LaunchStatus(boolean armed, boolean succeeded, List<PackId> awaitingSuccess, long launchesSinceActivation,
            long failedLaunches, int launchAttempts, boolean previousLaunchFailed, List<PackId> rolledBack,
            long rollbacks) {
        this.armed = armed;
        this.succeeded = succeeded;
        this.awaitingSuccess = Collections.unmodifiableList(new ArrayList<>(awaitingSuccess));
        this.launchesSinceActivation = launchesSinceActivation;
        this.failedLaunches = failedLaunches;
        this.launchAttempts = launchAttempts;
        this.previousLaunchFailed = previousLaunchFailed;
        this.rolledBack = Collections.unmodifiableList(new ArrayList<>(rolledBack));
        this.rollbacks = rollbacks;
    }

    /** The app has called markLaunchSucceeded() once on this install, so the guard runs. */
    public boolean armed() {
        return armed;
    }

    /** This process has called markLaunchSucceeded(). */
    public boolean succeeded() {
        return succeeded;
    }

    /** Active packs no successful launch has confirmed yet (empty while not armed). */
    @NonNull
    public List<PackId> awaitingSuccess() {
        return awaitingSuccess;
    }

    /** Launches begun with those packs active, this one included (the most of any of them). */
    public long launchesSinceActivation() {
        return launchesSinceActivation;
    }

    /** Of those, launches that ended before markLaunchSucceeded(). */
    public long failedLaunches() {
        return failedLaunches;
    }

    /** Options.launchAttempts: failed launches after which a pack is rolled back. */
    public int launchAttempts() {
        return launchAttempts;
    }

    /**
     * The launch before this one ended before markLaunchSucceeded() (the client counted it as a
     * crash of its pack: a crash reporter need not report it with recordCrash()).
     */
    public boolean previousLaunchFailed() {
        return previousLaunchFailed;
    }

    /** Packs the guard rolled back, most recent last (at most 32; never activated again). */
    @NonNull
    public List<PackId> rolledBack() {
        return rolledBack;
    }

    /** Rollbacks the guard ever made on this install. */
    public long rollbacks() {
        return rollbacks;
    }

    @NonNull
    @Override
    public String toString() {
        return "LaunchStatus{armed=" + armed + ", succeeded=" + succeeded + ", awaitingSuccess=" + awaitingSuccess
                + ", launches=" + launchesSinceActivation + ", failed=" + failedLaunches + "/" + launchAttempts
                + ", previousLaunchFailed=" + previousLaunchFailed + ", rolledBack=" + rolledBack + ", rollbacks="
                + rollbacks + "}";
    }
}
