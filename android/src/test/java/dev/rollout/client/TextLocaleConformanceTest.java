package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * formatting.json's lookups (docs/conformance.md): text is formatted in the locale of the pack or
 * bundle it came from, not the device's (a uk-UA device showing English shows "21 files"); and a
 * locale's plural rules are chosen by the whole locale (pt-PT, pt-AO: Portugal's; pt: Brazil's).
 */
class TextLocaleConformanceTest {
    @Test
    void textIsFormattedInTheLocaleOfTheBundleItCameFrom() {
        List<Map<String, Object>> cases = Fixtures.objects(Fixtures.kit("formatting.json").get("lookups"));
        assertTrue(cases.size() >= 6, "the kit has its cases");
        String publicKey = MemorySite.text(Fixtures.kit("lookup.json").get("publicKey"));
        for (Map<String, Object> c : cases) {
            Map<String, Object> device = new HashMap<>();
            device.put("installId", "device-text");
            device.put("defaultLocale", "en-US");
            device.put("appVersion", "4.8.1");
            device.put("region", "PT");
            MemorySite site = new MemorySite();
            RolloutClient client = site.client(MemorySite.bundled(c.get("bundled")), MemorySite.scratch("text-locale"),
                    publicKey, device, MemorySite.text(c.get("locale")), site.options(device).build());
            Map<String, String> arguments = new LinkedHashMap<>();
            for (Map.Entry<String, Object> argument : Json.object(c.get("arguments")).entrySet()) {
                arguments.put(argument.getKey(), Json.string(argument.getValue()));
            }
            assertEquals(MemorySite.text(c.get("expected")), client.string(MemorySite.text(c.get("key")), arguments),
                    MemorySite.text(c.get("name")));
        }
    }

    @Test
    void portugalsRulesAreChosenByTheWholeLocale() {
        for (String locale : Arrays.asList("pt-PT", "pt_PT", "pt-AO", "pt-MZ", "pt-FR", "pt-Latn-PT",
                "pt-PT-u-nu-latn", "PT-pt.UTF-8", "pt_AO@euro")) {
            for (String number : Arrays.asList("0", "0.0", "1.5")) {
                assertEquals("other", PluralRules.category(locale, number), locale + " " + number);
            }
            assertEquals("one", PluralRules.category(locale, "1"), locale);
        }
        for (String locale : Arrays.asList("pt", "pt-BR", "pt-Latn-BR", "pt-US-x-private")) {
            assertEquals("one", PluralRules.category(locale, "0"), locale);
            assertEquals("one", PluralRules.category(locale, "1.5"), locale);
        }
        assertEquals(Arrays.asList("pt-pt-u-nu-latn", "pt-pt-u-nu", "pt-pt-u", "pt-pt", "pt"),
                PluralRules.lookupTags("pt-Latn-PT-u-nu-latn"));
        assertEquals(Arrays.asList("sr-rs", "sr"), PluralRules.lookupTags("sr_Latn_RS.UTF-8"));
        assertEquals(Collections.emptyList(), PluralRules.lookupTags(""));
    }

    /** markLaunchSucceeded() returns what it confirmed, and null the second time in a launch. */
    @Test
    void aSecondMarkLaunchSucceededConfirmsNothing() {
        Map<String, Object> device = new HashMap<>();
        device.put("installId", "device-text");
        device.put("defaultLocale", "en-US");
        device.put("appVersion", "4.8.1");
        device.put("region", "TR");
        MemorySite site = new MemorySite();
        RolloutClient client = site.client(BundledStrings.empty(), MemorySite.scratch("launch-confirmed"),
                MemorySite.text(Fixtures.kit("lookup.json").get("publicKey")), device, "tr-TR",
                site.options(device).build());
        assertEquals(Collections.emptyList(), client.markLaunchSucceeded(), "armed on the bundled strings");
        assertEquals(null, client.markLaunchSucceeded(), "nothing left to confirm");
    }
}
