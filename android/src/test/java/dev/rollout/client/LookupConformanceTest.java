package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The kit's lookup.json: each locale of the chain gives its pack, then its bundled strings, before the next. */
class LookupConformanceTest {
    @Test
    void eachLocaleOfTheChainGivesItsPackThenItsBundledStrings() {
        Map<String, Object> file = Fixtures.kit("lookup.json");
        MemorySite site = new MemorySite().serve(file.get("site"));
        Map<String, Object> device = Json.object(file.get("device"));
        List<Map<String, Object>> cases = Fixtures.cases(file, "cases", 4);
        for (Map<String, Object> c : cases) {
            String name = MemorySite.text(c.get("name"));
            RolloutClient client = site.client(MemorySite.bundled(file.get("bundled")), MemorySite.scratch("lookup"),
                    MemorySite.text(file.get("publicKey")), device, MemorySite.text(c.get("locale")),
                    site.options(device).build());
            RefreshResult result = client.refresh(true);
            assertEquals(RefreshResult.Kind.STAGED, result.kind(), name + ": " + result);
            client.activatePending();
            assertEquals(MemorySite.text(c.get("expected")), client.string(MemorySite.text(c.get("key"))), name);
        }
    }
}
