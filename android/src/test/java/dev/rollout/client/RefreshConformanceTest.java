package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The kit's refresh.json: one device through rounds of a site (staging, a replayed index, a cache
 * that mixed publishes, a bad signature, a bad pack, a revert, a kill switch), keeping its state.
 */
class RefreshConformanceTest {
    @Test
    void refreshRoundsGiveTheDeviceTheStringsTheVectorsSay() {
        Map<String, Object> file = Fixtures.kit("refresh.json");
        MemorySite site = new MemorySite();
        Map<String, Object> device = Json.object(file.get("device"));
        RolloutClient client = site.client(MemorySite.bundled(file.get("bundled")), MemorySite.scratch("refresh"),
                MemorySite.text(file.get("publicKey")), device, MemorySite.text(device.get("locale")),
                site.options(device).build());
        List<Map<String, Object>> rounds = Fixtures.cases(file, "rounds", 5);
        for (Map<String, Object> round : rounds) {
            String name = MemorySite.text(round.get("name"));
            site.serve(round.get("site"));
            RefreshResult result = client.refresh(true);
            check(result, round);
            client.activatePending();
            Map<String, Object> strings = Json.object(round.get("strings"));
            for (Map.Entry<String, Object> expected : strings.entrySet()) {
                assertEquals(MemorySite.text(expected.getValue()), client.string(expected.getKey()),
                        name + ": " + expected.getKey());
            }
        }
    }

    static String kind(RefreshResult result) {
        switch (result.kind()) {
            case STAGED:
            case UP_TO_DATE:
                return "accepted";
            case PARTIAL:
                return "partial";
            default:
                return "refused";
        }
    }

    /**
     * A round's result and reasons (refresh.json and limits.json): the kind of result, and the
     * distinct reason codes of its failures, sorted.
     */
    static void check(RefreshResult result, Map<String, Object> round) {
        String name = MemorySite.text(round.get("name"));
        assertEquals(MemorySite.text(round.get("result")), kind(result), name + ": " + result);
        TreeSet<String> reasons = new TreeSet<>();
        for (Failure failure : result.failures()) reasons.add(failure.reason().code());
        List<Object> expected = Json.array(round.get("reasons"));
        assertNotNull(expected, name + ": the kit gives the reasons");
        assertEquals(expected, new ArrayList<Object>(reasons), name + ": " + result);
    }
}
