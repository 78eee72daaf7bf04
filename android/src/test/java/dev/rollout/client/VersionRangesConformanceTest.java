package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The conformance kit's version-ranges.json: app versions and ranges parse and compare as in the Swift client. */
class VersionRangesConformanceTest {
    private static Map<String, Object> file() throws Exception {
        return Fixtures.kit("version-ranges.json");
    }

    @Test
    void versionsParseAndNormaliseAsTheVectorsSay() throws Exception {
        List<Map<String, Object>> versions = Fixtures.cases(file(), "versions", 15);
        for (Map<String, Object> v : versions) {
            String text = Json.string(v.get("text"));
            AppVersion parsed = AppVersion.parse(text);
            assertEquals(Json.bool(v.get("valid")), parsed != null, "version " + text);
            if (parsed != null) assertEquals(Json.string(v.get("normalized")), parsed.normalized(), text);
        }
    }

    @Test
    void versionsCompareAsTheVectorsSay() throws Exception {
        List<Map<String, Object>> pairs = Fixtures.cases(file(), "compare", 5);
        for (Map<String, Object> v : pairs) {
            AppVersion a = AppVersion.parse(Json.string(v.get("a")));
            AppVersion b = AppVersion.parse(Json.string(v.get("b")));
            assertNotNull(a);
            assertNotNull(b);
            int order = Integer.signum(a.compareTo(b));
            assertEquals((long) Json.integer(v.get("order")), order, a + " vs " + b);
            assertEquals(order == 0, a.equals(b), a + " equals " + b);
            if (order == 0) assertEquals(a.hashCode(), b.hashCode(), a + " and " + b + " hash alike");
        }
    }

    @Test
    void rangesParseAndContainAsTheVectorsSay() throws Exception {
        List<Map<String, Object>> ranges = Fixtures.cases(file(), "ranges", 20);
        for (Map<String, Object> v : ranges) {
            String text = Json.string(v.get("text"));
            VersionRange range;
            try {
                range = VersionRange.parse(text);
            } catch (IllegalArgumentException e) {
                range = null;
            }
            assertEquals(Json.bool(v.get("valid")), range != null, "range " + text);
            if (range == null) continue;
            for (Object probe : Json.array(v.get("contains"))) {
                assertTrue(range.contains(AppVersion.parse(Json.string(probe))), text + " contains " + probe);
            }
            for (Object probe : Json.array(v.get("excludes"))) {
                assertFalse(range.contains(AppVersion.parse(Json.string(probe))), text + " excludes " + probe);
            }
        }
    }

    @Test
    void aVersionKeepsTheTextItWasWrittenIn() {
        AppVersion written = AppVersion.parse("4.08.0");
        assertEquals("4.08.0", written.toString());
        assertEquals("4.8", written.normalized());
        assertEquals(AppVersion.parse("4.8"), written);
    }

    @Test
    void aRangeThatIsNotOneIsRefusedWithTheTextQuoted() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> VersionRange.parse(">= 4.8"));
        assertEquals("app-version range \">= 4.8\" has the operator \">=\" with no version after it (write >=4.8, "
                + "without a space); write for example >=4.8, \">=4.8 <5\", 4.8.x or =4.8.1", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> VersionRange.parse(">=5 <4.8"));
    }

    @Test
    void aRangeIsTrimmedOfUnicodeWhiteSpaceButNotOfOtherControls() {
        assertTrue(VersionRange.parse("\u00A0>=4.8\u3000").contains(AppVersion.parse("4.9")));
        // U+001F is a control character Java calls white space and Unicode does not.
        assertThrows(IllegalArgumentException.class, () -> VersionRange.parse("\u001F>=4.8"));
    }
}
