package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A plan's experiment (docs/experiments.md) as Swift's Plan.Experiment.parse accepts and refuses it, and resolution's
 * experiment step: after the testers, before the rules (Resolution.experiment).
 */
class ExperimentPlanTest {
    static final String INSTALL_ID = "5F0C2A7E-1111-2222-3333-444455556666";
    static final String SALT = "exp-salt";

    static String variant(int contentVersion, String minApp, int from, int to) {
        return "{\"pack\": {\"contentVersion\": " + contentVersion + ", \"minAppVersion\": \"" + minApp + "\"},"
                + " \"from\": " + from + ", \"to\": " + to + "}";
    }

    static String experiment(String regions, String appVersions, String... variants) {
        return "{\"name\": \"checkout-copy\", \"salt\": \"" + SALT + "\", \"regions\": " + regions
                + ", \"appVersions\": \"" + appVersions + "\", \"variants\": [" + String.join(", ", variants) + "],"
                + " \"keys\": [\"title\", \"checkout.pay\"], \"metrics\": [\"checkout\", \"signup\"]}";
    }

    static Plan plan(String extra) throws DocumentException {
        String json = "{\"locale\": \"tr-TR\", \"baseline\": {\"contentVersion\": 17, \"minAppVersion\": \"4.0\"}"
                + (extra.isEmpty() ? "" : ", " + extra) + "}";
        return Plan.parse(json.getBytes(StandardCharsets.UTF_8), "plan.json");
    }

    private static Object parse(String json) {
        try {
            return Json.parse(json.getBytes(StandardCharsets.UTF_8));
        } catch (JsonException e) {
            throw new AssertionError(e);
        }
    }

    private static int bucket() {
        return Bucketing.bucket(INSTALL_ID, SALT);
    }

    /** Control 17 up to and including the device's bucket, treatment 18 after it: the device is in control. */
    private static String inControl() {
        return experiment("[]", "*", variant(17, "4.0", 0, bucket() + 1), variant(18, "4.0", bucket() + 1, 10000));
    }

    /** Treatment 18 from the device's bucket. */
    private static String inTreatment(String regions, String versions, String minApp) {
        return experiment(regions, versions, variant(17, "4.0", 0, bucket()), variant(18, minApp, bucket(), 10000));
    }

    private static Integer outcome(Plan plan, String region, String version) {
        return Resolution.outcome(plan, region, AppVersion.parse(version), INSTALL_ID);
    }

    @Test
    void anExperimentReadsAsSwiftWritesItWithRegionsAndKeysSorted() throws Exception {
        Plan plan = plan("\"experiment\": " + experiment("[\"TR\", \"AZ\"]", ">=4.8",
                variant(17, "4.0", 0, 5000), variant(18, "4.8", 5000, 9000)));
        Plan.Experiment e = plan.experiment;
        assertNotNull(e);
        assertEquals("checkout-copy", e.name);
        assertEquals(SALT, e.salt);
        assertEquals(Arrays.asList("AZ", "TR"), e.regions);
        assertEquals(Arrays.asList("checkout.pay", "title"), e.keys);
        assertEquals(Arrays.asList("checkout", "signup"), e.metrics, "the primary metric stays first");
        assertEquals(2, e.variants.size());
        assertEquals(17, e.control().pack.contentVersion);
        assertEquals(9000, e.variants.get(1).to);
        assertNull(plan("").experiment, "absent: no experiment");
        assertNull(plan("\"experiment\": null").experiment, "null in a plan file: no experiment");
    }

    @Test
    void anExperimentMissingAMemberOrWithoutMetricsOrWithOneVariantIsRefused() throws Exception {
        String whole = experiment("[]", "*", variant(17, "4.0", 0, 5000), variant(18, "4.0", 5000, 10000));
        String needs = "plan.json: an experiment needs name, salt, regions, appVersions, variants, keys and metrics";
        for (String member : new String[] {"name", "salt", "regions", "appVersions", "variants", "keys", "metrics"}) {
            java.util.Map<String, Object> object = Json.object(parse(whole));
            object.remove(member);
            String without = new String(Json.canonical(object), StandardCharsets.UTF_8);
            DocumentException e = assertThrows(DocumentException.class, () -> plan("\"experiment\": " + without),
                    member);
            assertEquals(needs, e.getMessage(), member);
        }
        String[] refused = {
            whole.replace("[\"checkout\", \"signup\"]", "[]"),
            whole.replace("[\"checkout\", \"signup\"]", "[1, true]"),
            experiment("[]", "*", variant(17, "4.0", 0, 10000)),
            whole.replace("\"appVersions\": \"*\"", "\"appVersions\": \"not a range\""),
            whole.replace("\"regions\": []", "\"regions\": \"TR\""),
            "[]",
        };
        for (String json : refused) {
            DocumentException e = assertThrows(DocumentException.class, () -> plan("\"experiment\": " + json), json);
            assertEquals(needs, e.getMessage());
        }
    }

    @Test
    void variantRangesMustFollowEachOtherInBucketOrderFromZeroToAtMostTenThousand() throws Exception {
        String ranges = "plan.json: experiment variants need a pack and ranges that, in bucket order, follow each"
                + " other from 0 to at most 10000";
        String[][] refused = {
            {variant(17, "4.0", 1, 5000), variant(18, "4.0", 5000, 10000)},
            {variant(17, "4.0", 0, 5000), variant(18, "4.0", 5001, 10000)},
            {variant(17, "4.0", 0, 5000), variant(18, "4.0", 4000, 10000)},
            {variant(17, "4.0", 0, 5000), variant(18, "4.0", 5000, 5000)},
            {variant(17, "4.0", 0, 5000), variant(18, "4.0", 5000, 10001)},
            {variant(17, "four", 0, 5000), variant(18, "4.0", 5000, 10000)},
            {variant(17, "4.0", 0, 5000), "{\"from\": 5000, \"to\": 10000}"},
            {variant(17, "4.0", 0, 5000), "7"},
        };
        for (String[] variants : refused) {
            String json = experiment("[]", "*", variants);
            DocumentException e = assertThrows(DocumentException.class, () -> plan("\"experiment\": " + json), json);
            assertEquals(ranges, e.getMessage());
        }
        // A split that adds up to less than 100%, and three variants.
        assertEquals(3, plan("\"experiment\": " + experiment("[]", "*", variant(17, "4.0", 0, 10),
                variant(18, "4.0", 10, 20), variant(19, "4.0", 20, 30))).experiment.variants.size());
        // The treatments first and the control last, as experiment start lays them out; the list keeps the
        // control first.
        assertEquals(5000, plan("\"experiment\": " + experiment("[]", "*", variant(17, "4.0", 5000, 10000),
                variant(18, "4.0", 0, 5000))).experiment.variants.get(0).from);
    }

    @Test
    void aManifestRefusesAnExperimentOfTheWrongTypesAsSwiftsWireSchemaDoes() throws Exception {
        Object plan = Json.parse(("{\"locale\": \"tr-TR\", \"experiment\": null}").getBytes(StandardCharsets.UTF_8));
        assertEquals("plan.experiment must be an object, not null", Wire.problem(plan, Wire.PLAN, "plan"));
        Object negative = Json.parse(("{\"locale\": \"tr-TR\", \"experiment\": " + experiment("[]", "*",
                variant(17, "4.0", 0, 5000), "{\"from\": 5000, \"to\": 0}") + "}").getBytes(StandardCharsets.UTF_8));
        assertEquals("plan.experiment.variants[1].to must be an integer from 1 to 2^53-1, not a number",
                Wire.problem(negative, Wire.PLAN, "plan"));
        Object good = Json.parse(("{\"locale\": \"tr-TR\", \"experiment\": " + inControl() + "}")
                .getBytes(StandardCharsets.UTF_8));
        assertNull(Wire.problem(good, Wire.PLAN, "plan"));
    }

    @Test
    void aDeviceInTheExperimentGetsItsVariantBeforeTheRules() throws Exception {
        String rule = "\"rules\": [{\"pack\": {\"contentVersion\": 19, \"minAppVersion\": \"4.0\"}, \"regions\": [],"
                + " \"appVersions\": \"*\", \"basisPoints\": 10000, \"salt\": \"r\"}]";
        assertEquals(Integer.valueOf(17), outcome(plan(rule + ", \"experiment\": " + inControl()), "TR", "4.8"),
                "control is a pack of its own, not the rules'");
        assertEquals(Integer.valueOf(18),
                outcome(plan(rule + ", \"experiment\": " + inTreatment("[]", "*", "4.0")), "TR", "4.8"));
        assertNotNull(Resolution.experimentVariant(plan("\"experiment\": " + inControl()), "TR",
                AppVersion.parse("4.8"), INSTALL_ID));
    }

    @Test
    void outsideTheTargetingOrEveryRangeTheRulesDecide() throws Exception {
        String rule = "\"rules\": [{\"pack\": {\"contentVersion\": 19, \"minAppVersion\": \"4.0\"}, \"regions\": [],"
                + " \"appVersions\": \"*\", \"basisPoints\": 10000, \"salt\": \"r\"}]";
        Plan regional = plan(rule + ", \"experiment\": " + inTreatment("[\"TR\"]", ">=4.8", "4.0"));
        assertEquals(Integer.valueOf(18), outcome(regional, "TR", "4.8"));
        assertEquals(Integer.valueOf(19), outcome(regional, "AZ", "4.8"), "another region");
        assertEquals(Integer.valueOf(19), outcome(regional, "TR", "4.7"), "another app version");
        assertNull(Resolution.experimentVariant(regional, "AZ", AppVersion.parse("4.8"), INSTALL_ID));
        assertTrue(bucket() >= 2, "the device's bucket leaves room below it: " + bucket());
        Plan uncovered = plan(rule + ", \"experiment\": " + experiment("[]", "*", variant(17, "4.0", 0, 1),
                variant(18, "4.0", 1, bucket())));
        assertEquals(Integer.valueOf(19), outcome(uncovered, "TR", "4.8"), "a split under 100% leaves it out");
        assertNull(Resolution.experimentVariant(uncovered, "TR", AppVersion.parse("4.8"), INSTALL_ID));
        assertEquals(Integer.valueOf(17), outcome(plan("\"experiment\": " + experiment("[]", "*",
                variant(17, "4.0", 0, 1), variant(18, "4.0", 1, bucket()))), "TR", "4.8"), "no rule: the baseline");
    }

    @Test
    void aBlockedVariantOrOneTooNewForTheAppSendsTheDeviceOnToTheRules() throws Exception {
        Plan blocked = plan("\"blocked\": [18], \"experiment\": " + inTreatment("[]", "*", "4.0"));
        assertEquals(Integer.valueOf(17), outcome(blocked, "TR", "4.8"));
        assertNull(Resolution.experimentVariant(blocked, "TR", AppVersion.parse("4.8"), INSTALL_ID));
        Plan tooNew = plan("\"experiment\": " + inTreatment("[]", "*", "5.0"));
        assertEquals(Integer.valueOf(17), outcome(tooNew, "TR", "4.8"));
        assertNull(Resolution.experimentVariant(tooNew, "TR", AppVersion.parse("4.8"), INSTALL_ID));
        assertEquals(Integer.valueOf(18), outcome(tooNew, "TR", "5.0"));
    }

    @Test
    void testersWithdrawnSegmentsAndTheKillSwitchComeFirst() throws Exception {
        java.security.MessageDigest sha = Sha256.newDigest();
        sha.update("g".getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(INSTALL_ID.getBytes(StandardCharsets.UTF_8));
        String tester = "\"testers\": [{\"group\": \"qa\", \"salt\": \"g\", \"members\": [\"" + Sha256.hex(sha.digest())
                + "\"], \"pack\": {\"contentVersion\": 20, \"minAppVersion\": \"4.0\"}}]";
        Plan withTester = plan(tester + ", \"experiment\": " + inTreatment("[]", "*", "4.0"));
        assertEquals(Integer.valueOf(20), outcome(withTester, "TR", "4.8"));
        assertNull(Resolution.experimentVariant(withTester, "TR", AppVersion.parse("4.8"), INSTALL_ID),
                "a tester who gets the candidate is not in the experiment");
        Plan blockedTester = plan(tester + ", \"blocked\": [20], \"experiment\": " + inTreatment("[]", "*", "4.0"));
        assertEquals(Integer.valueOf(18), outcome(blockedTester, "TR", "4.8"), "a tester without the candidate");
        assertNotNull(Resolution.experimentVariant(blockedTester, "TR", AppVersion.parse("4.8"), INSTALL_ID));
        Plan withdrawn = plan("\"withdrawn\": [{\"region\": \"TR\", \"appVersions\": \"*\"}], \"experiment\": "
                + inTreatment("[]", "*", "4.0"));
        assertEquals(Integer.valueOf(17), outcome(withdrawn, "TR", "4.8"));
        assertNull(Resolution.experimentVariant(withdrawn, "TR", AppVersion.parse("4.8"), INSTALL_ID));
        Plan killed = plan("\"bundledOnly\": true, \"experiment\": " + inTreatment("[]", "*", "4.0"));
        assertNull(outcome(killed, "TR", "4.8"));
        assertNull(Resolution.experimentVariant(killed, "TR", AppVersion.parse("4.8"), INSTALL_ID));
        assertNull(Resolution.experimentVariant(plan("\"experiment\": " + inControl()), "TR", null, INSTALL_ID));
    }
}
