package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit's documents.json: indexes and manifests are accepted or refused as the wire rules say, and a
 * refusal names the file, since the device prints it.
 */
class DocumentsConformanceTest {
    @Test
    void indexesAndManifestsAreAcceptedOrRefusedAsTheWireRulesSay() throws Exception {
        List<Map<String, Object>> cases = Fixtures.cases(Fixtures.kit("documents.json"), "cases", 30);
        int refused = 0;
        for (Map<String, Object> c : cases) {
            String kind = Json.string(c.get("kind"));
            String name = kind + ": " + Json.string(c.get("name"));
            byte[] document = Json.string(c.get("document")).getBytes(StandardCharsets.UTF_8);
            boolean isIndex = kind.equals("index");
            String source = isIndex ? "index.json" : "manifests/tr-TR.json";
            String refusal = null;
            try {
                if (isIndex) {
                    SiteIndex.parse(document, source);
                } else {
                    LocaleManifest.parse(document, source);
                }
            } catch (DocumentException e) {
                refusal = e.getMessage();
            }
            assertEquals(Json.bool(c.get("accepted")), refusal == null, name + ": " + refusal);
            if (refusal != null) {
                refused++;
                assertTrue(refusal.startsWith(source + ":"), name + ": the message names the file: " + refusal);
            }
        }
        assertTrue(refused > 15, "the kit refuses documents: " + refused);
    }

    @Test
    void anAcceptedManifestGivesItsPlanPacksAndBundleOnlyPatterns() throws Exception {
        StringBuilder digest = new StringBuilder();
        for (int i = 0; i < 32; i++) digest.append("ab");
        String sha = digest.toString();
        String manifest = "{\"format\": \"rollout-manifest/1\", \"locale\": \"tr-TR\", \"sequence\": 4,"
                + " \"time\": \"2026-11-30T05:12:25Z\", \"bundleOnly\": [\"legal.*\"],"
                + " \"plan\": {\"locale\": \"tr-TR\", \"baseline\": {\"contentVersion\": 17, \"minAppVersion\": \"4.8\"},"
                + " \"rules\": [{\"pack\": {\"contentVersion\": 18, \"minAppVersion\": \"4.8\"}, \"regions\": [\"TR\"],"
                + " \"appVersions\": \">=4.8\", \"basisPoints\": 10000, \"salt\": \"s\"}]},"
                + " \"packs\": {\"17\": {\"url\": \"packs/tr-TR/17." + sha.substring(0, 16) + ".json\", \"bytes\": 10,"
                + " \"sha256\": \"" + sha + "\", \"checksum\": \"sha256:" + sha + "\", \"minAppVersion\": \"4.8\","
                + " \"schemaVersion\": 2}}}";
        LocaleManifest parsed = LocaleManifest.parse(manifest.getBytes(StandardCharsets.UTF_8), "manifests/tr-TR.json");
        assertEquals(4, parsed.sequence);
        assertEquals(1_796_015_545L, parsed.time);
        assertEquals(10, parsed.packs.get(17).bytes);
        assertTrue(parsed.bundleOnly.matches("legal.terms"));
        assertEquals(Integer.valueOf(18), Resolution.outcome(parsed.plan, "TR", AppVersion.parse("4.9"), "x"));
        assertEquals(Integer.valueOf(17), Resolution.outcome(parsed.plan, "VN", AppVersion.parse("4.9"), "x"));
    }
}
