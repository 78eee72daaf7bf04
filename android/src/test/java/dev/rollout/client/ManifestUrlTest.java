package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The site's address as the app gives it: a name that needs percent-encoding still finds its .sig. */
class ManifestUrlTest {
    @Test
    void anIndexWhoseNameIsPercentEncodedIsFetchedWithItsSignature() {
        Map<String, Object> kit = Fixtures.kit("launches.json");
        Map<String, Object> device = Json.object(kit.get("device"));
        MemorySite site = new MemorySite().serve(Json.object(kit.get("sites")).get("baseline"));
        site.put("index v2.json", site.file("index.json")).put("index v2.json.sig", site.file("index.json.sig"));
        File cache = MemorySite.scratch("manifest-url");
        RolloutClient client = new RolloutClient(MemorySite.bundled(kit.get("bundled")), cache,
                URI.create("https://site.example/app/index%20v2.json"), MemorySite.text(kit.get("publicKey")),
                MemorySite.text(device.get("appVersion")), MemorySite.text(device.get("region")),
                MemorySite.text(device.get("locale")), site.options(device).build());
        RefreshResult result = client.refresh(true);
        assertEquals(RefreshResult.Kind.STAGED, result.kind(), String.valueOf(result));
    }
}
