package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The app's own strings: a folder of LOCALE.json files (what the device commands read), an Android
 * res/ folder read as `rollout pack import` reads it, and tables built one string at a time.
 */
class BundledStringsTest {
    static File fixtures() {
        return Fixtures.repo().resolve("android/src/test/resources/android-strings").toFile();
    }

    private static Map<String, Map<String, String>> sorted(Map<String, Map<String, String>> strings) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        strings.forEach((locale, table) -> out.put(locale, new TreeMap<>(table)));
        return out;
    }

    private static List<String> described(List<BundledStrings.Problem> problems) {
        List<String> out = new ArrayList<>();
        for (BundledStrings.Problem problem : problems) out.add(problem.toString());
        return out;
    }

    // MARK: Android res/

    /**
     * android/src/test/resources/android-strings/res gives, locale by locale, exactly the text
     * `rollout pack import res --format android --source-locale en` stores in its packs, and lists
     * the same keys as left out for the same reasons (expected.json; see its README).
     */
    @Test
    void aResFolderLoadsTheTextImportStoresInPacks() throws Exception {
        BundledStrings strings = BundledStrings.fromValuesDirectory(new File(fixtures(), "res"), "en");
        Map<String, Object> expected = Json.object(Json.parse(Files.readAllBytes(
                new File(fixtures(), "expected.json").toPath())));
        Map<String, Map<String, String>> tables = new TreeMap<>();
        Json.object(expected.get("strings")).forEach((locale, table) -> {
            Map<String, String> texts = new TreeMap<>();
            Json.object(table).forEach((key, text) -> texts.put(key, Json.string(text)));
            tables.put(locale, texts);
        });
        assertEquals(tables, sorted(strings.strings()));
        List<String> problems = new ArrayList<>();
        for (Object problem : Json.array(expected.get("problems"))) problems.add(Json.string(problem));
        assertEquals(problems, described(strings.problems()));
    }

    /** What a device shows from the loaded text: what getString(id, args) shows for the value. */
    @Test
    void theLoadedTextShowsWhatAndroidShows() {
        BundledStrings strings = BundledStrings.fromValuesDirectory(new File(fixtures(), "res"), "en");
        assertEquals("Prix\u00a0: 3\u00a0€", MessageFormat.format(strings.text("nbsp", "en"), "en", Map.of("0", "3")));
        assertEquals("Don't stop", MessageFormat.format(strings.text("apostrophe", "en"), "en", Map.of()));
        assertEquals("{name} is literal for Ada",
                MessageFormat.format(strings.text("braces", "en"), "en", Map.of("0", "Ada")));
        assertEquals("Ada has 1 song", MessageFormat.format(strings.text("owner_songs", "en"), "en",
                Map.of("0", "1", "1", "Ada")));
        for (int n : new int[] {1, 3, 5, 21, 22, 25}) {
            String form = n % 10 == 1 && n % 100 != 11 ? "песня" : n % 10 >= 2 && n % 10 <= 4 ? "песни" : "песен";
            assertEquals(n + " " + form, MessageFormat.format(strings.text("songs", "ru-RU"), "ru",
                    Map.of("0", Integer.toString(n))), "ru-RU reads values-ru");
        }
    }

    /** The fixtures of ImportAndroidTests.swift (shapes of real apps' res/), with the values that test asserts. */
    @Test
    void realAppShapesGiveWhatImportAndroidTestsAssert() {
        BundledStrings strings = BundledStrings.fromValuesDirectory(
                Fixtures.repo().resolve("Tests/Fixtures/import/android-shapes/res").toFile(), "en");
        assertEquals(List.of("ca", "en", "es-419", "fr", "he", "id", "pl", "pt-BR", "sr-Latn", "yi"), strings.locales(),
                "iw, in, ji are he, id, yi; night, v21, land, sw600dp and the pseudolocales are not translations");
        assertEquals("qu''{0, number} minute pour l''épisode", strings.text("minutes", "fr"));
        assertEquals("{0, number, ::.00} MB of {1, number, ::.0} MB", strings.text("progress", "en"));
        assertEquals("<b>Bold</b> text", strings.text("markup", "en"));
        assertEquals("Many spaces  kept   here ", strings.text("spaces", "en"));
        assertEquals("100%% of %s", MessageFormat.format(strings.text("not_formatted", "en"), "en", Map.of("1", "x")),
                "formatted=\"false\": shown as written");
        assertEquals("100% sure", strings.text("percent", "en"));
        assertEquals("Phone text", strings.text("tablet", "en"));
        assertEquals("Prêt\u00a0? C''est parti\u00a0!", strings.text("ready", "fr"), "no-break spaces are text");
        assertEquals("{0, number} דקה לפרק", strings.text("minutes", "he"));
        assertEquals("{0, plural, one {# odcinek} few {# odcinki} many {# odcinków} other {# odcinków}}",
                strings.text("episodes", "pl"));
        Set<String> leftOut = new HashSet<>();
        for (BundledStrings.Problem problem : strings.problems()) {
            if (problem.key() != null) leftOut.add(problem.key() + ": " + problem.reason());
        }
        assertEquals(Set.of(
                "app_name: marked translatable=\"false\"",
                "hex: %1$x: a hexadecimal or octal number, which the ICU form cannot keep",
                "padded: %05d: the flag 0 changes how it is written, which the ICU form cannot keep",
                "tablet: the variant for product \"tablet\"; a build for it is not what devices get by default",
                "title_ref: a reference to @string/minutes, not text",
                "episodes: its plural forms (one) have no \"other\", the form every count falls back to"), leftOut);
        List<String> files = new ArrayList<>();
        for (BundledStrings.Problem problem : strings.problems()) {
            if (problem.key() == null) files.add(problem.file());
        }
        assertEquals(List.of("values-ar-rXB", "values-en-rXA", "values-land", "values-night", "values-sw600dp",
                "values-v21"), files);
    }

    @Test
    void theFirstTestFixtureImportReadsLoadsToo() {
        BundledStrings strings = BundledStrings.fromValuesDirectory(
                Fixtures.repo().resolve("Tests/Fixtures/import/android/res").toFile(), "en-US");
        assertEquals(List.of("ar", "en-US", "tr-TR"), strings.locales());
        assertEquals("  Two spaces kept  ", strings.text("quote", "en-US"));
        assertEquals("{0, plural, zero {لا ملفات} one {ملف واحد} two {ملفان} few {# ملفات} many {# ملفًا} other {# ملف}}",
                strings.text("files_count", "ar"));
        assertEquals("Pay {0}", strings.text("checkout_pay", "en-US"));
        assertEquals("{0} öde", strings.text("checkout_pay", "tr-TR"));
        assertEquals("You''re offline. We''ll sync when you''re back.", strings.text("error_offline", "en-US"));
    }

    @Test
    void aBadFileIsListedAndTheRestLoads() {
        BundledStrings broken = BundledStrings.fromValuesDirectory(new File(fixtures(), "hostile/broken"), "en");
        assertEquals(Map.of("tr", Map.of("open", "Kapalı")), broken.strings());
        assertEquals(1, broken.problems().size());
        assertEquals("values/strings.xml", broken.problems().get(0).file());
        assertNull(broken.problems().get(0).key());
        assertTrue(broken.problems().get(0).reason().startsWith("4:"), broken.problems().toString());
    }

    @Test
    void aFileWithADoctypeIsNotReadSoNoEntityLeaksOrExplodes() {
        for (String name : new String[] {"hostile/doctype", "hostile/entity"}) {
            BundledStrings strings = BundledStrings.fromValuesDirectory(new File(fixtures(), name), "en");
            assertTrue(strings.strings().isEmpty(), name + ": " + strings.strings());
            assertEquals(1, strings.problems().size(), name);
            assertEquals("values/strings.xml", strings.problems().get(0).file(), name);
        }
    }

    @Test
    void aFolderWithoutValuesIsOneProblem(@TempDir Path scratch) {
        BundledStrings strings = BundledStrings.fromValuesDirectory(scratch.toFile(), "en");
        assertTrue(strings.strings().isEmpty());
        assertEquals(List.of(scratch.toFile().getName() + ": no values*/ folder with strings in it"),
                described(strings.problems()));
    }

    @Test
    void oneStringsXmlIsTheDefaultLocale() {
        BundledStrings strings = BundledStrings.fromValuesDirectory(
                new File(fixtures(), "res/values-tr/more.xml"), "tr");
        assertEquals(Map.of("tr", Map.of("more", "Daha fazla")), strings.strings());
    }

    // MARK: LOCALE.json folders

    /** The folder BundledStringsTests.swift reads with BundledStrings(directory:): the same tables, the same files listed. */
    @Test
    void aJsonFolderLoadsWhatTheSwiftClientLoads() {
        BundledStrings strings = BundledStrings.fromJsonDirectory(
                Fixtures.repo().resolve("Tests/Fixtures/bundled/json-folder").toFile());
        assertEquals(Map.of("en", Map.of("home.title", "Welcome"), "tr-TR", Map.of("home.title", "Hoş geldin")),
                strings.strings(), "tr_TR.json is tr-TR");
        Set<String> files = new HashSet<>();
        for (BundledStrings.Problem problem : strings.problems()) files.add(problem.file());
        assertEquals(Set.of("de.json", "en.json", "notes.json"), files, strings.problems().toString());
        assertTrue(strings.problems().contains(new BundledStrings.Problem("en.json", "count", "the value is not a string")));
        assertTrue(strings.problems().contains(
                new BundledStrings.Problem("notes.json", null, "not a LOCALE.json file (tr.json, pt-BR.json)")));
    }

    @Test
    void aJsonFolderTakesTextAsWritten(@TempDir Path scratch) throws IOException {
        Files.write(scratch.resolve("pt_BR.json"),
                "{\"b\": \"{0} ''x''\", \"a\": \"Olá\"}".getBytes(StandardCharsets.UTF_8));
        Files.write(scratch.resolve("English.json"), "{\"a\": \"Hi\"}".getBytes(StandardCharsets.UTF_8));
        Files.write(scratch.resolve(".hidden.json"), "nope".getBytes(StandardCharsets.UTF_8));
        Files.createDirectory(scratch.resolve("fr.lproj"));
        BundledStrings strings = BundledStrings.fromJsonDirectory(scratch.toFile());
        assertEquals(Map.of("pt-BR", Map.of("a", "Olá", "b", "{0} ''x''"), "en", Map.of("a", "Hi")), strings.strings());
        assertEquals(1, strings.problems().size(), "the .lproj folder is named, the hidden file is not read");
        assertEquals("fr.lproj", strings.problems().get(0).file());

        BundledStrings missing = BundledStrings.fromJsonDirectory(scratch.resolve("nope").toFile());
        assertTrue(missing.strings().isEmpty());
        assertEquals(List.of("nope: the folder cannot be read"), described(missing.problems()));
    }

    // MARK: Lookup

    @Test
    void aLocaleWithoutItsOwnTableReadsItsShorterForm() {
        Map<String, Map<String, String>> tables = new HashMap<>();
        tables.put("zh-Hant", Map.of("title", "歡迎"));
        tables.put("tr", Map.of("title", "Hoş geldin", "empty", ""));
        tables.put("en", Map.of("title", "Welcome"));
        BundledStrings strings = new BundledStrings(tables);
        assertEquals("Hoş geldin", strings.text("title", "tr-TR"), "values-tr for a device in tr-TR");
        assertEquals("歡迎", strings.text("title", "zh-Hant-TW"));
        assertNull(strings.text("title", "fr-FR"));
        assertNull(strings.text("empty", "tr"), "an empty text is missing");
        assertNull(strings.text("title", "tr-tr"), "locales are canonical");
        assertEquals(List.of("en", "tr", "zh-Hant"), strings.locales());
        assertEquals("Welcome", strings.expanded(List.of("en-US", "de")).get("en-US").get("title"));
        assertFalse(strings.expanded(List.of("de")).containsKey("de"));
    }

    @Test
    void theTablesCannotBeChangedAfterward() {
        Map<String, String> table = new LinkedHashMap<>();
        table.put("a", "A");
        Map<String, Map<String, String>> tables = new HashMap<>();
        tables.put("en", table);
        BundledStrings strings = new BundledStrings(tables);
        table.put("a", "changed");
        tables.clear();
        assertEquals("A", strings.text("a", "en"), "the constructor copies");
        assertThrows(UnsupportedOperationException.class, () -> strings.strings().get("en").put("b", "B"));
        assertThrows(UnsupportedOperationException.class, () -> strings.problems().clear());
    }

    // MARK: Builder (what the Resources reader in dev.rollout.client.android uses)

    @Test
    void theBuilderConvertsAndroidTextAsImportDoes() {
        Map<String, String> forms = new LinkedHashMap<>();
        forms.put("other", "%d songs");
        forms.put("one", "%d song");
        BundledStrings strings = BundledStrings.builder()
                .androidString("fr", "minutes", "qu'%1$d minute", "R.string.minutes (fr)")
                .androidString("en", "padded", "Track %03d", "R.string.padded (en)")
                .androidLiteral("en", "literal", "100%% {sure}", "R.string.literal (en)")
                .androidPlural("en", "songs", forms, "R.plurals.songs (en)")
                .text("en", "title", "Welcome", "app")
                .text("en", "title", "Hello", "app")
                .build();
        assertEquals("qu''{0, number} minute", strings.text("minutes", "fr"));
        assertEquals("100%%% '{'sure'}'", strings.text("literal", "en"), "the % that would start %% is doubled");
        assertEquals("100%% {sure}", MessageFormat.format(strings.text("literal", "en"), "en", Map.of()));
        assertEquals("{0, plural, one {# song} other {# songs}}", strings.text("songs", "en"));
        assertEquals("Welcome", strings.text("title", "en"), "the first text of a key is kept");
        assertNull(strings.text("padded", "en"));
        assertEquals(List.of(
                "R.string.padded (en): padded: %03d: the flag 0 changes how it is written, which the ICU form cannot keep",
                "app: title: en has this key from an earlier file already: the first is kept"),
                described(strings.problems()));
    }
}
