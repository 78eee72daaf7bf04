package dev.rollout.client.android;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rollout.client.BundledStrings;
import dev.rollout.client.FailureReason;
import dev.rollout.client.RefreshResult;
import dev.rollout.client.RolloutClient;
import java.io.File;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What WorkManager is told after a background refresh. */
class RolloutRefreshWorkerTest {
    static RolloutRefreshWorker.Outcome outcome(RefreshResult.Kind kind, FailureReason... reasons) {
        return RolloutRefreshWorker.outcome(kind, List.of(reasons));
    }

    @Test
    void aRoundThatEndedWellOrNeededNoRequestIsASuccess() {
        for (RefreshResult.Kind kind : new RefreshResult.Kind[] {RefreshResult.Kind.STAGED,
            RefreshResult.Kind.UP_TO_DATE, RefreshResult.Kind.TOO_SOON, RefreshResult.Kind.BUSY}) {
            assertEquals(RolloutRefreshWorker.Outcome.SUCCESS, outcome(kind), kind.toString());
        }
    }

    @Test
    void whatCanPassByItselfIsRetriedWithBackoff() {
        for (FailureReason reason : new FailureReason[] {FailureReason.UNREACHABLE, FailureReason.TIMED_OUT,
            FailureReason.HTTP_STATUS, FailureReason.NOT_FOUND, FailureReason.STORAGE_FAILED,
            FailureReason.PACK_MISMATCH}) {
            assertEquals(RolloutRefreshWorker.Outcome.RETRY, outcome(RefreshResult.Kind.FAILED, reason),
                    reason.code());
        }
        assertEquals(RolloutRefreshWorker.Outcome.RETRY,
                outcome(RefreshResult.Kind.PARTIAL, FailureReason.BAD_SIGNATURE, FailureReason.TIMED_OUT),
                "one pack timed out: the round may pass next time");
    }

    @Test
    void whatNoRetryFixesWaitsForTheNextPeriod() {
        for (FailureReason reason : new FailureReason[] {FailureReason.BAD_SIGNATURE, FailureReason.MISCONFIGURED,
            FailureReason.INSECURE_URL, FailureReason.INDEX_REPLAYED, FailureReason.EXPIRED_KEY,
            FailureReason.UNSUPPORTED_SCHEMA, FailureReason.DAMAGED, FailureReason.TOO_LARGE}) {
            assertEquals(RolloutRefreshWorker.Outcome.FAILURE, outcome(RefreshResult.Kind.FAILED, reason),
                    reason.code());
        }
    }

    /** An Application that made its client in onCreate(). */
    static final class App extends FakeContext implements RolloutClientProvider {
        final RolloutClient client;

        App(File noBackup, String site, String publicKey) {
            super(noBackup, "4.8.1");
            client = RolloutAndroid.create(new RolloutAndroid.Device(RolloutAndroid.cacheDirectory(this), "4.8.1",
                    new Locale("tr", "TR")), new BundledStrings(Collections.emptyMap()), new File(site).toURI(),
                    publicKey, RolloutClient.Options.builder().build());
        }

        @Override
        public RolloutClient rolloutClient() {
            return client;
        }
    }

    @Test
    void theWorkerRefreshesTheApplicationsClient(@TempDir Path scratch) {
        String key = "ed25519:" + "A".repeat(43) + "=";
        App offline = new App(scratch.resolve("a").toFile(), scratch.resolve("no-site/index.json").toString(), key);
        assertEquals(RolloutRefreshWorker.Outcome.RETRY, RolloutRefreshWorker.run(offline),
                "a site not there yet: " + offline.client.refresh(false));
        App misconfigured = new App(scratch.resolve("b").toFile(), scratch.resolve("site/index.json").toString(),
                "not a key");
        assertEquals(RolloutRefreshWorker.Outcome.FAILURE, RolloutRefreshWorker.run(misconfigured),
                "the app's key: " + misconfigured.client.refresh(false));
    }

    @Test
    void anApplicationWithoutAClientIsAFailure(@TempDir Path scratch) {
        assertEquals(RolloutRefreshWorker.Outcome.FAILURE,
                RolloutRefreshWorker.run(new FakeContext(scratch.toFile(), "1.0")));
    }
}
