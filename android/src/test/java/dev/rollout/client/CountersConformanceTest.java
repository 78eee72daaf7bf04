package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The kit's counters.json: the CSVs a device exports after each step, exactly. */
class CountersConformanceTest {
    @Test
    void everyCounterCaseExportsTheCsvsTheVectorsSay() {
        assertTrue(LaunchesConformanceTest.replay("counters.json") >= 6, "the kit has its cases");
    }
}
