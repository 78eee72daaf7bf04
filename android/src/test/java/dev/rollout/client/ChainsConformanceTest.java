package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The conformance kit's chains.json: the locales a device of a listed or unlisted locale reads, in order. */
class ChainsConformanceTest {
    private static List<String> texts(Object value) {
        List<String> out = new ArrayList<>();
        for (Object item : Json.array(value)) out.add(Json.string(item));
        return out;
    }

    @Test
    void theChainOfListedAndUnlistedLocales() throws Exception {
        Map<String, Object> file = Fixtures.kit("chains.json");
        List<Map<String, Object>> cases = Fixtures.cases(file, "cases", 15);
        for (Map<String, Object> c : cases) {
            String indexName = Json.string(c.get("index"));
            Map<String, Object> wire = Json.object(Json.object(file.get("indexes")).get(indexName));
            assertNotNull(wire, indexName);
            Map<String, SiteIndex.Entry> entries = new LinkedHashMap<>();
            for (Map.Entry<String, Object> listed : Json.object(wire.get("locales")).entrySet()) {
                Map<String, Object> o = Json.object(listed.getValue());
                Object fallback = o.get("fallbackChain");
                entries.put(listed.getKey(), new SiteIndex.Entry(1, SiteLayout.manifest(listed.getKey()),
                        texts(o.get("chain")), fallback == null ? null : texts(fallback)));
            }
            SiteIndex index = new SiteIndex(1, 0, null, Json.string(wire.get("defaultLocale")), entries);
            String locale = Json.string(c.get("locale"));
            assertEquals(texts(c.get("chain")), index.chain(locale), indexName + " " + locale);
        }
    }
}
