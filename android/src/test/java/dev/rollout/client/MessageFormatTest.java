package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Placeholders as packs write them, filled the way an app expects: the cases of MessageFormatTests.swift. */
class MessageFormatTest {
    private static Map<String, String> args(String... pairs) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) map.put(pairs[i], pairs[i + 1]);
        return map;
    }

    private static String format(String text, Map<String, String> arguments) {
        return MessageFormat.format(text, "en", arguments);
    }

    private static String format(String text, Map<String, String> arguments, String language) {
        return MessageFormat.format(text, language, arguments);
    }

    @Test
    void namedAndPositionalPlaceholders() {
        assertEquals("Merhaba, Ada!", format("Merhaba, {name}!", args("name", "Ada")));
        assertEquals("4.9 sürümü yayında", format("{{version}} sürümü yayında", args("version", "4.9")));
        assertEquals("Sepetinde 3 ürün var", format("Sepetinde %d ürün var", args("1", "3")));
        assertEquals("b then a", format("%2$@ then %1$@", args("1", "a", "2", "b")));
        assertEquals("x and y", format("%@ and %@", args("1", "x", "2", "y")));
        assertEquals("Kış indirimi: %20", format("Kış indirimi: %20", args("1", "x")),
            "a percent sign that is not a placeholder stays");
        assertEquals("Hello {name}", format("Hello {name}", args()), "no arguments: the text as written");
        assertEquals("Hello {name}", format("Hello {name}", args("other", "x")), "a missing argument stays visible");
        assertEquals("Hello {name}", format("Hello {name}", null), "null arguments: none");
    }

    @Test
    void pluralAndSelect() {
        String files = "{count, plural, =0 {no files} one {# file} other {# files}}";
        assertEquals("no files", format(files, args("count", "0")));
        assertEquals("1 file", format(files, args("count", "1")));
        assertEquals("12 files", format(files, args("count", "12")));
        String arabic = "{n, plural, zero {صفر} one {واحد} two {اثنان} few {# قليل} many {# كثير} other {# آخر}}";
        assertEquals("صفر", format(arabic, args("n", "0"), "ar"));
        assertEquals("اثنان", format(arabic, args("n", "2"), "ar"));
        assertEquals("5 قليل", format(arabic, args("n", "5"), "ar"));
        assertEquals("11 كثير", format(arabic, args("n", "11"), "ar"));
        assertEquals("100 آخر", format(arabic, args("n", "100"), "ar"));
        assertEquals("one", MessageFormat.pluralCategory(21, "ru"));
        assertEquals("few", MessageFormat.pluralCategory(22, "ru"));
        assertEquals("many", MessageFormat.pluralCategory(11, "ru"));
        assertEquals("other", MessageFormat.pluralCategory(1, "ja"));
        assertEquals("Her turn, Ada",
            format("{g, select, female {Her} male {His} other {Their}} turn, {name}", args("g", "female", "name", "Ada")));
        assertEquals("Their turn", format("{g, select, female {Her} other {Their}} turn", args("g", "x")));
    }

    /** Issue 15: every language CLDR has, with its own forms, through what an app calls. */
    @Test
    void everyLanguageChoosesItsOwnForm() {
        String all = "{n, plural, zero {zero} one {one} two {two} few {few} many {many} other {other}}";
        String[][] cases = {
            {"hr", "21", "one"}, {"sr", "21", "one"}, {"ro", "2", "few"}, {"lt", "21", "one"}, {"lv", "0", "zero"},
            {"sl", "2", "two"}, {"he", "2", "two"}, {"ga", "5", "few"}, {"cy", "6", "many"}, {"mt", "3", "few"},
            {"pt-PT", "0", "other"}, {"pt-BR", "0", "one"}, {"fr", "1000000", "many"}, {"es", "1000000", "many"},
            {"it", "1000000", "many"}, {"pt", "1000000", "many"}, {"ja", "1", "other"}, {"ru", "21", "one"},
        };
        for (String[] c : cases) assertEquals(c[2], format(all, args("n", c[1]), c[0]), c[0] + " " + c[1]);
    }

    /** A decimal count chooses by the digits the app passes; {@code #} shows them with the language's separator. */
    @Test
    void aDecimalCountChoosesByItsVisibleDigits() {
        String km = "{d, plural, one {# kilometre} other {# kilometres}}";
        assertEquals("1 kilometre", format(km, args("d", "1")));
        assertEquals("1.5 kilometres", format(km, args("d", "1.5")));
        assertEquals("1.0 kilometres", format(km, args("d", "1.0")), "English: one is 1 with no visible fraction");
        String fr = "{d, plural, one {# kilomètre} many {# de kilomètres} other {# kilomètres}}";
        assertEquals("1,5 kilomètre", format(fr, args("d", "1.5"), "fr"), "French: one is 0 to 1.99...");
        assertEquals("2,5 kilomètres", format(fr, args("d", "2.5"), "fr"));
        assertEquals("1000000 de kilomètres", format(fr, args("d", "1000000"), "fr"));
        String ru = "{d, plural, one {# километр} few {# километра} many {# километров} other {# километра}}";
        assertEquals("2,5 километра", format(ru, args("d", "2.5"), "ru"), "Russian fractions take other");
        assertEquals("5 километров", format(ru, args("d", "5"), "ru"));
        String exact = "{n, plural, =0 {none} =1 {just one} other {# files}}";
        assertEquals("just one", format(exact, args("n", "1.0")), "=1 matches the value, as in ICU");
        assertEquals("none", format(exact, args("n", "0.00")));
        assertEquals("-1 files", format(exact, args("n", "-1")));
        assertEquals("1,5", format(km, args("d", "1,5")), "not a number the rules can read: the value as given");
    }

    @Test
    void aDoubledApostropheIsOneAndALoneOneIsItself() {
        assertEquals("qu'3 minute pour l'épisode", format("qu''{0, number} minute pour l''épisode", args("0", "3"), "fr"));
        assertEquals("l'app", format("l''app", args(), "fr"), "even with no argument at all");
        assertEquals("l'app x", format("l'app {0}", args("0", "x"), "fr"), "an apostrophe before a letter is itself");
    }

    @Test
    void quotedBracesAndHashAreText() {
        assertEquals("{name} is Ada", format("'{'name'}' is {0}", args("0", "Ada"), "fr"));
        assertEquals("3 fichiers #2",
            format("{0, plural, one {# fichier '#'1} other {# fichiers '#'2}}", args("0", "3"), "fr"));
        assertEquals("l'épisode 1", format("{0, plural, one {l''épisode #} other {les épisodes #}}", args("0", "1"), "fr"));
    }

    @Test
    void aQuotedBraceDoesNotEndAPluralCase() {
        assertEquals("c { d 2", format("{0, plural, one {a '}' b} other {c '{' d #}}", args("0", "2"), "en"));
    }

    /** MessageStyle: a {{name}} string keeps its apostrophes, and a string with ICU arguments reads no printf. */
    @Test
    void templateStringsKeepApostrophesAndIcuStringsReadNoPrintf() {
        assertEquals("Supprimer 'Doc' ?", format("Supprimer '{{name}}' ?", args("name", "Doc"), "fr"));
        assertEquals("5%ige Steigerung bei x",
            format("{0, number}%ige Steigerung bei {1}", args("0", "5", "1", "x"), "de"), "%i is text here");
        assertEquals("5 files, l'x", format("%d files, l'{{name}}", args("1", "5", "name", "x"), "fr"),
            "printf is still read in a string without ICU arguments");
    }

    @Test
    void aFixedPrecisionSkeletonKeepsPrintfsDigits() {
        assertEquals("3,14 km", format("{0, number, ::.00} km", args("0", "3.14159"), "fr"),
            "French writes a decimal comma, as Android and iOS do in French");
        assertEquals("1234.50 km", format("{0, number, ::.00} km", args("0", "1234.5"), "en"), "no grouping, as printf");
        assertEquals("3.14159 km", format("{0, number} km", args("0", "3.14159"), "fr"));
    }

    /**
     * Where Java's own arithmetic and text handling differ from Swift's, the port gives Swift's text
     * (each expected value is what the Swift client writes).
     */
    @Test
    void theSameTextAsTheSwiftClientWhereJavaWouldDiffer() {
        assertEquals("2.68", format("{0, number, ::.00}", args("0", "2.675")),
            "the shortest decimal rounded half to even, not Java's HALF_UP on the binary value");
        assertEquals("0.12", format("{0, number, ::.00}", args("0", "0.125")));
        assertEquals("-0,0", format("{0, number, ::.0}", args("0", "-0.01"), "fr"), "the sign of a negative zero stays");
        assertEquals("INF", format("{0, number, ::.00}", args("0", "1e400")));
        assertEquals("abc", format("{0, number, ::.00}", args("0", "abc")));
        assertEquals("1\u066b50", format("{0, number, ::.00}", args("0", "1.5"), "fa"), "Persian's separator, as Foundation gives it");
        assertEquals("{\u0301n} A", format("{\u0301n} {n}", args("n", "A")), "a brace with a combining mark is no brace");
        assertEquals("1\u0301 y", format("{n, plural, one {# x} other {# y}}", args("n", "1\u0301")));
        assertEquals("composed", format("{x, select, \u00e9 {composed} other {other}}", args("x", "e\u0301")),
            "canonically equivalent selectors are the same");
        assertEquals("same name", format("{e\u0301}", args("\u00e9", "same name")));
        assertEquals("a a b", format("%1$@ %@ %@", args("1", "a", "2", "b")));
        assertEquals("exact", format("{n, plural, =1.0 {exact} other {#}}", args("n", "1.00")));
        assertEquals("many", format("{n, plural, one {one} many {many} other {other}}", args("n", "1.2c6"), "fr"));
    }

    /** Text an app bundles is never linted: 20,000 nested selects must not overflow the stack of string(). */
    @Test
    void aMessageNestedDeeperThanTheLimitIsShownAsWrittenFromThatLevelOn() {
        String deep = nested(20_000);
        assertEquals(nested(20_000 - MessageFormat.MAXIMUM_NESTING), format(deep, args("g", "x")));
        assertEquals("end", format(nested(MessageFormat.MAXIMUM_NESTING), args("g", "x")));
    }

    private static String nested(int levels) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < levels; i++) s.append("{g, select, other {");
        s.append("end");
        for (int i = 0; i < levels; i++) s.append("}}");
        return s.toString();
    }
}
