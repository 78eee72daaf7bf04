package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One strings.xml value as aapt2 compiles it and as import writes it (AndroidImport.swift): escapes,
 * quotes, white space, markup, and the locale of a values folder.
 */
class AndroidStringsXmlTest {
    private static AndroidStringsXml.Contents read(String file) throws AndroidStringsXml.Unreadable {
        return AndroidStringsXml.read(file.getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, String> icu(String xml, String language) throws Exception {
        AndroidStringsXml.Contents contents = read(
                "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources xmlns:xliff=\"urn:oasis:names:tc:xliff:document:1.2\">"
                        + xml + "</resources>");
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, AndroidStringsXml.Value> entry : contents.values) {
            out.put(entry.getKey(), entry.getValue().icu(language));
        }
        return out;
    }

    private static String one(String value) throws Exception {
        return icu("<string name=\"k\">" + value + "</string>", "en").get("k");
    }

    @Test
    void escapesAreTheCharactersTheyName() throws Exception {
        assertEquals("Don''t", one("Don\\'t"), "an apostrophe is text, doubled for ICU");
        assertEquals("say \"hi\"", one("say \\\"hi\\\""));
        assertEquals("a\\b", one("a\\\\b"));
        assertEquals("@home ?maybe", one("\\@home \\?maybe"));
        assertEquals("one\ntwo\tthree", one("one\\ntwo\\tthree"));
        assertEquals("Café ☃", one("Caf\\u00e9 \\u2603"));
        assertEquals("ux", one("\\ux"), "an escape that is not four hex digits is its letter, as import reads it");
    }

    @Test
    void whiteSpaceCollapsesOutsideQuotesAndIsKeptInside() throws Exception {
        assertEquals("Lots of space", one("\n   Lots\n\t of    space  \n"));
        assertEquals("  kept  ", one("\"  kept  \""));
        assertEquals("It''s   quoted", one("\"It's   quoted\""), "an apostrophe inside quotes needs no escape");
        assertEquals("Many spaces  kept   here ", one("  Many    spaces  \" kept   here \"  "));
        assertEquals("a \n b", one("a \\n b"), "an escaped line break is text, not white space");
    }

    @Test
    void aNoBreakSpaceIsTextAsAapt2KeepsIt() throws Exception {
        // aapt2 collapses only what C's isspace names; French typography puts U+00A0 before "!" and ":".
        assertEquals("Bonjour\u00a0!", one("Bonjour&#160;!"));
        assertEquals("a\u00a0\u00a0b", one("a\u00a0\u00a0b"));
    }

    @Test
    void onlyAsciiWhiteSpaceIsTrimmedAndCollapsedOnScalars() throws Exception {
        assertEquals("fois\u202f: {0}", one("fois\u202f: %1$s"));
        assertEquals("\u00a0Pr\u00eat\u00a0", one("\u00a0Pr\u00eat\u00a0 "), "U+00A0 at the ends is text");
        assertEquals("\u3000\u8a2d\u5b9a\u3000", one("\u3000\u8a2d\u5b9a\u3000"));
        assertEquals("a \u0301b", one("a  \u0301b"), "a combining mark after spaces: one space, then the mark");
        assertEquals("\u0645\u06cc \u200c\u062e", one("\u0645\u06cc   \u200c\u062e"));
        assertEquals("abc", one("abc\\ "), "trimmed as written, then the lone backslash is nothing");
        assertEquals(" padded ", one("\\u0020padded\\u0020"), "an escaped space is not trimmed");
    }

    @Test
    void spansKeepTheSpacesAtTheirEdgesAndXliffDoesNot() throws Exception {
        assertEquals("{0}  commented", one("<b>%1$s </b> commented"));
        assertEquals(" Note: {0} ", one("  <i>Note:</i> %1$s  "), "with a span nothing is trimmed");
        assertEquals("a  b c", one("\"a  <b>b</b>  c\""), "a span ends a quoted run");
        assertEquals("{0, number} items", one("  <xliff:g id=\"n\">%1$d</xliff:g>  items  "));
        assertEquals("Open {0} now", one("Open <xliff:g id=\"n\"> %1$s </xliff:g> now"));
    }

    /**
     * Tests/Fixtures/import/android-aapt, which the Swift import tests read too: every string, as
     * this library reads it and a device formats it, is Java's String.format of what Android's
     * getString returns (expected.json).
     */
    @Test
    void theAaptFixtureShowsWhatGetStringShows() throws Exception {
        Map<String, Object> expected = Json.object(Fixtures.json("import/android-aapt/expected.json"));
        int checked = 0;
        for (Map.Entry<String, Object> locale : expected.entrySet()) {
            String folder = locale.getKey().equals("en") ? "values" : "values-" + locale.getKey();
            AndroidStringsXml.Contents contents =
                    AndroidStringsXml.read(Fixtures.bytes("import/android-aapt/res/" + folder + "/strings.xml"));
            assertEquals(List.of(), contents.skipped);
            Map<String, Object> keys = Json.object(locale.getValue());
            assertEquals(keys.size(), contents.values.size(), locale.getKey());
            for (Map.Entry<String, AndroidStringsXml.Value> entry : contents.values) {
                String icu = entry.getValue().icu(locale.getKey());
                Object value = keys.get(entry.getKey());
                String what = locale.getKey() + " " + entry.getKey() + ": " + icu;
                if (value instanceof String) {
                    assertEquals(javaFormat((String) value, locale.getKey(), 7), device(icu, locale.getKey(), 7), what);
                    checked++;
                } else {
                    Map<String, Object> forms = Json.object(value);
                    for (int n : new int[] {0, 1, 2, 5, 21, 100}) {
                        Object form = forms.get(PluralRules.category(locale.getKey(), Integer.toString(n)));
                        if (form == null) form = forms.get("other");
                        // getQuantityString(id, n, n, 2.5): the count, then a size in MB.
                        assertEquals(
                                String.format(java.util.Locale.forLanguageTag(locale.getKey()), (String) form, n, 2.5),
                                MessageFormat.format(icu, locale.getKey(), Map.of("0", Integer.toString(n), "1", "2.5")),
                                what + " for " + n);
                        checked++;
                    }
                }
            }
        }
        assertEquals(40, checked);
    }

    /** getString(id, n, 42, 3): Java's own String.format, or the text itself without a conversion. */
    private static String javaFormat(String text, String language, int n) {
        if (!java.util.regex.Pattern.compile("%(\\d+\\$)?(\\.\\d+)?[sdfn%]").matcher(text).find()) return text;
        return String.format(java.util.Locale.forLanguageTag(language), text, n, 42, 3);
    }

    private static String device(String icu, String language, int n) {
        return MessageFormat.format(icu, language, Map.of("0", Integer.toString(n), "1", "42", "2", "3"));
    }

    @Test
    void markupKeepsItsTextAsGetStringReturnsIt() throws Exception {
        assertEquals("Bold and italic", one("<b>Bold</b> and <i>italic</i>"));
        assertEquals("Pay {0} now", one("Pay <xliff:g id=\"amount\" example=\"$5\">%1$s</xliff:g> now"));
        assertEquals("<b>{0}</b> & co", one("<![CDATA[<b>%1$s</b> & co]]>"), "CDATA is text, for Html.fromHtml");
        assertEquals("<b>Bold</b>", one("&lt;b&gt;Bold&lt;/b&gt;"));
    }

    @Test
    void printfArgumentsBecomeNumberedIcuArguments() throws Exception {
        assertEquals("{0} synced {1, number} files", one("%1$s synced %2$d files"));
        assertEquals("{0} and {1}", one("%s and %s"));
        assertEquals("{0, number, ::.00} MB", one("%1$.2f MB"));
        assertEquals("{0, number, ::.000000}", one("%f"), "printf's %f is six decimals");
        assertEquals("Save 50% with {0}", one("Save 50%% with %1$s"));
        assertEquals("100% sure", one("100% sure"), "a % that starts no conversion is text");
        assertEquals("end\nline", one("end%nline"));
        assertEquals("{0} then {0}", one("%s then %&lt;s"));
        assertEquals("'{'name'}' for {0}", one("{name} for %1$s"), "braces are text");
        String literal = icu("<string name=\"k\" formatted=\"false\">100%% of %s</string>", "en").get("k");
        assertEquals("100%%% of %%s", literal, "each % that would start a specifier or %% is doubled");
        assertEquals("100%% of %s", MessageFormat.format(literal, "en", Map.of("1", "x")),
                "formatted=\"false\": every % shown as written");
    }

    @Test
    void conversionsIcuCannotKeepAreRefusedWithTheReason() {
        Placeholders.Refusal padded = assertThrows(Placeholders.Refusal.class, () -> one("Track %03d"));
        assertEquals("%03d: the flag 0 changes how it is written, which the ICU form cannot keep", padded.reason());
        assertThrows(Placeholders.Refusal.class, () -> one("#%1$x"));
        assertThrows(Placeholders.Refusal.class, () -> one("%1$tY"));
        assertThrows(Placeholders.Refusal.class, () -> one("%&lt;s first"));
    }

    @Test
    void pluralsBecomeOneIcuPluralOfTheFirstNumber() throws Exception {
        String songs = "<plurals name=\"k\"><item quantity=\"other\">%d songs</item>"
                + "<item quantity=\"one\">%d song</item></plurals>";
        assertEquals("{0, plural, one {# song} other {# songs}}", icu(songs, "en").get("k"), "CLDR order");
        String owner = "<plurals name=\"k\"><item quantity=\"one\">%2$s has %1$d song</item>"
                + "<item quantity=\"other\">%2$s has %1$d songs</item></plurals>";
        assertEquals("{0, plural, one {{1} has # song} other {{1} has # songs}}", icu(owner, "en").get("k"));
        String polish = "<plurals name=\"k\"><item quantity=\"one\">%d odcinek</item>"
                + "<item quantity=\"few\">%d odcinki</item><item quantity=\"many\">%d odcinków</item></plurals>";
        assertEquals("{0, plural, one {# odcinek} few {# odcinki} many {# odcinków} other {# odcinków}}",
                icu(polish, "pl").get("k"), "no whole number is other in Polish: many stands in");
        // getQuantityString(id, count, args): the count picks the form; the argument the forms count
        // with is the other form's first integer, not the one form's first number.
        String reading = "<plurals name=\"k\"><item quantity=\"one\">1 article, %2$.2f MB</item>"
                + "<item quantity=\"other\">%1$d articles, %2$.2f MB</item></plurals>";
        assertEquals("{0, plural, one {1 article, {1, number, ::.00} MB} other {# articles, {1, number, ::.00} MB}}",
                icu(reading, "en").get("k"));
        String sizeFirst = "<plurals name=\"k\"><item quantity=\"one\">%2$.1f MB in %1$d file</item>"
                + "<item quantity=\"other\">%2$.1f MB in %d files</item></plurals>";
        assertEquals("{0, plural, one {{1, number, ::.0} MB in # file} other {{1, number, ::.0} MB in # files}}",
                icu(sizeFirst, "en").get("k"), "an integer without a position counts too");
        Placeholders.Refusal noOther = assertThrows(Placeholders.Refusal.class,
                () -> icu("<plurals name=\"k\"><item quantity=\"one\">%d chanson</item></plurals>", "fr"));
        assertEquals("its plural forms (one) have no \"other\", the form every count falls back to", noOther.reason());
    }

    @Test
    void whatIsNotTextIsListedWithItsReason() throws Exception {
        AndroidStringsXml.Contents contents = read("<resources>"
                + "<string name=\"a\" translatable=\"false\">App</string>"
                + "<string name=\"b\">@string/a</string>"
                + "<string name=\"c\" product=\"tablet\">Tablet</string><string name=\"c\">Phone</string>"
                + "<string-array name=\"d\"><item>x</item></string-array>"
                + "<string name=\"e\">@ home</string>"
                + "<plurals name=\"f\"><item quantity=\"one\">?</item><item quantity=\"other\">@string/e</item></plurals>"
                + "</resources>");
        List<String> skipped = new ArrayList<>();
        for (Map.Entry<String, String> entry : contents.skipped) skipped.add(entry.getKey() + ": " + entry.getValue());
        assertEquals(List.of(
                "a: marked translatable=\"false\"",
                "b: a reference to @string/a, not text",
                "c: the variant for product \"tablet\"; a build for it is not what devices get by default",
                "d: string arrays are not imported",
                "f: a reference to @string/e, not text"), skipped);
        List<String> keys = new ArrayList<>();
        for (Map.Entry<String, AndroidStringsXml.Value> entry : contents.values) keys.add(entry.getKey());
        assertEquals(List.of("c", "e"), keys, "the default product's text; an @ without a / is text");
    }

    @Test
    void internalEntitiesAreTheirTextAndExternalOnesAreRefusedUnread() throws Exception {
        String declared = "<?xml version=\"1.0\"?>\n<!DOCTYPE resources [\n<!ENTITY app \"Acme\">"
                + "<!ENTITY team \"the &app; team\"><!ENTITY bold \"<b>Acme</b>\">]>\n<resources>"
                + "<string name=\"a\">&app; user</string><string name=\"b\">&app;</string>"
                + "<string name=\"c\">From &team;</string><string name=\"d\">Hi &bold;!</string></resources>";
        Map<String, String> text = new LinkedHashMap<>();
        for (Map.Entry<String, AndroidStringsXml.Value> entry : read(declared).values) {
            text.put(entry.getKey(), entry.getValue().icu("en"));
        }
        assertEquals(Map.of("a", "Acme user", "b", "Acme", "c", "From the Acme team", "d", "Hi Acme!"), text);
        String xxe = "<?xml version=\"1.0\"?>\n<!DOCTYPE resources [\n<!ENTITY s SYSTEM \"file:///etc/passwd\">]>"
                + "<resources><string name=\"leak\">&s;</string></resources>";
        AndroidStringsXml.Unreadable external = assertThrows(AndroidStringsXml.Unreadable.class, () -> read(xxe));
        assertTrue(external.getMessage().startsWith("3: the external entity s (SYSTEM \"file:///etc/passwd\")"),
                external.getMessage());
        assertTrue(external.getMessage().contains("<!ENTITY s \"text\">"), "the fix: " + external.getMessage());
        StringBuilder laughs = new StringBuilder("<!ENTITY l0 \"lol\">");
        for (int k = 1; k <= 9; k++) {
            laughs.append("<!ENTITY l").append(k).append(" \"").append(String.join("", java.util.Collections.nCopies(10, "&l" + (k - 1) + ";"))).append("\">");
        }
        AndroidStringsXml.Unreadable billion = assertThrows(AndroidStringsXml.Unreadable.class,
                () -> read("<!DOCTYPE resources [" + laughs + "]><resources><string name=\"a\">&l9;</string></resources>"));
        assertTrue(billion.getMessage().contains("expand to more than 1048576 characters"), billion.getMessage());
        assertThrows(AndroidStringsXml.Unreadable.class,
                () -> read("<!DOCTYPE resources SYSTEM \"file:///etc/passwd\"><resources/>"));
        assertThrows(AndroidStringsXml.Unreadable.class,
                () -> read("<!DOCTYPE resources [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]><resources/>"));
        AndroidStringsXml.Unreadable broken = assertThrows(AndroidStringsXml.Unreadable.class,
                () -> read("<resources>\n<string name=\"a\">x</resources>"));
        assertTrue(broken.getMessage().startsWith("2:"), "where the parser stopped: " + broken.getMessage());
    }

    @Test
    void valuesFoldersAreLocalesAsAaptReadsTheirQualifiers() {
        assertEquals("en-US", AndroidStringsXml.folderLocale("values", "en-US").locale);
        assertEquals("tr", AndroidStringsXml.folderLocale("values-tr", "en").locale);
        assertEquals("tr-TR", AndroidStringsXml.folderLocale("values-tr-rTR", "en").locale);
        assertEquals("sr-Latn", AndroidStringsXml.folderLocale("values-b+sr+Latn", "en").locale);
        assertEquals("es-419", AndroidStringsXml.folderLocale("values-b+es+419", "en").locale);
        assertEquals("he", AndroidStringsXml.folderLocale("values-iw", "en").locale);
        assertEquals("id-ID", AndroidStringsXml.folderLocale("values-in-rID", "en").locale);
        for (String notALocale : new String[] {"values-night", "values-v26", "values-land", "values-sw600dp",
            "values-fr-land", "values-en-rXA", "values-ar-rXB", "values-und"}) {
            AndroidStringsXml.Folder folder = AndroidStringsXml.folderLocale(notALocale, "en");
            assertNull(folder.locale, notALocale);
            assertFalse(folder.leftOut.isEmpty(), notALocale);
        }
        assertTrue(AndroidStringsXml.legacySpelling("values-iw"));
        assertTrue(AndroidStringsXml.legacySpelling("values-in-rID"));
        assertFalse(AndroidStringsXml.legacySpelling("values-it"));
    }
}
