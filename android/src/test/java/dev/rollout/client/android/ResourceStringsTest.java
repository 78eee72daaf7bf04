package dev.rollout.client.android;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import android.content.res.Resources;
import dev.rollout.client.BundledStrings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bundled strings read through Resources: each locale's own translation in the pack form, and
 * what Android answers from values/ for an untranslated key left to the default locale.
 */
class ResourceStringsTest {
    static final int HOME = 0x7f0e0001;
    static final int WELCOME = 0x7f0e0002;
    static final int PERCENT = 0x7f0e0003;
    static final int SONGS = 0x7f0c0001;
    static final int GONE = 0x7f0e0099;

    /**
     * An app's compiled resources as Android resolves them for one locale: the folder of that
     * locale, else of its language, else values/ (each key on its own, as Android does); a plural's
     * form chosen by the locale's rules, else its "other".
     */
    static final class AppResources extends Resources {
        static final Map<String, Map<Integer, Object>> FOLDERS = new HashMap<>();

        static {
            FOLDERS.put("", Map.of(
                    HOME, "Home",
                    WELCOME, "Welcome, %1$s! Don't miss %2$d songs",
                    PERCENT, "100%% %s",
                    SONGS, Map.of("one", "%d song", "other", "%d songs")));
            FOLDERS.put("tr", Map.of(
                    HOME, "Ana sayfa",
                    SONGS, Map.of("one", "%d şarkı", "other", "%d şarkı")));
            FOLDERS.put("ru", Map.of(
                    HOME, "Главная",
                    SONGS, Map.of("one", "%d песня", "few", "%d песни", "many", "%d песен")));
            FOLDERS.put("de", Map.of(HOME, "Start"));
        }

        final Locale locale;
        final List<Integer> asked = new ArrayList<>();

        AppResources(Locale locale) {
            this.locale = locale;
        }

        private Object resolve(int id) {
            for (String folder : new String[] {locale.toLanguageTag(), locale.getLanguage(), ""}) {
                Map<Integer, Object> values = FOLDERS.get(folder);
                if (values != null && values.containsKey(id)) return values.get(id);
            }
            throw new Resources.NotFoundException("0x" + Integer.toHexString(id));
        }

        @Override
        public String getString(int id) {
            return (String) resolve(id);
        }

        @Override
        public CharSequence getQuantityText(int id, int quantity) {
            asked.add(quantity);
            @SuppressWarnings("unchecked")
            Map<String, String> forms = (Map<String, String>) resolve(id);
            String form = forms.get(category(locale.getLanguage(), quantity));
            return form != null ? form : forms.get("other");
        }

        @Override
        public int getIdentifier(String name, String type, String packageName) {
            if (!packageName.equals("com.example.shelf")) return 0;
            if (type.equals("string")) return name.equals("home") ? HOME : name.equals("welcome") ? WELCOME : 0;
            return type.equals("plurals") && name.equals("songs") ? SONGS : 0;
        }

        /** CLDR's cardinal rules for whole numbers in the languages of these tests. */
        static String category(String language, int n) {
            if (language.equals("ru")) {
                if (n % 10 == 1 && n % 100 != 11) return "one";
                if (n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) return "few";
                return "many";
            }
            return n == 1 ? "one" : "other";
        }
    }

    static ResourceStrings keys() {
        return ResourceStrings.builder()
                .string("home", HOME)
                .string("welcome", WELCOME)
                .literal("percent", PERCENT)
                .plural("songs", SONGS)
                .build();
    }

    static BundledStrings read(ResourceStrings keys, String... locales) {
        return keys.read(AppResources::new, "en", List.of(locales));
    }

    @Test
    void eachLocaleHasItsOwnTranslationInThePackForm() {
        BundledStrings strings = read(keys(), "tr-TR");
        assertEquals("Home", strings.text("home", "en"));
        assertEquals("Welcome, {0}! Don''t miss {1, number} songs", strings.text("welcome", "en"),
                "getString's printf text, as import writes it");
        assertEquals("100%%% %%s", strings.text("percent", "en"), "formatted=\"false\": every % is text");
        assertEquals("{0, plural, one {# song} other {# songs}}", strings.text("songs", "en"));
        assertEquals("Ana sayfa", strings.text("home", "tr-TR"));
        assertEquals("{0, plural, one {# şarkı} other {# şarkı}}", strings.text("songs", "tr-TR"));
        assertEquals(List.of(), strings.problems());
    }

    @Test
    void whatAndroidAnswersFromValuesIsLeftToTheDefaultLocale() {
        BundledStrings strings = read(keys(), "tr-TR", "de");
        assertNull(strings.text("welcome", "tr-TR"),
                "an untranslated key is not Turkish: lookup reaches a Turkish pack before the English text");
        assertNull(strings.text("percent", "de"));
        assertNull(strings.text("songs", "de"), "every form asked was values/'s");
        assertEquals("Start", strings.text("home", "de"));
    }

    @Test
    void aPluralIsAskedOneNumberOfEachCategory() {
        BundledStrings strings = read(keys(), "ru");
        assertEquals("{0, plural, one {# песня} few {# песни} many {# песен} other {# песен}}",
                strings.text("songs", "ru"), "no whole number is other in Russian: many stands in, as import writes it");
        AppResources russian = new AppResources(new Locale("ru"));
        keys().read(locale -> locale.getLanguage().equals("ru") ? russian : new AppResources(locale), "en",
                List.of("ru"));
        assertEquals(List.of(0, 1, 2), russian.asked, "many, one, few: the first number of each");
    }

    @Test
    void namesAreLookedUpOnceAndAMissingOneIsListed() {
        AppResources resources = new AppResources(Locale.ENGLISH);
        ResourceStrings keys = ResourceStrings.byName(resources, "com.example.shelf", List.of("home", "footer"),
                List.of("songs"));
        BundledStrings strings = read(keys, "tr");
        assertEquals("Ana sayfa", strings.text("home", "tr"));
        assertEquals("{0, plural, one {# song} other {# songs}}", strings.text("songs", "en"));
        assertEquals(List.of(new BundledStrings.Problem("R.string.footer (en)", "footer",
                "the app has no resource of this name")), strings.problems());
    }

    @Test
    void anIdOfAnotherBuildIsListedAndTheRestLoads() {
        ResourceStrings keys = ResourceStrings.builder().string("gone", GONE).string("home", HOME).build();
        BundledStrings strings = read(keys, "tr");
        assertEquals("Ana sayfa", strings.text("home", "tr"));
        assertEquals(2, strings.problems().size(), "once per locale read: " + strings.problems());
        assertEquals("gone", strings.problems().get(0).key());
        assertFalse(strings.strings().get("en").containsKey("gone"));
    }
}
