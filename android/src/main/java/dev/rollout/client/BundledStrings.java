package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * The strings an app ships, read from what the app already has, in one call at launch
 * (docs/client.md, "Bundled strings"; docs/android.md): locale to key to text in the form packs
 * use (ICU MessageFormat, as {@code rollout pack import} writes it), so a pack and the app take the
 * same arguments for a key.
 *
 * <p>Loading never throws and never stops at a bad file: whatever cannot be read is listed in
 * {@link #problems()} (file, key, why) and everything else is loaded. Immutable; safe to share
 * between threads.
 */
public final class BundledStrings {
    /** Something the loader left out, and why. */
    public static final class Problem {
        private final String file;
        private final String key;
        private final String reason;

        public Problem(@NonNull String file, @Nullable String key, @NonNull String reason) {
            this.file = Objects.requireNonNull(file, "file");
            this.key = key;
            this.reason = Objects.requireNonNull(reason, "reason");
        }

        /** The file, relative to what was loaded ({@code values-tr/strings.xml}, {@code tr.json}). */
        @NonNull
        public String file() {
            return file;
        }

        /** The key, when only that key was left out; null when the whole file (or folder) was. */
        @Nullable
        public String key() {
            return key;
        }

        @NonNull
        public String reason() {
            return reason;
        }

        @Override
        public boolean equals(@Nullable Object other) {
            if (!(other instanceof Problem)) return false;
            Problem that = (Problem) other;
            return file.equals(that.file) && Objects.equals(key, that.key) && reason.equals(that.reason);
        }

        @Override
        public int hashCode() {
            return Objects.hash(file, key, reason);
        }

        /** {@code file: key: reason}, or {@code file: reason}: as the Swift client writes it. */
        @NonNull
        @Override
        public String toString() {
            return key == null ? file + ": " + reason : file + ": " + key + ": " + reason;
        }
    }

    private static final BundledStrings EMPTY = new BundledStrings(Collections.emptyMap());

    private final Map<String, Map<String, String>> strings;
    private final List<Problem> problems;

    /** Strings the app already holds (locale to key to text in the pack form), taken as they are. */
    public BundledStrings(@NonNull Map<String, Map<String, String>> strings) {
        this(copy(strings), new ArrayList<>());
    }

    private BundledStrings(Map<String, Map<String, String>> strings, List<Problem> problems) {
        this.strings = strings;
        this.problems = Collections.unmodifiableList(problems);
    }

    /** No strings: every lookup falls through to packs, then to the caller's fallback. */
    @NonNull
    public static BundledStrings empty() {
        return EMPTY;
    }

    /** Locale to key to text; unmodifiable. */
    @NonNull
    public Map<String, Map<String, String>> strings() {
        return strings;
    }

    /** What loading left out, in the order it was met. */
    @NonNull
    public List<Problem> problems() {
        return problems;
    }

    /** The locales that have strings, sorted. */
    @NonNull
    public List<String> locales() {
        return Collections.unmodifiableList(new ArrayList<>(new TreeMap<>(strings).keySet()));
    }

    /**
     * The table {@code locale} reads: its own, else that of its nearest shorter form, as Android
     * and iOS pick {@code values-tr} / {@code tr.lproj} for a device in tr-TR ({@code zh-Hant-TW}
     * reads {@code zh-Hant}, then {@code zh}); or null.
     */
    @Nullable
    public Map<String, String> table(@NonNull String locale) {
        Map<String, String> own = strings.get(locale);
        if (own != null) return own;
        LocaleTags.Tag tag = LocaleTags.tryParse(locale);
        if (tag == null) return null;
        for (String parent : tag.truncationParents()) {
            Map<String, String> table = strings.get(parent);
            if (table != null) return table;
        }
        return null;
    }

    /** The text of {@code key} for {@code locale}, from {@link #table(String)}; null when missing or empty. */
    @Nullable
    public String text(@NonNull String key, @NonNull String locale) {
        Map<String, String> table = table(locale);
        String value = table == null ? null : table.get(key);
        return value == null || value.isEmpty() ? null : value;
    }

    /**
     * The tables keyed by {@code locales} as well, each filled from {@link #table(String)} when
     * there is no table of that exact name: what a lookup by exact locale needs.
     */
    @NonNull
    public Map<String, Map<String, String>> expanded(@NonNull Collection<String> locales) {
        Map<String, Map<String, String>> result = new HashMap<>(strings);
        for (String locale : locales) {
            if (!result.containsKey(locale)) {
                Map<String, String> table = table(locale);
                if (table != null) result.put(locale, table);
            }
        }
        return Collections.unmodifiableMap(result);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (!(other instanceof BundledStrings)) return false;
        BundledStrings that = (BundledStrings) other;
        return strings.equals(that.strings) && problems.equals(that.problems);
    }

    @Override
    public int hashCode() {
        return strings.hashCode() * 31 + problems.hashCode();
    }

    @NonNull
    @Override
    public String toString() {
        int count = 0;
        for (Map<String, String> table : strings.values()) count += table.size();
        return "BundledStrings(" + strings.size() + " locales, " + count + " strings, " + problems.size()
                + " problems)";
    }

    // MARK: - Loading

    /**
     * A folder of {@code LOCALE.json} files ({@code tr.json}, {@code pt_BR.json}), each one object
     * of key to text in the pack form, taken as written: what {@code rollout device --bundled DIR}
     * and {@code scripts/android-device --bundled DIR} read.
     */
    @NonNull
    public static BundledStrings fromJsonDirectory(@NonNull File directory) {
        Builder builder = new Builder();
        String[] names = directory.list();
        if (names == null) {
            builder.problem(directory.getName(), null, "the folder cannot be read");
            return builder.build();
        }
        Arrays.sort(names);
        for (String name : names) {
            if (name.startsWith(".")) continue;
            if (name.endsWith(".lproj")) {
                builder.problem(name, null, "an Apple .lproj folder: this client reads LOCALE.json files"
                        + " (and Android values*/ folders with fromValuesDirectory)");
                continue;
            }
            if (!name.endsWith(".json")) continue;
            String locale = jsonLocale(name.substring(0, name.length() - ".json".length()));
            if (locale == null) {
                builder.problem(name, null, "not a LOCALE.json file (tr.json, pt-BR.json)");
                continue;
            }
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(new File(directory, name).toPath());
            } catch (IOException | RuntimeException unreadable) {
                builder.problem(name, null, "no such file, or it cannot be read");
                continue;
            }
            Object root;
            try {
                root = Json.parse(bytes);
            } catch (JsonException e) {
                builder.problem(name, null, e.line() + ":" + e.column() + ": " + e.reason());
                continue;
            }
            Map<String, Object> table = Json.object(root);
            if (table == null) {
                builder.problem(name, null, "expected an object of key -> text");
                continue;
            }
            for (String key : new TreeMap<>(table).keySet()) {
                String text = Json.string(table.get(key));
                if (text == null) {
                    builder.problem(name, key, "the value is not a string");
                    continue;
                }
                builder.text(locale, key, text, name);
            }
        }
        return builder.build();
    }

    /** Names older projects gave {@code .lproj} folders, which a folder of LOCALE.json files may keep. */
    private static String jsonLocale(String spelling) {
        switch (spelling) {
            case "English": return "en";
            case "French": return "fr";
            case "German": return "de";
            case "Japanese": return "ja";
            case "Spanish": return "es";
            case "Italian": return "it";
            case "Dutch": return "nl";
            default: return LocaleTags.canonical(spelling);
        }
    }

    /** An app's {@code res/} folder with {@code values/} in English: {@code fromValuesDirectory(res, "en")}. */
    @NonNull
    public static BundledStrings fromValuesDirectory(@NonNull File res) {
        return fromValuesDirectory(res, "en");
    }

    /**
     * An app's {@code res/} folder (or one {@code strings.xml}), read as {@code rollout pack import
     * --format android} reads it (docs/import.md, "Android as aapt reads it"): every {@code .xml} of
     * {@code values/} (the locale {@code defaultLocale}), {@code values-tr} (tr),
     * {@code values-pt-rBR} (pt-BR), {@code values-b+sr+Latn} (sr-Latn), {@code values-iw} (he);
     * {@code <string>} and {@code <plurals>} with aapt2's escapes, quotes and white space, printf
     * arguments and plural forms in the pack's ICU form. Folders whose qualifiers are not only a
     * locale ({@code values-night}, {@code values-v26}, {@code values-land}), pseudolocales,
     * {@code translatable="false"}, {@code <string-array>}, references ({@code @string/x}) and
     * printf conversions ICU cannot keep are left out and listed in {@link #problems()}.
     */
    @NonNull
    public static BundledStrings fromValuesDirectory(@NonNull File res, @NonNull String defaultLocale) {
        Builder builder = new Builder();
        String source = LocaleTags.canonical(defaultLocale);
        if (source == null) source = defaultLocale;
        List<ValuesFolder> folders = new ArrayList<>();
        if (res.isFile()) {
            folders.add(new ValuesFolder(source, "values", Collections.singletonList(res)));
        } else {
            folders = valuesFolders(res, source, builder);
        }
        if (folders.isEmpty()) {
            builder.problem(res.getName(), null, "no values*/ folder with strings in it");
            return builder.build();
        }
        // Java, and so Android, names Hebrew, Indonesian and Yiddish iw, in, ji: a device reads
        // values-iw, so where values-he says otherwise, values-iw's text is the one kept.
        folders.sort((a, b) -> {
            int x = AndroidStringsXml.legacySpelling(a.folder) ? 0 : 1;
            int y = AndroidStringsXml.legacySpelling(b.folder) ? 0 : 1;
            return x != y ? Integer.compare(x, y) : a.folder.compareTo(b.folder);
        });
        Map<String, Map<String, String>> readFrom = new HashMap<>(); // locale -> key -> folder
        Map<String, Map<String, String>> fileOf = new HashMap<>(); // locale -> key -> file
        Map<String, Set<String>> plurals = new HashMap<>(); // locale -> its keys that are plurals
        for (ValuesFolder folder : folders) {
            for (File file : folder.files) {
                String name = res.isFile() ? file.getName() : folder.folder + "/" + file.getName();
                AndroidStringsXml.Contents contents;
                try {
                    contents = AndroidStringsXml.read(Files.readAllBytes(file.toPath()));
                } catch (IOException | RuntimeException unreadable) {
                    builder.problem(name, null, "the file cannot be read");
                    continue;
                } catch (AndroidStringsXml.Unreadable e) {
                    builder.problem(name, null, e.getMessage());
                    continue;
                }
                for (Map.Entry<String, String> skipped : contents.skipped) {
                    builder.problem(name, skipped.getKey(), skipped.getValue());
                }
                for (Map.Entry<String, AndroidStringsXml.Value> entry : contents.values) {
                    String key = entry.getKey();
                    String text;
                    try {
                        text = entry.getValue().icu(folder.locale);
                    } catch (Placeholders.Refusal refusal) {
                        builder.problem(name, key, refusal.reason());
                        continue;
                    }
                    String earlier = readFrom.getOrDefault(folder.locale, Collections.emptyMap()).get(key);
                    if (earlier != null && !earlier.equals(folder.folder)) {
                        if (!text.equals(builder.get(folder.locale, key))) {
                            builder.problem(name, key, folder.folder + " differs from " + earlier
                                    + ", which Android reads for " + folder.locale);
                        }
                        continue;
                    }
                    readFrom.computeIfAbsent(folder.locale, l -> new HashMap<>()).put(key, folder.folder);
                    fileOf.computeIfAbsent(folder.locale, l -> new HashMap<>()).putIfAbsent(key, name);
                    if (entry.getValue().isPlural()) {
                        plurals.computeIfAbsent(folder.locale, l -> new HashSet<>()).add(key);
                    }
                    builder.text(folder.locale, key, text, name);
                }
            }
        }
        dropMismatchedKinds(builder, plurals, fileOf, source);
        return builder.build();
    }

    private static final class ValuesFolder {
        final String locale;
        final String folder;
        final List<File> files;

        ValuesFolder(String locale, String folder, List<File> files) {
            this.locale = locale;
            this.folder = folder;
            this.files = files;
        }
    }

    /**
     * The {@code values*} folders of {@code res} with their {@code .xml} files; the others are
     * listed, when they hold strings.
     */
    private static List<ValuesFolder> valuesFolders(File res, String source, Builder builder) {
        List<ValuesFolder> folders = new ArrayList<>();
        String[] names = res.list();
        if (names == null) return folders;
        Arrays.sort(names);
        for (String folder : names) {
            if (!folder.equals("values") && !folder.startsWith("values-")) continue;
            String[] fileNames = new File(res, folder).list();
            List<File> files = new ArrayList<>();
            if (fileNames != null) {
                Arrays.sort(fileNames);
                for (String fileName : fileNames) {
                    if (fileName.endsWith(".xml")) files.add(new File(new File(res, folder), fileName));
                }
            }
            AndroidStringsXml.Folder locale = AndroidStringsXml.folderLocale(folder, source);
            if (locale.locale != null) {
                folders.add(new ValuesFolder(locale.locale, folder, files));
            } else {
                for (File file : files) {
                    if (AndroidStringsXml.holdsStrings(file)) {
                        builder.problem(folder, null, locale.leftOut);
                        break;
                    }
                }
            }
        }
        return folders;
    }

    /**
     * A {@code <string>} and a {@code <plurals>} of one name are two resources to Android: a
     * translation that gives the other kind translates nothing the app asks for, so it is left out.
     */
    private static void dropMismatchedKinds(Builder builder, Map<String, Set<String>> plurals,
            Map<String, Map<String, String>> fileOf, String source) {
        Map<String, String> sourceTable = builder.strings.get(source);
        if (sourceTable == null) return;
        Set<String> sourcePlurals = plurals.getOrDefault(source, Collections.emptySet());
        for (String locale : new ArrayList<>(builder.strings.keySet())) {
            if (locale.equals(source)) continue;
            Map<String, String> table = builder.strings.get(locale);
            Set<String> own = plurals.getOrDefault(locale, Collections.emptySet());
            for (String key : new ArrayList<>(new TreeMap<>(table).keySet())) {
                if (!sourceTable.containsKey(key) || sourcePlurals.contains(key) == own.contains(key)) continue;
                table.remove(key);
                builder.problem(fileOf.get(locale).get(key), key, sourcePlurals.contains(key)
                        ? "a <string> here, <plurals> in values/: Android reads values/'s plurals"
                        : "<plurals> here, a <string> in values/: Android reads values/'s string");
            }
        }
    }

    /** Makes a new builder; see {@link Builder}. */
    @NonNull
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Tables assembled one string at a time, for a loader that reads them from somewhere else:
     * Android's {@code Resources} ({@code dev.rollout.client.android.ResourceStrings}), or an
     * app's own format. Texts given as Android returns them ({@code getString}: escapes already
     * read) are converted to the pack form as import converts them. The first text of a locale's
     * key is kept; a different second one is listed. Not thread-safe; {@link #build()} copies.
     */
    public static final class Builder {
        private final Map<String, Map<String, String>> strings = new LinkedHashMap<>();
        private final List<Problem> problems = new ArrayList<>();

        Builder() {}

        /** Adds text already in the pack form (ICU MessageFormat). */
        @NonNull
        public Builder text(@NonNull String locale, @NonNull String key, @NonNull String text, @NonNull String file) {
            Map<String, String> table = strings.computeIfAbsent(locale, l -> new LinkedHashMap<>());
            String first = table.get(key);
            if (first == null) {
                table.put(key, text);
            } else if (!first.equals(text)) {
                problem(file, key, locale + " has this key from an earlier file already: the first is kept");
            }
            return this;
        }

        /**
         * Adds a {@code <string>} as {@code Resources.getString(id)} returns it (a printf string for
         * {@code String.format}): {@code %1$s} becomes {@code {0}}, an apostrophe is text. A
         * conversion the pack form cannot keep ({@code %05d}) leaves the key out, listed.
         */
        @NonNull
        public Builder androidString(@NonNull String locale, @NonNull String key, @NonNull String value,
                @NonNull String file) {
            try {
                return text(locale, key, PackPrintf.literalPercents(Placeholders.printfIcu(value)), file);
            } catch (Placeholders.Refusal refusal) {
                return problem(file, key, refusal.reason());
            }
        }

        /** Adds a {@code formatted="false"} string: every {@code %} is text, as written. */
        @NonNull
        public Builder androidLiteral(@NonNull String locale, @NonNull String key, @NonNull String value,
                @NonNull String file) {
            return text(locale, key, PackPrintf.literalPercents(Placeholders.literal(value)), file);
        }

        /**
         * Adds a {@code <plurals>} given as its forms (CLDR category to the text
         * {@code getQuantityString} formats), as one ICU plural of the first number the forms show.
         */
        @NonNull
        public Builder androidPlural(@NonNull String locale, @NonNull String key, @NonNull Map<String, String> forms,
                @NonNull String file) {
            try {
                return text(locale, key, Placeholders.printfPlural(forms, LocaleTags.canonical(locale)), file);
            } catch (Placeholders.Refusal refusal) {
                return problem(file, key, refusal.reason());
            }
        }

        /**
         * Adds a {@code <plurals>} read through {@code Resources.getQuantityText(id, n)}, which gives
         * one form per call: {@code quantityText} is asked for one whole number of each CLDR category
         * of the locale's language (1 for {@code one}, 0 for Arabic's {@code zero}...). A category
         * no whole number reaches ({@code other} in Polish and Russian) cannot be asked for; as in
         * import, {@code many} stands for it.
         */
        @NonNull
        public Builder androidQuantityText(@NonNull String locale, @NonNull String key,
                @NonNull IntFunction<? extends CharSequence> quantityText, @NonNull String file) {
            String language = LocaleTags.canonical(locale);
            PluralRules rules = PluralRules.of(language == null ? locale : language);
            Map<String, String> forms = new LinkedHashMap<>();
            for (int n : Placeholders.WHOLE_NUMBER_SAMPLES) {
                String category = rules.category(PluralOperands.parse(Integer.toString(n)));
                if (!forms.containsKey(category)) {
                    CharSequence text = quantityText.apply(n);
                    if (text != null) forms.put(category, text.toString());
                }
            }
            return androidPlural(locale, key, forms, file);
        }

        /**
         * Takes {@code key} out of {@code locale}'s table again: for a loader that learns only after
         * reading a text that it is not that locale's own (Android's answer from {@code values/}).
         */
        @NonNull
        public Builder remove(@NonNull String locale, @NonNull String key) {
            Map<String, String> table = strings.get(locale);
            if (table != null) table.remove(key);
            return this;
        }

        /** Lists something left out: {@code key} null when a whole file or folder was. */
        @NonNull
        public Builder problem(@NonNull String file, @Nullable String key, @NonNull String reason) {
            problems.add(new Problem(file, key, reason));
            return this;
        }

        String get(String locale, String key) {
            Map<String, String> table = strings.get(locale);
            return table == null ? null : table.get(key);
        }

        /**
         * The tables and the problems. A locale whose keys were all removed has no table, so it
         * reads its shorter form's.
         */
        @NonNull
        public BundledStrings build() {
            Map<String, Map<String, String>> tables = new LinkedHashMap<>(strings);
            tables.values().removeIf(Map::isEmpty);
            return new BundledStrings(copy(tables), new ArrayList<>(problems));
        }
    }

    private static Map<String, Map<String, String>> copy(Map<String, Map<String, String>> strings) {
        Map<String, Map<String, String>> copy = new HashMap<>();
        for (Map.Entry<String, Map<String, String>> entry : strings.entrySet()) {
            copy.put(Objects.requireNonNull(entry.getKey(), "locale"),
                    Collections.unmodifiableMap(new HashMap<>(entry.getValue())));
        }
        return Collections.unmodifiableMap(copy);
    }
}
