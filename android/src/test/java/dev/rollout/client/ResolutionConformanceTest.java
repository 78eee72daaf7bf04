package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit's resolution.json: every device resolves each plan as the Swift client does, including plans
 * with ranges a device cannot read.
 */
class ResolutionConformanceTest {
    @Test
    void everyPlanResolvesAsTheVectorsSayIncludingRangesADeviceCannotRead() throws Exception {
        Map<String, Object> file = Fixtures.kit("resolution.json");
        Map<String, Plan> plans = new HashMap<>();
        for (Map.Entry<String, Object> wire : Json.object(file.get("plans")).entrySet()) {
            Object readable = LocaleManifest.readableRanges(wire.getValue()).plan;
            plans.put(wire.getKey(), Plan.parse(readable, wire.getKey()));
        }
        List<Map<String, Object>> cases = Fixtures.cases(file, "cases", 300);
        int experimentCases = 0;
        int inExperiment = 0;
        for (Map<String, Object> c : cases) {
            Plan plan = plans.get(Json.string(c.get("plan")));
            assertNotNull(plan, c.toString());
            Integer outcome = Resolution.outcome(plan, Json.string(c.get("region")),
                    AppVersion.parse(Json.string(c.get("appVersion"))), Json.string(c.get("installId")));
            Long expected = Json.integer(c.get("contentVersion"));
            assertEquals(expected == null ? null : (int) (long) expected, outcome, c.toString());
            // The variant the device is in (the one step 4 gave it), in kits that have experiments.
            if (!c.containsKey("experimentVariant")) continue;
            experimentCases++;
            Plan.Experiment.Variant variant = Resolution.experimentVariant(plan, Json.string(c.get("region")),
                    AppVersion.parse(Json.string(c.get("appVersion"))), Json.string(c.get("installId")));
            Long expectedVariant = Json.integer(c.get("experimentVariant"));
            assertEquals(expectedVariant == null ? null : (int) (long) expectedVariant,
                    variant == null ? null : variant.pack.contentVersion, "in experiment: " + c);
            if (variant != null) inExperiment++;
        }
        if (experimentCases > 0) {
            assertEquals(cases.size(), experimentCases, "every case says which variant the device is in");
            assertTrue(inExperiment > 0, "some devices are in an experiment");
        }
    }

    @Test
    void theKitHasRangesADeviceCannotReadAndTheyAreNotedWithoutChangingThePlan() throws Exception {
        Map<String, Object> file = Fixtures.kit("resolution.json");
        int unreadable = 0;
        for (Object wire : Json.object(file.get("plans")).values()) {
            byte[] before = Json.canonical(wire);
            unreadable += LocaleManifest.readableRanges(wire).unreadableRanges.size();
            assertEquals(new String(before, StandardCharsets.UTF_8), new String(Json.canonical(wire),
                    StandardCharsets.UTF_8), "the wire plan is left as it was");
        }
        assertTrue(unreadable >= 2, "the rule and the withdrawn segment of the kit: " + unreadable);
    }

    private static Plan plan(String json) throws Exception {
        return Plan.parse(json.getBytes(StandardCharsets.UTF_8), "plan.json");
    }

    @Test
    void theKillSwitchAndAnAppVersionThatIsNotNumericGiveNothing() throws Exception {
        String baseline = "\"baseline\": {\"contentVersion\": 17, \"minAppVersion\": \"4.8\"}";
        assertEquals(Integer.valueOf(17), Resolution.outcome(plan("{\"locale\": \"tr-TR\", " + baseline + "}"),
                "TR", AppVersion.parse("4.8"), "id"));
        assertNull(Resolution.outcome(plan("{\"locale\": \"tr-TR\", " + baseline + ", \"bundledOnly\": true}"),
                "TR", AppVersion.parse("4.8"), "id"));
        assertNull(Resolution.outcome(plan("{\"locale\": \"tr-TR\", " + baseline + "}"), "TR", null, "id"));
    }

    @Test
    void aDeviceTooOldForTheBaselineGetsTheNewestEarlierOneItCanRun() throws Exception {
        Plan plan = plan("{\"locale\": \"tr-TR\", \"baseline\": {\"contentVersion\": 19, \"minAppVersion\": \"5.0\"},"
                + " \"previousBaselines\": [{\"contentVersion\": 18, \"minAppVersion\": \"4.9\"},"
                + " {\"contentVersion\": 17, \"minAppVersion\": \"4.0\"}], \"blocked\": [18]}");
        assertEquals(Integer.valueOf(19), Resolution.outcome(plan, "TR", AppVersion.parse("5.1"), "id"));
        assertEquals(Integer.valueOf(17), Resolution.outcome(plan, "TR", AppVersion.parse("4.9"), "id"));
        assertNull(Resolution.outcome(plan, "TR", AppVersion.parse("3.9"), "id"));
    }

    @Test
    void onlyTheMostSpecificRuleThatTargetsADeviceDecides() throws Exception {
        // TR devices are outside the TR rule's 0%; the every-region rule at 100% is not theirs, so the baseline is.
        Plan plan = plan("{\"locale\": \"tr-TR\", \"baseline\": {\"contentVersion\": 17, \"minAppVersion\": \"4.0\"},"
                + " \"rules\": [{\"pack\": {\"contentVersion\": 18, \"minAppVersion\": \"4.0\"}, \"regions\": [],"
                + " \"appVersions\": \"*\", \"basisPoints\": 10000, \"salt\": \"s\"},"
                + " {\"pack\": {\"contentVersion\": 18, \"minAppVersion\": \"4.0\"}, \"regions\": [\"TR\"],"
                + " \"appVersions\": \"*\", \"basisPoints\": 0, \"salt\": \"s\"}]}");
        assertEquals(Integer.valueOf(17), Resolution.outcome(plan, "TR", AppVersion.parse("4.8"), "id"));
        assertEquals(Integer.valueOf(18), Resolution.outcome(plan, "VN", AppVersion.parse("4.8"), "id"));
    }
}
