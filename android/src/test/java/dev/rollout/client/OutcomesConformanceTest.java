package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * The kit's outcomes.json: the outcome CSV a device exports after each step (sessions, lookups of varied keys,
 * conversions, refreshes, new processes, midnight, a reset, a locale change), exactly.
 */
class OutcomesConformanceTest {
    @Test
    void everyOutcomeCaseExportsTheCsvTheVectorsSay() {
        // A kit written before experiments has no outcomes.json.
        assumeTrue(Files.exists(Fixtures.kitFolder().resolve("outcomes.json")), "the kit has no outcomes.json");
        assertTrue(LaunchesConformanceTest.replay("outcomes.json") >= 9, "the kit has its cases");
    }
}
