package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The kit's limits.json: the size limits are the kit's, and a file grown past its limit is refused
 * too-large (one of exactly its limit is read); and every reason code the kit names is a
 * FailureReason that docs/conformance.md documents.
 */
class LimitsConformanceTest {
    @Test
    void theSizeLimitsAreTheKits() {
        Map<String, Object> expected = new TreeMap<>();
        for (Map<String, Object> limit : Fixtures.objects(Fixtures.kit("limits.json").get("limits"))) {
            expected.put(MemorySite.text(limit.get("kind")), limit.get("bytes"));
        }
        Map<String, Object> ours = new TreeMap<>();
        ours.put("keys", SizeLimits.KEY_LIST);
        ours.put("signature", SizeLimits.SIGNATURE);
        ours.put("index", SizeLimits.INDEX);
        ours.put("manifest", SizeLimits.MANIFEST);
        ours.put("pack", SizeLimits.PACK);
        assertEquals(expected, ours);
    }

    @Test
    void aFileOverItsLimitIsRefusedTooLarge() {
        Map<String, Object> file = Fixtures.kit("limits.json");
        Map<String, Object> device = Json.object(file.get("device"));
        List<Map<String, Object>> cases = Fixtures.cases(file, "cases", 4);
        for (Map<String, Object> c : cases) {
            Map<String, Object> site = new LinkedHashMap<>(Json.object(file.get("site")));
            Map<String, Object> grow = Json.object(c.get("grow"));
            if (grow != null) {
                String path = MemorySite.text(grow.get("path"));
                byte[] bytes = Base64.getDecoder().decode(MemorySite.text(site.get(path)));
                byte[] grown = Arrays.copyOf(bytes, Json.integer(grow.get("bytes")).intValue());
                Arrays.fill(grown, bytes.length, grown.length, (byte) ' ');
                site.put(path, Base64.getEncoder().encodeToString(grown));
            }
            MemorySite served = new MemorySite().serve(site);
            RolloutClient client = served.client(MemorySite.bundled(file.get("bundled")), MemorySite.scratch("limits"),
                    MemorySite.text(file.get("publicKey")), device, MemorySite.text(device.get("locale")),
                    served.options(device).build());
            RefreshConformanceTest.check(client.refresh(true), c);
            client.activatePending();
            for (Map.Entry<String, Object> expected : Json.object(c.get("strings")).entrySet()) {
                assertEquals(MemorySite.text(expected.getValue()), client.string(expected.getKey()),
                        MemorySite.text(c.get("name")) + ": " + expected.getKey());
            }
        }
    }

    @Test
    void everyReasonCodeOfTheKitIsAFailureReasonAndEveryReasonIsDocumented() throws IOException {
        TreeSet<String> codes = new TreeSet<>();
        for (Map<String, Object> round : Fixtures.objects(Fixtures.kit("refresh.json").get("rounds"))) {
            for (Object code : Json.array(round.get("reasons"))) codes.add(MemorySite.text(code));
        }
        for (Map<String, Object> c : Fixtures.objects(Fixtures.kit("limits.json").get("cases"))) {
            for (Object code : Json.array(c.get("reasons"))) codes.add(MemorySite.text(code));
        }
        for (Map<String, Object> c : Fixtures.objects(Fixtures.kit("trust.json").get("cases"))) {
            String refused = Json.string(Json.object(c.get("expected")).get("refused"));
            if (refused != null) codes.add(refused);
        }
        assertTrue(codes.size() > 10, "codes: " + codes);
        List<String> unknown = new ArrayList<>();
        for (String code : codes) {
            if (FailureReason.fromCode(code) == null) unknown.add(code);
        }
        assertEquals(new ArrayList<String>(), unknown);
        String docs = new String(Files.readAllBytes(Fixtures.repo().resolve("docs/conformance.md")), StandardCharsets.UTF_8);
        for (FailureReason reason : FailureReason.values()) {
            assertNotNull(FailureReason.fromCode(reason.code()));
            assertTrue(docs.contains("| `" + reason.code() + "` |"), "docs/conformance.md has no row for " + reason.code());
        }
    }
}
