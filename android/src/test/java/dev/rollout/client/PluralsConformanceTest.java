package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * plurals.json of the conformance kit: every language CLDR has rules for gives each number the
 * category the kit pins, in the rules and in what a device shows for a plural message.
 */
class PluralsConformanceTest {
    @Test
    void everyLanguageGivesEachNumberTheCategoryTheKitPins() throws Exception {
        Map<String, Object> file = Fixtures.kit("plurals.json");
        assertEquals(PluralRulesCldr.CLDR_VERSION, Json.string(file.get("cldr")), "the same CLDR release as the Swift client");
        List<String> numbers = new ArrayList<>();
        for (Object number : Json.array(file.get("numbers"))) numbers.add(Json.string(number));
        Collections.sort(numbers);
        Map<String, Object> languages = Json.object(file.get("languages"));
        assertTrue(languages.size() > 400, "every language CLDR has");
        String message = "{n, plural, zero {zero} one {one} two {two} few {few} many {many} other {other}}";
        for (Map.Entry<String, Object> language : languages.entrySet()) {
            String tag = language.getKey();
            List<String> listed = new ArrayList<>();
            for (Map.Entry<String, Object> group : Json.object(language.getValue()).entrySet()) {
                for (String number : Json.string(group.getValue()).split(" ")) {
                    listed.add(number);
                    assertEquals(group.getKey(), PluralRules.category(tag, number), tag + " " + number);
                    assertEquals(group.getKey(), MessageFormat.format(message, tag, Collections.singletonMap("n", number)),
                        tag + " " + number + ": the form a device shows");
                }
            }
            Collections.sort(listed);
            assertEquals(numbers, listed, tag + " lists each number once");
        }
    }

    @Test
    void aLocaleResolvesByDroppingSubtagsAsTheSwiftClientDoes() {
        assertEquals("other", PluralRules.category("pt_PT.UTF-8", "0"), "Portugal: 0 is other");
        assertEquals("one", PluralRules.category("pt-BR", "0"), "Brazil: 0 is one");
        assertEquals("one", PluralRules.category("PT-pt-u-nu-latn", "1"));
        assertEquals("other", PluralRules.category("xx", "1"), "a language CLDR has no rules for: other");
        assertTrue(PluralRules.of("sr-Latn-RS").isKnown());
        assertTrue(!PluralRules.of("xx").isKnown() && !PluralRules.of("xx").hasOneForm());
        assertTrue(PluralRules.of("ja").hasOneForm());
        assertEquals(java.util.Arrays.asList("one", "few", "many", "other"), PluralRules.of("ru").categories());
        assertEquals(null, PluralRules.category("en", "1,5"), "not a number");
    }
}
